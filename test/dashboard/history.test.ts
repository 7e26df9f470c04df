/**
 * An alert's history as sentences, a run of due-time updates folded (dashboard/src/ui/history.ts).
 */
import { describe, expect, it } from 'vitest';
import type { Alert, HistoryEntry } from '../../dashboard/src/state.ts';

const modulePath = '../../dashboard/src/ui/history.ts';
const { entrySentence, foldHistory } = (await import(modulePath)) as {
  entrySentence(a: Alert, e: HistoryEntry, tz: string): { text: string; more?: string };
  foldHistory(entries: readonly HistoryEntry[]): Array<HistoryEntry | HistoryEntry[]>;
};

const NY = 'America/New_York';
let seq = 0;
const entry = (
  action: HistoryEntry['action'],
  detail: Record<string, unknown>,
  actor = 'system',
): HistoryEntry => ({
  seq: ++seq,
  at: '2026-12-01T10:17:00.000Z',
  actor,
  action,
  detail,
});
const alert: Alert = {
  id: '01ALERT',
  rule: 'a-rule',
  siteId: 'nowhere',
  deviceId: 'rg-1',
  status: 'open',
  overdue: false,
  raisedAt: '2026-12-01T00:00:00.000Z',
  dueAt: '2026-12-02T10:17:00.000Z',
  message: 'Due.',
  evidence: {},
  history: [],
};

describe("an alert's history in sentences", () => {
  it('says who did what, times in the zone', () => {
    expect(entrySentence(alert, entry('raised', { message: 'Storm.' }), NY)).toEqual({
      text: 'Raised by device rg-1',
      more: 'Storm.',
    });
    expect(entrySentence(alert, entry('acknowledged', { note: 'seen' }, 'Pat Officer'), NY)).toEqual({
      text: 'Acknowledged by Pat Officer',
      more: 'Note: seen',
    });
    expect(entrySentence(alert, entry('updated', { dueAt: '2026-12-02T10:17:00.000Z' }), NY).text).toBe(
      'Due moved to Dec 2, 2026, 5:17 AM EST',
    );
    expect(
      entrySentence(
        alert,
        entry('resolved', { how: 'manual', note: 'fixed', withinDeadline: false }, 'Pat'),
        NY,
      ),
    ).toEqual({ text: 'Resolved by Pat, after the deadline', more: 'fixed' });
    // With its cause: what closed it, who and when, in the zone.
    const cause = {
      kind: 'inspection',
      inspectionId: 'insp-1',
      inspector: 'Ina Spector',
      inspectionKind: 'storm',
      at: '2026-12-01T15:00:00.000Z',
    };
    expect(
      entrySentence(alert, entry('resolved', { how: 'auto', cause, withinDeadline: true }, 'ina'), NY).text,
    ).toBe(
      'Resolved by the storm inspection by Ina Spector on Dec 1, 2026, 10:00 AM EST, within the deadline',
    );
    expect(entrySentence(alert, entry('resolved', { how: 'auto' }), NY).text).toBe(
      'Resolved from the readings',
    );
    expect(
      entrySentence(
        alert,
        entry(
          'extended',
          {
            oldDueAt: '2026-12-02T10:17:00Z',
            newDueAt: '2026-12-09T10:17:00Z',
            letterRef: 'L-1',
            engineer: 'P. E.',
          },
          'Eve',
        ),
        NY,
      ).text,
    ).toBe(
      "Due extended from Dec 2, 2026, 5:17 AM EST to Dec 9, 2026, 5:17 AM EST by an engineer's letter (letter L-1, P. E.), recorded by Eve",
    );
  });

  it('folds consecutive updates that moved the due time, and leaves the others alone', () => {
    const moved = (n: number) =>
      Array.from({ length: n }, () => entry('updated', { dueAt: '2026-12-02T10:17:00Z' }));
    const list = [
      entry('raised', {}),
      ...moved(3),
      entry('acknowledged', {}, 'Pat'),
      ...moved(1),
      entry('updated', { message: 'x' }),
    ];
    const folded = foldHistory(list);
    expect(folded.map((x) => (Array.isArray(x) ? `run of ${x.length}` : x.action))).toEqual([
      'raised',
      'run of 3',
      'acknowledged',
      'updated',
      'updated',
    ]);
  });
});
