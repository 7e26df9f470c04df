/**
 * The law of the developer's records the verifier checks beside the table: the officer's confirmation of a
 * final stabilization names the site's final stabilization record, logged before it and dated no later
 * (law 001, SWPPP certification, D).
 */
import { describe, expect, it } from 'vitest';
import type { CitedBody, Context } from '../../gateway/src/verifier/checker.ts';
import { checkConfirmation } from '../../gateway/src/verifier/records.ts';

const T = Date.parse('2026-09-01T14:00:00Z');
const entry = (
  index: number,
  kind: string,
  id: string,
  at: number,
  body: Record<string, unknown>,
): CitedBody => ({
  index,
  pos: index,
  kind: 'site-record',
  body: { id, siteId: 'maple-ridge', kind, at, recordedAt: at, recordedBy: 'Dana Developer', body },
});
const stabilization = entry(5, 'final-stabilization', 'record-s', T, {
  kind: 'final-stabilization',
  stabilizedAt: new Date(T).toISOString(),
  description: 'Grass established.',
});
const confirmation = (index: number, confirms: string, at: number) =>
  entry(index, 'stabilization-confirmation', 'record-c', at, {
    kind: 'stabilization-confirmation',
    confirms,
    confirmedAt: new Date(at).toISOString(),
    note: '',
  });
const ctxOf = (all: CitedBody[]) => ({ all }) as unknown as Context;
const check = (e: CitedBody, all: CitedBody[]) =>
  checkConfirmation(e, 'records[1]', 'The record', ctxOf(all));

describe('a confirmation of final stabilization, as the verifier reads it', () => {
  it('confirms a stabilization logged before it and dated no later: no problem', () => {
    const c = confirmation(7, 'record-s', T + 3_600_000);
    expect(check(c, [stabilization, c])).toEqual([]);
    // Another kind of record is not this check's.
    expect(check(stabilization, [stabilization])).toEqual([]);
  });

  it('names one that confirms no stabilization, or one logged after it', () => {
    const none = confirmation(7, 'record-x', T + 3_600_000);
    expect(check(none, [stabilization, none]).map((p) => p.field)).toEqual(['records[1].body.confirms']);
    const before = confirmation(3, 'record-s', T + 3_600_000);
    expect(check(before, [before, stabilization])[0]?.message).toContain(
      'it confirms a final stabilization that the report does not show logged before it',
    );
  });

  it('names one dated before the stabilization it confirms', () => {
    const early = confirmation(7, 'record-s', T - 3_600_000);
    expect(check(early, [stabilization, early])).toEqual([
      expect.objectContaining({
        field: 'records[1].at',
        message: 'The record: it is dated before the final stabilization it confirms',
      }),
    ]);
  });
});
