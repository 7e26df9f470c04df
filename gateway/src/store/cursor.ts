import type { Db } from './types.ts';

/**
 * A named position in the readings table (e.g. how far the rules have evaluated), kept in the store's
 * `cursors` table (created with the schema, store/schema/).
 */
export class Cursor {
  private readonly get;
  private readonly set;
  constructor(
    db: Db,
    private readonly name: string,
  ) {
    this.get = db.prepare('SELECT position FROM cursors WHERE name = ?');
    this.set = db.prepare(
      'INSERT INTO cursors (name, position) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET position = excluded.position',
    );
  }
  read(): number | undefined {
    return (this.get.get(this.name) as { position: number } | undefined)?.position;
  }
  write(position: number): void {
    this.set.run(this.name, position);
  }
}
