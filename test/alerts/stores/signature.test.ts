/**
 * An inspection's signature is part of its log entry: the audit finds a signature changed in the store
 * after it was logged, and an inspection logged without one (as before signatures were kept) audits clean.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditAll } from '../../helpers/evidence.ts';
import { type Harness, makeEngine, T0, tempDir } from '../support.ts';

let tmp: ReturnType<typeof tempDir>;
let h: Harness;

beforeEach(() => {
  tmp = tempDir();
  h = makeEngine(join(tmp.dir, 'gw.db'), () => []);
});
afterEach(() => {
  if (h.db.open) h.db.close();
  tmp.cleanup();
});

const input = {
  siteId: 'site-a',
  at: T0,
  inspector: 'I. Spector',
  kind: 'other' as const,
  notes: 'Looked at the basin.',
};

describe("an inspection's signature in the evidence log", () => {
  it('a signature changed after it was logged is found by the audit', () => {
    const signed = h.engine.recordInspection(
      { ...input, signature: { name: 'I. Spector', method: 'drawn', drawing: 'M1 1 L50 60' } },
      'insp',
    ).inspection;
    const unsigned = h.engine.recordInspection(input, 'insp').inspection;
    expect(auditAll(h.db).problems).toEqual([]);
    h.db.exec('DROP TRIGGER inspections_no_update');
    h.db
      .prepare('UPDATE inspections SET signature = ? WHERE id = ?')
      .run('{"drawing":"M1 1 L90 10","method":"drawn","name":"I. Spector"}', signed.id);
    expect(auditAll(h.db).problems).toEqual([
      {
        idx: signed.logIndex,
        kind: 'inspection',
        reason: expect.stringMatching(/^its inspections record \d+ was changed after it was logged$/),
      },
    ]);
    // A signature added to one logged without any is no more what its entry says.
    h.db
      .prepare('UPDATE inspections SET signature = ? WHERE id = ?')
      .run('{"method":"typed","name":"Someone Else"}', unsigned.id);
    expect(auditAll(h.db).problems.map((p) => p.idx)).toEqual([signed.logIndex, unsigned.logIndex]);
  });
});
