/**
 * Photos have one owner, the photo store, and the records that cite them register their own queries: the
 * inspections' findings (the alert engine's) and the correction reports (enforcement's). Over a real
 * SQLite store: the store names the sites citing a photo and keeps every cited photo, and the schema's own
 * guard refuses to remove any photo a registered query says is cited.
 */
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ComplianceEngine } from '../../gateway/src/alerts/engine.ts';
import { INSPECTION_PHOTOS } from '../../gateway/src/alerts/stores/inspections.ts';
import { CORRECTION_PHOTOS, type Enforcement } from '../../gateway/src/enforcement/index.ts';
import { PhotoStore } from '../../gateway/src/store/photos.ts';
import { H, openDb, realEngine, T0, tempDir, testConfig } from '../alerts/support.ts';
import { completeInput } from '../helpers/inspections.ts';
import { enforcementOf } from './support.ts';

const DAY = 24 * H;
const [inInspection, inCorrection, uncited] = ['a', 'b', 'c'].map((c) => c.repeat(64)) as [
  string,
  string,
  string,
];
let tmp: ReturnType<typeof tempDir>;
let db: Database.Database;
let engine: ComplianceEngine;
let enforcement: Enforcement;

beforeEach(() => {
  tmp = tempDir();
  db = openDb(join(tmp.dir, 'gw.db'));
  engine = realEngine(db, testConfig(), () => T0);
  enforcement = enforcementOf({ engine, db });
  const photo = db.prepare(
    "INSERT INTO photos (sha256, type, bytes, stored_at, stored_by) VALUES (?, 'image/jpeg', 10, ?, 'Ida')",
  );
  for (const sha of [inInspection, inCorrection, uncited]) photo.run(sha, T0 - 30 * DAY);
  engine.recordInspection(
    completeInput({
      siteId: 'site-a',
      at: T0,
      inspector: 'Ida Inspector',
      kind: 'routine',
      findings: [{ practice: 'silt-north', status: 'maintenance', note: 'torn', photos: [inInspection] }],
    }),
    'Ida Inspector',
  );
  const { id } = enforcement.violations.issue(
    {
      siteId: 'site-a',
      law: '001',
      orderKind: 'correct',
      nature: 'Silt fence down.',
      remedy: 'Reinstall it.',
      remedyDueAt: T0 + 7 * DAY,
      penalties: 'Up to $250.',
      parties: {},
    },
    'Ida Inspector',
  );
  enforcement.violations.step(
    id,
    'corrected',
    { text: 'Reinstalled.', photos: [inCorrection], by: 'Dana Developer' },
    () => {},
  );
});
afterEach(() => {
  engine.stop();
  db.close();
  tmp.cleanup();
});

const shas = () =>
  (db.prepare('SELECT sha256 FROM photos ORDER BY sha256').all() as { sha256: string }[]).map(
    (r) => r.sha256,
  );

describe('the photos records cite, each kind registered by its owner', () => {
  it('names the sites whose records cite a photo, and keeps every cited photo', () => {
    const photos = new PhotoStore(db, tmp.dir, [INSPECTION_PHOTOS, CORRECTION_PHOTOS]);
    expect([inInspection, inCorrection, uncited].map((s) => photos.citingSites(s))).toEqual([
      ['site-a'],
      ['site-a'],
      [],
    ]);
    expect(photos.removeUncited(T0)).toEqual({ photos: 1, bytes: 10 });
    expect(shas()).toEqual([inInspection, inCorrection]);
  });

  it('knows only the citations registered with it', () => {
    const photos = new PhotoStore(db, tmp.dir, [INSPECTION_PHOTOS]);
    expect(photos.citingSites(inCorrection)).toEqual([]);
    expect(new PhotoStore(db, tmp.dir, []).citingSites(inInspection)).toEqual([]);
  });

  it('is guarded by the schema too: a photo a registered query calls cited is never removed', () => {
    for (const sha of [inInspection, inCorrection])
      expect(() => db.prepare('DELETE FROM photos WHERE sha256 = ?').run(sha)).toThrow(
        /a cited photo is kept/,
      );
    db.prepare('DELETE FROM photos WHERE sha256 = ?').run(uncited);
    expect(shas()).toEqual([inInspection, inCorrection]);
  });
});
