import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  STORM_MAX_FROZEN,
  type StormState,
  stormEvaluator,
  stormEventsOf,
  thresholdTips,
} from '../../../gateway/src/rules/storm-inspection/evaluator.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { RAIN_DIR } from '../../helpers/env.ts';
import {
  ctxOf,
  DAY,
  HOUR,
  MIN,
  reading,
  run,
  Sink,
  type SiteContext,
  shuffle,
  T0,
  tick,
} from '../helpers.ts';

const MM02 = 0.007874;

function gaugeCtx(inchesPerTip = 0.01, storm: Record<string, unknown> = {}): SiteContext {
  return ctxOf({
    kind: 'construction',
    storm,
    devices: [{ id: 'rg', kind: 'rain-gauge', inchesPerTip }],
  });
}

/** A counter gauge: a baseline reading, then one reading per tip time with the counter +1. */
function counterReadings(tipTimes: number[], baselineTs = T0 - HOUR, start = 0): RuleInput[] {
  const out: RuleInput[] = [reading('rg', baselineTs, { rainTips: start })];
  let c = start;
  for (const t of tipTimes) out.push(reading('rg', t, { rainTips: ++c }));
  return out;
}

/** n tips, one every `everyMs`, from `from`. */
function tipsAt(from: number, n: number, everyMs = MIN): number[] {
  return Array.from({ length: n }, (_, i) => from + i * everyMs);
}

/**
 * The inputs, then a tick once late data has settled (`storm.settleMinutes`, 5 by default): storms that
 * out-of-order readings made raise their alerts then.
 */
function settled(inputs: RuleInput[]): RuleInput[] {
  const arrived = inputs.map((i) => (i.type === 'reading' ? i.reading.receivedAt : 0));
  return [...inputs, tick(Math.max(...arrived) + 5 * MIN)];
}

function feed(ctx: SiteContext, inputs: RuleInput[], sink?: Sink, json = true) {
  return run(stormEvaluator, ctx, inputs, { deviceId: 'rg', sink, json, checkPurity: json });
}

describe('storm-inspection: thresholds in tips', () => {
  it('computes the threshold in whole tips', () => {
    expect(thresholdTips(0.5, 0.01)).toBe(50);
    expect(thresholdTips(0.5, MM02)).toBe(64);
    expect(thresholdTips(0.5, 0.2 / 25.4)).toBe(64);
    expect(thresholdTips(1, 0.01)).toBe(100);
  });

  it('50 tips of 0.01 in qualify, at the 50th tip; 49 do not', () => {
    const ctx = gaugeCtx(0.01);
    const tips = tipsAt(T0, 50);
    const { sink } = feed(ctx, counterReadings(tips.slice(0, 49)));
    expect(sink.alerts.size).toBe(0);
    expect(sink.liveStorms()).toHaveLength(1);
    expect(sink.liveStorms()[0]).toMatchObject({ tips: 49, qualified: false });

    const all = feed(ctx, counterReadings(tips)).sink;
    const [storm] = all.liveStorms();
    expect(storm).toMatchObject({ tips: 50, inches: 0.5, qualified: true, thresholdAt: tips[49] });
    const alerts = [...all.alerts.values()];
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      key: `storm-inspection:s1:rg:${tips[0]}`,
      rule: 'storm-inspection',
      at: tips[49],
      dueAt: tips[49]! + 24 * HOUR,
    });
  });

  it('with 0.2 mm tips, 63 tips (0.496 in) do not qualify and 64 (0.504 in) do', () => {
    const ctx = gaugeCtx(MM02);
    const tips = tipsAt(T0, 64);
    const s63 = feed(ctx, counterReadings(tips.slice(0, 63))).sink;
    expect(s63.alerts.size).toBe(0);
    expect(s63.liveStorms()[0]).toMatchObject({ tips: 63, qualified: false });
    expect(s63.liveStorms()[0]!.inches).toBeCloseTo(0.496062, 5);
    const s64 = feed(ctx, counterReadings(tips)).sink;
    expect(s64.alerts.size).toBe(1);
    expect(s64.liveStorms()[0]).toMatchObject({ tips: 64, qualified: true, thresholdAt: tips[63] });
    expect(s64.liveStorms()[0]!.inches).toBeCloseTo(0.503936, 5);
  });

  it('counts interval rain (rainIn) in tips: 50 reports of 0.01 in qualify, 49 do not', () => {
    const ctx = gaugeCtx(0.01);
    const ins = tipsAt(T0, 50).map((t) => reading('rg', t, { rainIn: 0.01 }));
    expect(feed(ctx, ins.slice(0, 49)).sink.alerts.size).toBe(0);
    const s = feed(ctx, ins).sink;
    expect(s.alerts.size).toBe(1);
    expect(s.liveStorms()[0]).toMatchObject({ tips: 50, inches: 0.5 });
  });

  it('interval rain in rounded inches never drifts: 0.2 mm tips reported as 2-decimal inches', () => {
    const ctx = gaugeCtx(MM02);
    // 64 tips = 0.503936 in, reported in 16 reports of 4 tips each, rounded to 0.03 in (4 x 0.007874 = 0.0315).
    const ins = tipsAt(T0, 16, 5 * MIN).map((t) => reading('rg', t, { rainIn: 0.03 }));
    const s = feed(ctx, ins).sink;
    // 16 x 0.03 = 0.48 in = 60.96 tips: rounded to 61, and no alert (the rounded report under-reads).
    expect(s.liveStorms()[0]!.tips).toBe(61);
    expect(s.alerts.size).toBe(0);
  });
});

