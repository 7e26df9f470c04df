/**
 * A construction site's practices, landowner, developer and address through the live catalogue on a real
 * store: added, edited, kept across a reopen; a practice without a kind, or a party without an address,
 * is refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Catalogue } from '../../gateway/src/admin/catalogue.ts';
import { ChangeLog } from '../../gateway/src/admin/changes.ts';
import { silentLog } from '../../gateway/src/pipeline.ts';
import { openDatabase } from '../../gateway/src/store/db.ts';
import { EvidenceLog } from '../../gateway/src/store/evidenceLog.ts';
import type { Db } from '../../gateway/src/store/types.ts';

describe('Catalogue: the enforcement facts of a construction site', () => {
  let dir: string;
  let db: Db;
  const now = Date.parse('2026-11-20T12:00:00Z');
  const open = () => {
    const log = new EvidenceLog(db);
    const changes = new ChangeLog(db, log, () => now);
    return new Catalogue(db, changes, { now: () => now, log: silentLog });
  };
  const practices = [
    { id: 'sf-north', label: 'Silt fence, north boundary', kind: 'silt-fence' },
    { id: 'entrance', label: 'Stabilized entrance on Elm St', kind: 'stabilized-entrance' },
  ];
  const landowner = { name: 'Elm Street Holdings LLC', address: '12 Elm St, Chester NY 10918' };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gw-enf-'));
    db = openDatabase(dir);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps practices, parties and address, and an edit replaces them', () => {
    const c = open();
    c.addSite(
      { id: 'elm-st', kind: 'construction', practices, landowner, address: 'Lot 4, Elm Street' },
      'Ada Admin',
    );
    c.editSite(
      'elm-st',
      { developer: { name: 'Dev Co', address: '1 Main St', email: 'dev@example.com' } },
      'Ada Admin',
    );
    db.close();
    db = openDatabase(dir);
    const s = open().site('elm-st')!;
    expect(s.practices).toEqual(practices);
    expect(s.landowner).toEqual(landowner);
    expect(s.developer).toEqual({ name: 'Dev Co', address: '1 Main St', email: 'dev@example.com' });
    expect(s.address).toBe('Lot 4, Elm Street');
  });

  it('refuses a practice without a kind and a party without an address', () => {
    const c = open();
    expect(() =>
      c.addSite({ id: 'a', kind: 'construction', practices: [{ id: 'x', label: 'X' }] }, 'Ada Admin'),
    ).toThrow(/kind/);
    expect(() =>
      c.addSite({ id: 'b', kind: 'construction', landowner: { name: 'No Address' } }, 'Ada Admin'),
    ).toThrow(/address/);
  });
});
