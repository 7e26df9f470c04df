/**
 * Opening the store with its write gate. A start on a full disk does not exit: an existing store that
 * needs no migration opens as usual and the gate makes it read-only until space returns; a store that
 * cannot be opened at all (a first start, or a migration that needs space) is replaced by an empty
 * in-memory stand-in, read-only, with health saying why, and `standIn` set so the caller can start over
 * on the real store once space is back.
 */
import Database from 'better-sqlite3';
import type { Registry } from '../metrics.ts';
import type { Log } from '../pipeline.ts';
import { type Db, openDatabase } from './db.ts';
import { migrate } from './schema/index.ts';
import { isDiskError, WriteGate } from './writeGate.ts';

export interface OpenedStore {
  db: Db;
  gate: WriteGate;
  /** Why the real store could not be opened (the in-memory stand-in is in use), if it could not. */
  standIn?: string;
}

export function openStore(
  dataDir: string,
  opts: { synchronous: 'full' | 'normal'; minFreeMb: number; log: Log; metrics?: Registry },
): OpenedStore {
  const gate = new WriteGate({
    dataDir,
    minFreeBytes: opts.minFreeMb * 1024 * 1024,
    log: opts.log,
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
  });
  try {
    const db = openDatabase(dataDir, { synchronous: opts.synchronous });
    gate.start();
    return { db, gate };
  } catch (e) {
    if (!isDiskError(e)) throw e;
    const standIn = `the store in the data directory cannot be opened (${(e as Error).message}): no data is served or taken until space returns`;
    opts.log.error(
      { err: (e as Error).message },
      'local store cannot be opened: starting read-only on an empty stand-in',
    );
    const db = new Database(':memory:');
    migrate(db);
    gate.hold(standIn);
    gate.start();
    return { db, gate, standIn };
  }
}