describe('storm-inspection: counters', () => {
  it('the first reading sets the baseline: its counter value is not rain', () => {
    const ctx = gaugeCtx(0.01);
    const { sink } = feed(ctx, [
      reading('rg', T0, { rainTips: 12_345 }),
      reading('rg', T0 + MIN, { rainTips: 12_346 }),
    ]);
    expect(sink.liveStorms()).toHaveLength(1);
    expect(sink.liveStorms()[0]).toMatchObject({ tips: 1, start: T0 + MIN });
    expect(sink.alerts.size).toBe(0);
  });

  it('a counter reset mid-storm counts the new value as tips since the reset, never negative rain', () => {
    const ctx = gaugeCtx(0.01);
    const values = [100, 110, 120, 130, /* reboot */ 3, 13, 23];
    const inputs = values.map((v, i) => reading('rg', T0 + i * 10 * MIN, { rainTips: v }));
    const { sink } = feed(ctx, inputs);
    const storms = sink.liveStorms();
    expect(storms).toHaveLength(1);
    // 10 + 10 + 10 + 3 (since the reset) + 10 + 10 = 53.
    expect(storms[0]).toMatchObject({
      tips: 53,
      qualified: true,
      start: T0 + 10 * MIN,
      thresholdAt: T0 + 60 * MIN,
    });
    expect(sink.alerts.size).toBe(1);
  });

  it('a reset to 0 with no rain since adds nothing', () => {
    const ctx = gaugeCtx(0.01);
    const inputs = [0, 40, 0, 0, 5].map((v, i) => reading('rg', T0 + i * 10 * MIN, { rainTips: v }));
    const { sink } = feed(ctx, inputs);
    expect(sink.liveStorms()[0]!.tips).toBe(45);
    expect(sink.alerts.size).toBe(0);
  });

  it('several tips reported at once after a long silence still count, flagged as uncertain in time', () => {
    const ctx = gaugeCtx(0.01);
    const { sink } = feed(ctx, [
      reading('rg', T0, { rainTips: 10 }),
      reading('rg', T0 + 9 * HOUR, { rainTips: 80 }),
    ]);
    const [storm] = sink.liveStorms();
    expect(storm).toMatchObject({ tips: 70, start: T0 + 9 * HOUR, qualified: true });
    const a = [...sink.alerts.values()][0]!;
    expect(a.evidence.timingUncertain).toMatchObject({ readingAt: new Date(T0 + 9 * HOUR).toISOString() });
    // A single tip after a silence is just a tip.
    const one = feed(ctx, [
      reading('rg', T0, { rainTips: 10 }),
      reading('rg', T0 + 9 * HOUR, { rainTips: 11 }),
    ]).sink;
    expect(one.effects.some((e) => e.type === 'open')).toBe(false);
  });

  it('duplicate readings (same source ts) count once, for counters and for interval rain', () => {
    const ctx = gaugeCtx(0.01);
    const tips = tipsAt(T0, 30);
    const counter = counterReadings(tips);
    const dup = counter.flatMap((r) => [r, r]);
    expect(feed(ctx, dup).sink.liveStorms()[0]!.tips).toBe(30);
    // Interval rain: a duplicate would add rain twice. 30 + 30 would qualify; 30 must not.
    const ins = tips.map((t) => reading('rg', t, { rainIn: 0.01 }));
    const s = feed(
      ctx,
      ins.flatMap((r) => [r, r, r]),
    ).sink;
    expect(s.liveStorms()[0]!.tips).toBe(30);
    expect(s.alerts.size).toBe(0);
    // A duplicate with a different seq but the same ts is still the same reading: the first one wins.
    const other = reading('rg', tips[5]!, { rainIn: 0.2 });
    expect(feed(ctx, [...ins, other]).sink.liveStorms()[0]!.tips).toBe(30);
  });
});

