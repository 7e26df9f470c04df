/**
 * What closed an alert, in words (shared/src/api/resolutionWords.ts) and as data from what the rules were
 * given (gateway/src/alerts/cause.ts): each cause reads as a clerk would say it, times in the site's zone;
 * a resolution recorded before causes were kept reads as it did.
 */
import { describe, expect, it } from 'vitest';
import { causeOf, READINGS } from '../../gateway/src/alerts/cause.ts';
import { type ResolutionCause, resolutionCauseSchema } from '../../shared/src/api/resolutionCause.ts';
import { causeWords, resolvedWords } from '../../shared/src/api/resolutionWords.ts';
import { formatLong } from '../../shared/src/time.ts';

const TZ = 'America/New_York';
const t = (iso: string) => formatLong(Date.parse(iso), TZ);
const AT = '2026-12-01T15:00:00.000Z';
const AT_MS = Date.parse(AT);

describe('a resolution in words', () => {
  const cases: Array<[ResolutionCause, RegExp]> = [
    [
      {
        kind: 'inspection',
        inspectionId: 'insp-1',
        inspector: 'Ina Spector',
        inspectionKind: 'storm',
        at: AT,
      },
      /^Resolved by the storm inspection by Ina Spector on Dec 1, 2026, 10:00 AM EST$/,
    ],
    [
      {
        kind: 'inspection',
        inspectionId: 'insp-2',
        inspector: 'Hal Hauler',
        inspectionKind: 'cleanout',
        at: AT,
        hauler: { name: 'Acme Septic', permit: 'DEC-123' },
      },
      /^Resolved by the pump-out by Acme Septic \(NYS DEC permit DEC-123\) on Dec 1, 2026, 10:00 AM EST, recorded by Hal Hauler$/,
    ],
    [
      { kind: 'notice', step: 'approved', noticeId: 'nov-9', number: 2, by: 'Olive Officer', at: AT },
      /^Resolved by the officer's approval of notice of violation no\. 2 \(Olive Officer, Dec 1, 2026, 10:00 AM EST\)$/,
    ],
    [
      { kind: 'notice', step: 'reversed', noticeId: 'nov-9', by: 'Olive Officer', at: AT },
      /^Resolved by the reversal of the notice of violation on appeal/,
    ],
    [
      { kind: 'readings', deviceId: 'rg-1', at: AT },
      /^Resolved from the readings: device rg-1's reading of Dec 1, 2026, 10:00 AM EST$/,
    ],
    [
      { kind: 'record', record: 'certification', recordId: 'rec-1', by: 'Carl Contractor', at: AT },
      /^Resolved by the record "Contractor's certification" filed by Carl Contractor on Dec 1/,
    ],
    [{ kind: 'person', by: 'Olive Officer' }, /^Resolved by Olive Officer, by hand$/],
    [{ kind: 'history', at: AT }, /^Resolved by the site's history on record \(Dec 1, 2026/],
    [{ kind: 'schedule', at: AT }, /^Resolved by the gateway's schedule on Dec 1, 2026, 10:00 AM EST$/],
  ];
  it.each(cases)('%o', (cause, words) => {
    expect(resolutionCauseSchema.parse(cause)).toEqual(cause);
    expect(resolvedWords({ how: 'auto', by: 'system', cause }, t)).toMatch(words);
  });

  it('reads an old resolution, without a cause, as before', () => {
    expect(resolvedWords({ how: 'auto', by: 'system' }, t)).toBe('Resolved from the readings');
    expect(resolvedWords({ how: 'manual', by: 'Pat' }, t)).toBe('Resolved by Pat');
  });

  it('never shows a field id or JSON for a cause of a later release', () => {
    const later = { kind: 'satellite', at: AT } as unknown as ResolutionCause;
    expect(causeWords(later, t)).toBe('by a cause this copy does not know');
  });
});

describe('the cause drawn from what the rules were given', () => {
  const row = { device_id: 'float-1' };
  it('an inspection: its id, inspector, kind and time, and a pump-out hauler', () => {
    const input = {
      type: 'inspection' as const,
      siteId: 's',
      at: AT_MS,
      kind: 'cleanout',
      inspector: 'Hal',
      id: 'insp-7',
      details: { hauler: { name: 'Acme', permit: 'P-1' } },
    };
    expect(causeOf(input, row, AT_MS + 5)).toEqual({
      kind: 'inspection',
      inspectionId: 'insp-7',
      inspector: 'Hal',
      inspectionKind: 'cleanout',
      at: AT,
      hauler: { name: 'Acme', permit: 'P-1' },
    });
  });

  it("a notice's approval with its number; the readings at the effect's time; a tick is the schedule", () => {
    const approved = {
      type: 'violation' as const,
      step: 'approved' as const,
      siteId: 's',
      id: 'nov-3',
      at: AT_MS,
      remedyDueAt: AT_MS,
      nature: 'x',
      by: 'Olive',
      number: 3,
    };
    expect(causeOf(approved, row, AT_MS)).toEqual({
      kind: 'notice',
      step: 'approved',
      noticeId: 'nov-3',
      number: 3,
      by: 'Olive',
      at: AT,
    });
    expect(causeOf(READINGS, row, AT_MS)).toEqual({ kind: 'readings', deviceId: 'float-1', at: AT });
    expect(causeOf({ type: 'tick', now: AT_MS + 1 }, row, AT_MS)).toEqual({ kind: 'schedule', at: AT });
    expect(causeOf({ type: 'tick', now: AT_MS }, row, AT_MS, { onRecord: true })).toEqual({
      kind: 'history',
      at: AT,
    });
  });
});
