/**
 * When a device is expected to report (`expected.ts`): from when it was added (or its first reading, if
 * earlier) until it was retired; a silence is a gap only within that time, and the evaluator's alerts
 * fall where the same function says.
 */
import { describe, expect, it } from 'vitest';
import { silentEvaluator } from '../../../gateway/src/rules/device-silent/evaluator.ts';
import {
  type DeviceService,
  expectedSpans,
  gapExpected,
  gapsIn,
  outOfService,
  type Span,
} from '../../../gateway/src/rules/device-silent/expected.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { ctxOf, DAY, HOUR, MIN, reading, run, T0, tick } from '../helpers.ts';

const range: Span = { from: T0, to: T0 + 7 * DAY };
const LIMIT = 2 * HOUR;
const NONE = Number.NEGATIVE_INFINITY;

/** The silences between readings at `times` and up to `end`, as the charts collect them. */
function silences(times: number[], end: number): Span[] {
  const out: Span[] = [];
  let prev = NONE;
  for (const t of [...times, end]) {
    if (t - prev >= LIMIT) out.push({ from: prev, to: t });
    prev = t;
  }
  return out;
}

const added = T0 + 3 * DAY;

describe('the time a device is expected to report', () => {
  it('added mid-range: expected from then on, not yet installed before, no gap before it', () => {
    const s: DeviceService = { addedAt: added, retiredAt: null, firstReadingAt: added + HOUR };
    expect(expectedSpans(s, range)).toEqual([{ from: added, to: range.to }]);
    expect(outOfService(s, range)).toEqual([{ from: range.from, to: added, why: 'not-installed' }]);
    const hourly = Array.from({ length: 24 * 4 - 1 }, (_, i) => added + (i + 1) * HOUR);
    // Three days of nothing before it was added, then a reading an hour after: no gap.
    expect(gapsIn(silences(hourly, range.to), s, range, LIMIT)).toEqual([]);
    // Its first reading three hours after it was added: a gap from when it was added.
    const late = hourly.filter((t) => t >= added + 3 * HOUR);
    expect(gapsIn(silences(late, range.to), s, range, LIMIT)).toEqual([
      { from: added, to: added + 3 * HOUR },
    ]);
  });

  it('a device that sent readings before it was added was in place: expected from its first reading', () => {
    const s: DeviceService = { addedAt: added, retiredAt: null, firstReadingAt: T0 + DAY };
    expect(expectedSpans(s, range)).toEqual([{ from: T0 + DAY, to: range.to }]);
    expect(outOfService(s, range)).toEqual([{ from: range.from, to: T0 + DAY, why: 'not-installed' }]);
  });

  it('retired mid-range: expected until then, retired after, a silence counted only up to it', () => {
    const retired = T0 + 5 * DAY;
    const s: DeviceService = { addedAt: T0 - DAY, retiredAt: retired, firstReadingAt: T0 - DAY };
    expect(expectedSpans(s, range)).toEqual([{ from: range.from, to: retired }]);
    expect(outOfService(s, range)).toEqual([{ from: retired, to: range.to, why: 'retired' }]);
    // Its last reading an hour before it was retired: the silence after is no gap.
    const hourly = Array.from({ length: 5 * 24 }, (_, i) => range.from + i * HOUR);
    expect(gapsIn(silences(hourly, range.to), s, range, LIMIT)).toEqual([]);
    // Silent for three hours before it was retired: a gap up to then, not beyond.
    const early = hourly.filter((t) => t <= retired - 3 * HOUR);
    expect(gapsIn(silences(early, range.to), s, range, LIMIT)).toEqual([
      { from: retired - 3 * HOUR, to: retired },
    ]);
    // A gap on record still open when it was retired is the period's, not a later one's.
    const open = { from: retired - 3 * HOUR, to: Number.POSITIVE_INFINITY };
    expect(gapExpected(open, s, range)).toBe(true);
    expect(gapExpected(open, s, { from: range.to, to: range.to + 7 * DAY })).toBe(false);
  });

  it('no reading at all since it was added: one gap from when it was added, once the limit has passed', () => {
    const s: DeviceService = { addedAt: added, retiredAt: null, firstReadingAt: null };
    expect(gapsIn(silences([], added + LIMIT - MIN), s, range, LIMIT)).toEqual([]);
    expect(gapsIn(silences([], range.to), s, range, LIMIT)).toEqual([{ from: added, to: range.to }]);
    // The rule says the same: bound when the device was added, its alert opens at added + limit, from then.
    const ctx = ctxOf({
      kind: 'construction',
      devices: [{ id: 'trap', kind: 'sediment-trap', designDepthIn: 24, silentAfterMinutes: 120 }],
    });
    const ticks = (until: number) =>
      Array.from({ length: (until - added) / (10 * MIN) + 1 }, (_, i) => tick(added + i * 10 * MIN));
    expect(
      run(silentEvaluator, ctx, ticks(added + LIMIT - 10 * MIN), { deviceId: 'trap' }).sink.alerts.size,
    ).toBe(0);
    const { sink } = run(silentEvaluator, ctx, ticks(added + LIMIT), { deviceId: 'trap' });
    expect([...sink.alerts.values()].map((a) => a.at)).toEqual([added]);
  });

  it('at an inactive site a silence is still a gap: the rule expects reports whatever the work', () => {
    const s: DeviceService = { addedAt: T0 - DAY, retiredAt: null, firstReadingAt: T0 - DAY };
    expect(expectedSpans(s, range)).toEqual([range]);
    const inactive = ctxOf({
      kind: 'construction',
      active: false,
      devices: [{ id: 'trap', kind: 'sediment-trap', designDepthIn: 24, silentAfterMinutes: 120 }],
    });
    const inputs: RuleInput[] = [
      reading('trap', T0, { sedimentIn: 3 }),
      tick(T0 + 3 * HOUR),
      reading('trap', T0 + 4 * HOUR, { sedimentIn: 3 }),
    ];
    const { sink } = run(silentEvaluator, inactive, inputs, { deviceId: 'trap' });
    const gaps = gapsIn(silences([T0, T0 + 4 * HOUR], T0 + 5 * HOUR), s, range, LIMIT);
    expect(gaps).toEqual([{ from: T0, to: T0 + 4 * HOUR }]);
    expect([...sink.alerts.values()].map((a) => ({ from: a.at, to: a.resolvedAt }))).toEqual(gaps);
  });

  it('a device whose time in service is not known is expected all along', () => {
    const s: DeviceService = { addedAt: null, retiredAt: null, firstReadingAt: null };
    expect(expectedSpans(s, range)).toEqual([range]);
    expect(outOfService(s, range)).toEqual([]);
    expect(gapsIn(silences([T0 + HOUR], range.to), s, range, LIMIT)).toEqual([
      { from: range.from, to: T0 + HOUR },
      { from: T0 + HOUR, to: range.to },
    ]);
  });
});