describe('storm-inspection: events', () => {
  const ctx = gaugeCtx(0.01);

  it('a 6 h dry gap splits; a 2 h gap does not; 5 h 59 min does not; exactly 6 h splits', () => {
    const a = tipsAt(T0, 10);
    const last = a[a.length - 1]!;
    const case2h = feed(ctx, counterReadings([...a, ...tipsAt(last + 2 * HOUR, 10)])).sink.liveStorms();
    expect(case2h).toHaveLength(1);
    expect(case2h[0]!.tips).toBe(20);
    const almost = feed(ctx, counterReadings([...a, ...tipsAt(last + 6 * HOUR - MIN, 10)])).sink.liveStorms();
    expect(almost).toHaveLength(1);
    const exact = feed(ctx, counterReadings([...a, ...tipsAt(last + 6 * HOUR, 10)])).sink.liveStorms();
    expect(exact).toHaveLength(2);
    expect(exact.map((s) => s.tips)).toEqual([10, 10]);
    expect(exact[0]!.closed).toBe(true);
    const seven = feed(ctx, counterReadings([...a, ...tipsAt(last + 7 * HOUR, 10)])).sink.liveStorms();
    expect(seven).toHaveLength(2);
  });

  it('a storm raining for three days with no 6 h gap is one event, one alert', () => {
    // A tip every 5 h 30 min, plus bursts: 3 days.
    const times: number[] = [];
    for (let t = T0; t < T0 + 3 * DAY; t += 5.5 * HOUR) times.push(...tipsAt(t, 5, 2 * MIN));
    const { sink } = feed(ctx, counterReadings(times));
    const storms = sink.liveStorms();
    expect(storms).toHaveLength(1);
    expect(storms[0]!.tips).toBe(times.length);
    expect(storms[0]!.end - storms[0]!.start).toBeGreaterThan(2.5 * DAY);
    expect(sink.alerts.size).toBe(1);
  });

  it('a multi-day storm with a 7 h dry gap is two events and two inspections', () => {
    const first: number[] = [];
    for (let t = T0; t < T0 + 2 * DAY; t += 3 * HOUR) first.push(...tipsAt(t, 4, MIN));
    const lastTip = first[first.length - 1]!;
    const second: number[] = [];
    for (let t = lastTip + 7 * HOUR; t < lastTip + 7 * HOUR + 2 * DAY; t += 3 * HOUR)
      second.push(...tipsAt(t, 4, MIN));
    const { sink } = feed(ctx, counterReadings([...first, ...second]));
    const storms = sink.liveStorms();
    expect(storms).toHaveLength(2);
    expect(storms.every((s) => s.qualified)).toBe(true);
    expect(sink.alerts.size).toBe(2);
    expect([...sink.alerts.values()].map((a) => a.status)).toEqual(['open', 'open']);
    expect(storms[0]!.closed).toBe(true);
  });

  it('dueFrom end: the due time moves while it rains and is final once the storm closes', () => {
    const tips = tipsAt(T0, 80, 3 * MIN);
    const inputs = [...counterReadings(tips), tick(tips[79]! + 6 * HOUR)];
    const { sink } = feed(ctx, inputs);
    const alert = [...sink.alerts.values()][0]!;
    expect(alert.at).toBe(tips[49]);
    expect(alert.dueAt).toBe(tips[79]! + 24 * HOUR);
    // One update per tip after the crossing (30), plus one when it closes.
    expect(alert.updates).toBe(31);
    const storm = sink.liveStorms()[0]!;
    expect(storm).toMatchObject({ closed: true, dueAt: tips[79]! + 24 * HOUR, end: tips[79] });
  });

  it('dueFrom threshold: due 24 h after the crossing, fixed while it rains', () => {
    const c = gaugeCtx(0.01, { dueFrom: 'threshold' });
    const tips = tipsAt(T0, 80, 3 * MIN);
    const { sink } = feed(c, [...counterReadings(tips), tick(tips[79]! + 6 * HOUR)]);
    const alert = [...sink.alerts.values()][0]!;
    expect(alert.at).toBe(tips[49]);
    expect(alert.dueAt).toBe(tips[49]! + 24 * HOUR);
    // The alert follows its storm (one update per tip after the crossing, and one when it closes), but
    // none moves the due time.
    expect(alert.updates).toBe(31);
    expect(alert.message).toContain('0.80 in (80 tips)');
    expect(sink.effects.filter((e) => e.type === 'update' && e.dueAt !== tips[49]! + 24 * HOUR)).toHaveLength(
      0,
    );
  });

  it('closes on a later reading or a tick, but a tick does not close while the gauge drains a backlog', () => {
    const tips = tipsAt(T0, 10);
    const last = tips[9]!;
    const base = counterReadings(tips);
    expect(feed(ctx, [...base, tick(last + 6 * HOUR - 1)]).sink.liveStorms()[0]!.closed).toBe(false);
    expect(feed(ctx, [...base, tick(last + 6 * HOUR)]).sink.liveStorms()[0]!.closed).toBe(true);
    // A heartbeat (unchanged counter) 6 h later closes it too.
    expect(
      feed(ctx, [...base, reading('rg', last + 6 * HOUR, { rainTips: 10 })]).sink.liveStorms()[0]!.closed,
    ).toBe(true);
    // The gauge's data arrives 10 h late: a tick 7 h after the last tip (by the wall clock) proves nothing.
    const late = counterReadings(tips).map((r) =>
      r.type === 'reading' ? { ...r, reading: { ...r.reading, receivedAt: r.reading.ts + 10 * HOUR } } : r,
    );
    expect(feed(ctx, [...late, tick(last + 7 * HOUR)]).sink.liveStorms()[0]!.closed).toBe(false);
    expect(feed(ctx, [...late, tick(last + 16 * HOUR)]).sink.liveStorms()[0]!.closed).toBe(true);
  });

  it('a tick-closed storm that a backlog shows kept raining grows again', () => {
    const tips = tipsAt(T0, 10);
    const last = tips[9]!;
    const inputs = [...counterReadings(tips), tick(last + 7 * HOUR)];
    // The backlog: rain 3 h after the "end", which the gateway did not know about.
    inputs.push(reading('rg', last + 3 * HOUR, { rainTips: 15 }, { receivedAt: last + 8 * HOUR }));
    const { sink } = feed(ctx, inputs);
    const storms = sink.liveStorms();
    expect(storms).toHaveLength(1);
    expect(storms[0]).toMatchObject({ tips: 15, end: last + 3 * HOUR, closed: false });
  });

  it('an inspection after the storm resolves the alert (on time or late) once it has ended; one during it does not', () => {
    const tips = tipsAt(T0, 60);
    const insp = (at: number, id: string): RuleInput => ({
      type: 'inspection',
      siteId: 's1',
      at,
      kind: 'storm',
      inspector: 'J. Doe',
      id,
    });
    const ended = tick(tips[59]! + 6 * HOUR);
    const early = feed(ctx, [...counterReadings(tips), insp(tips[10]!, 'i0'), ended]).sink;
    expect([...early.alerts.values()][0]!.status).toBe('open');
    // After the last tip, but the storm may still go on: it waits for the 6 h dry that ends the storm.
    const waiting = feed(ctx, [...counterReadings(tips), insp(tips[59]! + 2 * HOUR, 'i1')]).sink;
    expect([...waiting.alerts.values()][0]!.status).toBe('open');
    expect([...waiting.alerts.values()][0]!.message).toContain('after the last tip');
    const ok = feed(ctx, [...counterReadings(tips), insp(tips[59]! + 2 * HOUR, 'i1'), ended]).sink;
    const a = [...ok.alerts.values()][0]!;
    expect(a.status).toBe('resolved');
    expect(a.resolvedAt).toBe(tips[59]! + 2 * HOUR);
    expect(a.resolution).toMatchObject({ inspectionId: 'i1', onTime: true });
    const late = feed(ctx, [...counterReadings(tips), ended, insp(tips[59]! + 30 * HOUR, 'i2')]).sink;
    expect([...late.alerts.values()][0]!.resolution).toMatchObject({ onTime: false });
    // An annual (septic) report or a cleanout record is not an erosion control inspection.
    const annual = feed(ctx, [
      ...counterReadings(tips),
      { ...insp(tips[59]! + HOUR, 'i3'), kind: 'annual' } as RuleInput,
    ]).sink;
    expect([...annual.alerts.values()][0]!.status).toBe('open');
  });

  it('a storm that arrives days late still opens, in source time, and an inspection already logged covers it', () => {
    const tips = tipsAt(T0, 55);
    const arrive = T0 + 3 * DAY;
    const inputs = counterReadings(tips).map((r) =>
      r.type === 'reading' ? { ...r, reading: { ...r.reading, receivedAt: arrive } } : r,
    );
    const { sink } = feed(ctx, [tick(arrive - HOUR), ...inputs]);
    const a = [...sink.alerts.values()][0]!;
    expect(a).toMatchObject({ status: 'open', at: tips[49], dueAt: tips[54]! + 24 * HOUR });
    expect(a.evidence.crossingReceivedAt).toBe(new Date(arrive).toISOString());
    const covered = feed(ctx, [
      {
        type: 'inspection',
        siteId: 's1',
        at: tips[54]! + 5 * HOUR,
        kind: 'routine',
        inspector: 'x',
        id: 'i1',
      },
      ...inputs,
      tick(arrive + 7 * HOUR),
    ]).sink;
    expect([...covered.alerts.values()][0]).toMatchObject({
      status: 'resolved',
      resolvedAt: tips[54]! + 5 * HOUR,
    });
  });

  it('raises no alerts at an inactive site or a non-construction site, but still records storms', () => {
    const inactive = ctxOf({
      kind: 'construction',
      active: false,
      devices: [{ id: 'rg', kind: 'rain-gauge', inchesPerTip: 0.01 }],
    });
    const s = run(stormEvaluator, inactive, counterReadings(tipsAt(T0, 60)), { deviceId: 'rg' }).sink;
    expect(s.alerts.size).toBe(0);
    expect(s.liveStorms()[0]!.qualified).toBe(true);
  });
});

