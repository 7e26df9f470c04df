/**
 * Alerts' evidence in words (rules/index.ts `evidenceText`): each rule's own sentences first, then the
 * keys it does not tell with generic labels (shared/src/words.ts); never a raw key, an ISO time or `null`.
 */
import { describe, expect, it } from 'vitest';
import { evidenceText, RULE_IDS } from '../../gateway/src/rules/index.ts';
import { factLines, keyLabel, valueText } from '../../shared/src/words.ts';

const NY = 'America/New_York';
const RAW = /\d{4}-\d{2}-\d{2}T|\bnull\b|undefined|\[object|[a-z][A-Z]/;

/** Evidence as each rule's evaluator records it (storm-inspection/alert.ts, remedy/evaluator.ts, …). */
const EVIDENCE: Record<string, Record<string, unknown>> = {
  'storm-inspection': {
    eventId: 'maple-ridge:rg-1:1796183052074',
    deviceId: 'rg-1',
    start: '2026-11-30T11:53:00.000Z',
    end: '2026-12-01T10:17:00.000Z',
    tips: 62,
    inches: 0.62,
    inchesPerTip: 0.01,
    thresholdIn: 0.5,
    thresholdTips: 50,
    dueFrom: 'end',
    dueHours: 24,
    closed: true,
    thresholdAt: '2026-12-01T00:12:00.000Z',
    crossingReceivedAt: '2026-12-01T00:12:04.000Z',
    dueAt: '2026-12-02T10:17:00.000Z',
  },
  'routine-inspection': {
    periodStart: '2026-11-30T12:00:00.000Z',
    dueAt: '2026-12-07T12:00:00.000Z',
    days: 7,
    lastInspection: null,
  },
  'equipment-remedy': {
    input: 'highWater',
    began: '2026-11-30T12:00:00.000Z',
    dueAt: '2026-12-05T12:00:00.000Z',
    remedyDays: 5,
    holdSeconds: 60,
  },
  'annual-inspection': {
    year: 2026,
    letterAt: '2026-06-01T04:00:00.000Z',
    withinAt: '2026-07-31T04:00:00.000Z',
    notAfterAt: '2026-09-01T04:00:00.000Z',
    dueAt: '2026-07-31T04:00:00.000Z',
    rule: 'earlier',
    timezone: NY,
  },
  'sediment-cleanout': {
    depthIn: 12.5,
    fraction: 0.52,
    threshold: 0.5,
    designDepthIn: 24,
    stageStorage: false,
    at: '2026-11-30T12:00:00.000Z',
  },
  'device-silent': {
    lastReadingAt: null,
    lastReceivedAt: null,
    noEvidenceSince: '2026-11-30T12:00:00.000Z',
    detectedAt: '2026-11-30T14:00:00.000Z',
    silentAfterMinutes: 120,
  },
};

describe("an alert's evidence in words", () => {
  it("tells a storm as the officer reads it, in the site's zone", () => {
    const lines = evidenceText('storm-inspection', EVIDENCE['storm-inspection']!, NY);
    expect(lines.slice(0, 3)).toEqual([
      {
        label: 'Storm',
        text: '0.62 in (62 tips of 0.01 in) at rain gauge rg-1, Nov 30, 2026, 6:53 AM EST to Dec 1, 2026, 5:17 AM EST; the rain has ended',
      },
      // The crossing reading arrived at once: no second time.
      { label: 'Threshold', text: 'crossed 0.5 in (50 tips) at Nov 30, 2026, 7:12 PM EST' },
      { label: 'Inspection due', text: 'Dec 2, 2026, 5:17 AM EST (24 h after the rain ended)' },
    ]);
    // A crossing reading the gauge buffered says when it reached the gateway.
    const late = evidenceText(
      'storm-inspection',
      { ...EVIDENCE['storm-inspection'], crossingReceivedAt: '2026-12-01T03:00:00.000Z', closed: false },
      NY,
    );
    expect(late.find((l) => l.label === 'Threshold')?.text).toBe(
      'crossed 0.5 in (50 tips) at Nov 30, 2026, 7:12 PM EST; that reading reached the gateway at Nov 30, 2026, 10:00 PM EST',
    );
    expect(late.find((l) => l.label === 'Inspection due')?.text).toMatch(/it moves while it still rains\)$/);
  });

  it('says a routine inspection has none on record, not null', () => {
    const lines = evidenceText('routine-inspection', EVIDENCE['routine-inspection']!, NY);
    expect(lines).toContainEqual({
      label: 'Last inspection',
      text: 'none on record: the period began when monitoring did',
    });
    expect(lines[0]).toEqual({
      label: 'Inspection report due',
      text: 'Dec 7, 2026, 7:00 AM EST (every 7 days, weekends included)',
    });
  });

  it('names the alarm and its remedy deadline', () => {
    expect(evidenceText('equipment-remedy', EVIDENCE['equipment-remedy']!, NY).slice(0, 2)).toEqual([
      {
        label: 'Alarm',
        text: 'High water since Nov 30, 2026, 7:00 AM EST (it counts once it has held for 60 s)',
      },
      { label: 'Remedy due', text: "Dec 5, 2026, 7:00 AM EST (within 5 days of the alarm's start)" },
    ]);
  });

  for (const [rule, ev] of Object.entries(EVIDENCE))
    it(`${rule}: every line has a label and words, no raw key, time or null`, () => {
      const lines = evidenceText(rule, ev, NY);
      expect(lines.length).toBeGreaterThan(0);
      for (const l of lines) {
        expect(l.label).toMatch(/^[A-Z]/);
        expect(`${l.label}: ${l.text}`).not.toMatch(RAW);
      }
    });

  it('tells every rule id, and evidence a rule does not expect, with generic labels and without throwing', () => {
    for (const id of RULE_IDS) {
      const lines = evidenceText(id, { inches: 'many', dueAt: 7, lastCheckAt: '2026-11-30T12:00:00Z' }, NY);
      expect(lines.map((l) => l.label)).toContain('Last check');
      for (const l of lines) expect(l.text).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
    }
  });
});

