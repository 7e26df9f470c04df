/**
 * The verifier reads a storm as the storm rule does: interval rain (`rainIn`) at its exact depth, never
 * rounded to tips (0.25 + 0.245 in is 0.495 in, under 0.5 in), and the inspection that meets a storm is
 * the first after its last tip, once it has ended (one made while it rained meets nothing; one at the
 * due time is late).
 */
import { describe, expect, it } from 'vitest';
import { checkStorm } from '../../gateway/src/verifier/figures.ts';
import type { ReportStorm } from '../../gateway/src/verifier/reportJson.ts';

type Json = Record<string, unknown>;
const W = { tz: 'America/New_York', site: 'maple-ridge' };
const T0 = Date.parse('2026-11-20T15:00:00Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const iso = (t: number) => new Date(t).toISOString();
const basis = { inchesPerTip: 0.01, thresholdIn: 0.5 };

function storm(inches: readonly number[], rec: Json = {}, status = 'not-required') {
  const end = T0 + (inches.length - 1) * 10 * MIN;
  const readings: Json[] = inches.map((v, k) => ({
    siteId: 'maple-ridge',
    deviceId: 'rg-1',
    ts: T0 + k * 10 * MIN,
    values: { rainIn: v },
  }));
  const record: Json = {
    id: 's-1',
    siteId: 'maple-ridge',
    deviceId: 'rg-1',
    start: T0,
    end,
    tips: 0,
    inches: 0,
    qualified: false,
    closed: true,
    readings: { count: readings.length },
    basis,
    ...rec,
  };
  const shown: ReportStorm = {
    id: 's-1',
    deviceId: 'rg-1',
    start: iso(T0),
    end: iso(end),
    tips: record.tips as number,
    inches: record.inches as number,
    qualified: record.qualified as boolean,
    ...(record.thresholdAt !== undefined ? { thresholdAt: iso(record.thresholdAt as number) } : {}),
    ...(record.dueAt !== undefined ? { dueAt: iso(record.dueAt as number) } : {}),
    inspection: { status },
  };
  return { shown, record, readings, end };
}

const fields = (ps: Array<{ field: string }>) => ps.map((p) => p.field);

describe('the verifier: a storm of interval rain and its inspection', () => {
  it('0.25 + 0.245 in is 0.495 in, below the threshold; a record saying 0.5 in is refused', () => {
    const ok = storm([0.25, 0.245], { tips: 50, inches: 0.495 });
    expect(checkStorm(ok.shown, 0, ok.record, ok.readings, [], T0 + DAYS(2), false, W)).toEqual([]);
    const rounded = storm([0.25, 0.245], { tips: 50, inches: 0.5, qualified: true });
    expect(
      fields(checkStorm(rounded.shown, 0, rounded.record, rounded.readings, [], T0 + DAYS(2), false, W)),
    ).toEqual(expect.arrayContaining(['storms[0].inches']));
  });

  it('an inspection made while it rained meets nothing; the first after the end meets it; one after the due time is late', () => {
    const rain = [0.25, 0.25, 0.4, 0.4];
    const end = T0 + 30 * MIN;
    const rec = {
      tips: 130,
      inches: 1.3,
      qualified: true,
      thresholdAt: T0 + 10 * MIN,
      dueAt: end + 24 * HOUR,
    };
    const during = [{ at: T0 + 15 * MIN, kind: 'storm' }];
    const generated = end + 2 * HOUR;
    // Inspected during the storm only: pending (not yet due), not on time.
    const claimed = storm(rain, rec, 'on-time');
    expect(
      fields(checkStorm(claimed.shown, 0, claimed.record, claimed.readings, during, generated, false, W)),
    ).toEqual(['storms[0].inspection.status']);
    const pending = storm(rain, rec, 'pending');
    expect(
      checkStorm(pending.shown, 0, pending.record, pending.readings, during, generated, false, W),
    ).toEqual([]);
    // After the end: on time; a millisecond after the due time: late.
    const after = [...during, { at: end + HOUR, kind: 'routine' }];
    const onTime = storm(rain, rec, 'on-time');
    expect(checkStorm(onTime.shown, 0, onTime.record, onTime.readings, after, generated, false, W)).toEqual(
      [],
    );
    const atDue = [{ at: end + 24 * HOUR + 1, kind: 'storm' }];
    const late = storm(rain, rec, 'late');
    expect(checkStorm(late.shown, 0, late.record, late.readings, atDue, end + DAYS(2), false, W)).toEqual([]);
    // A storm not ended yet is met by nothing: still pending.
    const open = storm(rain, { ...rec, closed: false }, 'pending');
    expect(checkStorm(open.shown, 0, open.record, open.readings, after, generated, false, W)).toEqual([]);
  });
});

function DAYS(n: number): number {
  return n * 24 * HOUR;
}