describe('storm-inspection: late and out-of-order data', () => {
  /** Five days of rain: several storms, a counter reset, heartbeats, a long silence. */
  function scenario(): RuleInput[] {
    const out: RuleInput[] = [];
    let c = 500;
    let t = T0;
    out.push(reading('rg', t, { rainTips: c }));
    const burst = (n: number, every: number) => {
      for (let i = 0; i < n; i++) {
        t += every;
        c += 1 + (i % 3 === 0 ? 1 : 0);
        out.push(reading('rg', t, { rainTips: c }));
      }
    };
    const heartbeat = (hours: number) => {
      for (let h = 0; h < hours; h++) {
        t += 30 * MIN;
        out.push(reading('rg', t, { rainTips: c }));
        t += 30 * MIN;
        out.push(reading('rg', t, { rainTips: c }));
      }
    };
    burst(40, 2 * MIN); // 53 tips: qualifies
    heartbeat(2);
    burst(10, 5 * MIN); // same storm (2 h gap)
    heartbeat(8); // 8 h dry: closes
    burst(20, 3 * MIN); // small storm
    heartbeat(7);
    burst(15, MIN);
    c = 0; // reboot
    t += MIN;
    out.push(reading('rg', t, { rainTips: c }));
    burst(30, MIN); // the storm continues across the reset and qualifies
    heartbeat(10);
    burst(5, 20 * MIN);
    t += 9 * HOUR; // silence, then a jump of the counter
    c += 70;
    out.push(reading('rg', t, { rainTips: c }));
    heartbeat(12);
    return out;
  }

  function summary(sink: Sink) {
    return {
      storms: sink.liveStorms().map(({ id, start, end, tips, qualified, thresholdAt, dueAt, closed }) => ({
        id,
        start,
        end,
        tips,
        qualified,
        thresholdAt,
        dueAt,
        closed,
      })),
      alerts: sink.liveAlerts().map((a) => ({ key: a.key, status: a.status, at: a.at, dueAt: a.dueAt })),
    };
  }

  it('shuffled readings give the same storms and alerts as in-order readings (counter)', () => {
    const ctx = gaugeCtx(0.01);
    const inputs = scenario();
    const expected = summary(feed(ctx, settled(inputs)).sink);
    expect(expected.storms.length).toBeGreaterThanOrEqual(4);
    expect(expected.alerts.length).toBeGreaterThanOrEqual(2);
    for (const seed of [1, 2, 3, 4, 5]) {
      const got = summary(feed(ctx, settled(shuffle(inputs, seed))).sink);
      expect(got).toEqual(expected);
    }
    // Reversed: the worst case.
    expect(summary(feed(ctx, settled([...inputs].reverse())).sink)).toEqual(expected);
  });

  it('shuffled readings give the same storms and alerts as in-order readings (interval rain)', () => {
    const ctx = gaugeCtx(MM02);
    const inputs: RuleInput[] = [];
    let t = T0;
    for (let s = 0; s < 6; s++) {
      for (let i = 0; i < 30 + s * 5; i++) {
        t += 4 * MIN;
        inputs.push(reading('rg', t, { rainIn: 0.0157 + (i % 2) * 0.008 }));
      }
      t += (s % 2 ? 7 : 4) * HOUR;
    }
    const expected = summary(feed(ctx, settled(inputs)).sink);
    for (const seed of [11, 12, 13])
      expect(summary(feed(ctx, settled(shuffle(inputs, seed))).sink)).toEqual(expected);
  });

  it('a late tip that fills a gap merges two storms: the old record is superseded, one alert remains', () => {
    const ctx = gaugeCtx(0.01);
    const a = tipsAt(T0, 30);
    const b = tipsAt(a[29]! + 8 * HOUR, 30);
    // Counter readings with the bridging reading (counter 30 + 5 tips at a[29] + 4 h) delivered last.
    const inputs = counterReadings([...a, ...b.map(() => 0)]).slice(0, 31);
    let c = 35;
    const later = b.map((t) => reading('rg', t, { rainTips: ++c }));
    const bridge = reading('rg', a[29]! + 4 * HOUR, { rainTips: 35 });
    const { sink, state } = feed(ctx, settled([...inputs, ...later, bridge]));
    const storms = sink.liveStorms();
    expect(storms).toHaveLength(1);
    expect(storms[0]).toMatchObject({ tips: 65, start: a[0] });
    const superseded = [...sink.storms.values()].filter((s) => s.supersededBy !== undefined);
    expect(superseded).toHaveLength(1);
    expect(superseded[0]!.supersededBy).toBe(storms[0]!.id);
    expect(sink.liveAlerts()).toHaveLength(1);
    expect(stormEventsOf(state, ctx)).toHaveLength(1);
  });

  it('a reading older than the window is not counted and is tallied as late', () => {
    const ctx = gaugeCtx(0.01);
    const inputs: RuleInput[] = [];
    for (let d = 0; d < 20; d++) inputs.push(reading('rg', T0 + d * DAY, { rainTips: d }));
    const { state, sink } = feed(ctx, [...inputs, reading('rg', T0 + 2 * DAY + HOUR, { rainTips: 100 })]);
    expect(state.late.dropped).toBe(1);
    expect(sink.liveStorms().every((s) => s.tips <= 1)).toBe(true);
  });
});