describe('facts for people (shared/src/words.ts)', () => {
  it('labels keys by their words, without the unit or time they name', () => {
    expect(keyLabel('crossingReceivedAt')).toBe('Crossing received');
    expect(keyLabel('thresholdIn', 0.5)).toBe('Threshold');
    expect(keyLabel('holdSeconds', 60)).toBe('Hold');
    expect(keyLabel('peakContrastNtu', 12)).toBe('Peak contrast');
    expect(keyLabel('eventId')).toBe('Event ID');
    expect(keyLabel('inchesPerTip')).toBe('Rain per tip');
  });

  it('gives values their unit, times in the zone, and nothing as none on record', () => {
    expect(valueText('thresholdIn', 0.5, NY)).toBe('0.5 in');
    expect(valueText('holdSeconds', 60, NY)).toBe('60 s');
    expect(valueText('remedyDays', 1, NY)).toBe('1 day');
    expect(valueText('fraction', 0.523, NY)).toBe('52.3%');
    expect(valueText('dueAt', '2026-12-02T10:17:00.000Z', NY)).toBe('Dec 2, 2026, 5:17 AM EST');
    expect(valueText('lastInspection', null, NY)).toBe('none on record');
    expect(valueText('closed', false, NY)).toBe('no');
    expect(valueText('gap', { from: '2026-11-30T12:00:00Z', minutes: 5 }, NY)).toBe(
      'from Nov 30, 2026, 7:00 AM EST; minutes 5',
    );
    expect(factLines({ a: 1, b: undefined, c: 'x' }, NY, ['c'])).toEqual([{ label: 'A', text: '1' }]);
  });
});