describe('storm-inspection: a real gauge record (HOBO, Quincemil 2017, 0.2 mm tips)', () => {
  const file = join(RAIN_DIR, 'hobo_quincemil_2017.csv');
  const rows = readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const [when, count] = l.split(',');
      const m = /^(\d\d)\/(\d\d)\/(\d{4}) (\d\d):(\d\d):(\d\d)$/.exec(when!.trim())!;
      const ts = Date.UTC(+m[3]!, +m[1]! - 1, +m[2]!, +m[4]!, +m[5]!, +m[6]!);
      return { ts, count: count?.trim() === '' || count === undefined ? null : Number(count) };
    })
    .filter((r): r is { ts: number; count: number } => r.count !== null);

  /** The independent computation: sorted tip times, split at gaps >= 6 h, qualify at >= 64 tips. */
  function expectedEvents() {
    const sorted = [...rows].sort((a, b) => a.ts - b.ts);
    const tipTimes: number[] = [];
    for (let i = 1; i < sorted.length; i++) {
      const prev = sorted[i - 1]!.count;
      const cur = sorted[i]!.count;
      const n = cur >= prev ? cur - prev : cur;
      for (let k = 0; k < n; k++) tipTimes.push(sorted[i]!.ts);
    }
    const events: Array<{ start: number; end: number; tips: number; thresholdAt?: number }> = [];
    for (const t of tipTimes) {
      const e = events[events.length - 1];
      if (e && t - e.end < 6 * HOUR) {
        e.end = t;
        e.tips++;
      } else events.push({ start: t, end: t, tips: 1 });
      const cur = events[events.length - 1]!;
      if (cur.tips === 64) cur.thresholdAt = t;
    }
    return events;
  }

  it('gives the same events as a simple independent count, and keeps its state bounded', () => {
    const ctx = gaugeCtx(MM02);
    const expected = expectedEvents();
    // 13,911 tips; the last row repeats the count after a download (no tip).
    expect(expected.reduce((n, e) => n + e.tips, 0)).toBe(13_911);
    expect(expected.length).toBe(127);
    expect(expected.filter((e) => e.tips >= 64)).toHaveLength(53);
    let state: StormState = stormEvaluator.init(ctx, 'rg');
    const sink = new Sink();
    let maxWin = 0;
    let maxEvents = 0;
    for (const r of rows) {
      const out = stormEvaluator.evaluate(state, reading('rg', r.ts, { rainTips: r.count }), ctx);
      state = out.state;
      sink.apply(out.effects);
      maxWin = Math.max(maxWin, state.win.size);
      maxEvents = Math.max(maxEvents, state.events.length);
    }
    const got = sink.liveStorms();
    expect(got.map((s) => ({ start: s.start, end: s.end, tips: s.tips }))).toEqual(
      expected.map((e) => ({ start: e.start, end: e.end, tips: e.tips })),
    );
    expect(got.filter((s) => s.qualified).map((s) => s.thresholdAt)).toEqual(
      expected.filter((e) => e.tips >= 64).map((e) => e.thresholdAt),
    );
    const alerts = [...sink.alerts.values()];
    expect(alerts).toHaveLength(53);
    expect(alerts.every((a) => a.status === 'open')).toBe(true);
    // Bounded: 14 days of readings at most, a handful of events; the JSON stays small.
    expect(maxWin).toBeLessThanOrEqual(5000);
    // Events in the window, plus pruned ones whose alert is still open (never inspected here), capped.
    expect(maxEvents).toBeLessThanOrEqual(40 + STORM_MAX_FROZEN);
    expect(JSON.stringify(state).length).toBeLessThan(200_000);
    expect(state.late.dropped).toBe(0);
  });

  it('gives the same events when the record arrives locally out of order (blocks of an hour reversed)', () => {
    const ctx = gaugeCtx(MM02);
    const inOrder = rows.map((r) => reading('rg', r.ts, { rainTips: r.count }));
    // Reverse the order inside each block of readings within the same hour.
    const blocks = new Map<number, RuleInput[]>();
    for (const r of inOrder) {
      const k = Math.floor((r as { reading: { ts: number } }).reading.ts / HOUR);
      blocks.set(k, [...(blocks.get(k) ?? []), r]);
    }
    const shuffled = [...blocks.values()].flatMap((b) => b.reverse());
    const a = feed(ctx, inOrder, undefined, false).sink;
    const b = feed(ctx, shuffled, undefined, false).sink;
    const key = (s: Sink) => s.liveStorms().map((x) => [x.id, x.tips, x.end, x.thresholdAt, x.dueAt]);
    expect(key(b)).toEqual(key(a));
    expect(b.liveAlerts().map((x) => [x.key, x.at, x.dueAt])).toEqual(
      a.liveAlerts().map((x) => [x.key, x.at, x.dueAt]),
    );
  });
});
