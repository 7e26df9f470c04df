import { describe, expect, it } from 'vitest';
import { alarmEvaluator } from '../../../gateway/src/rules/remedy/evaluator.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { ctxOf, DAY, reading, run, type SiteContext, shuffle, T0, tick } from '../helpers.ts';

const S = 1000;
// T0 is 2026-04-01 08:00 EDT: 5 days end with April 6, 30 days with May 1 (the last day whole).
const DUE_5 = Date.parse('2026-04-07T00:00:00-04:00') - 1;
const DUE_30 = Date.parse('2026-05-02T00:00:00-04:00') - 1;
const ctx: SiteContext = ctxOf({
  kind: 'alternative-system',
  devices: [{ id: 'panel', kind: 'septic-panel', liquidDepthIn: 60 }],
});

function alarm(ts: number, alarms: Record<string, boolean>, receivedAt = ts): RuleInput {
  return reading('panel', ts, {}, { deviceKind: 'septic-panel', alarms, receivedAt });
}

function feed(inputs: RuleInput[]) {
  return run(alarmEvaluator, ctx, inputs, { deviceId: 'panel', checkPurity: true });
}

describe('equipment-remedy / field-remedy: debounce', () => {
  it('a float bouncing true/false every 10 s for 5 minutes raises nothing', () => {
    const inputs: RuleInput[] = [];
    for (let i = 0; i < 30; i++) inputs.push(alarm(T0 + i * 10 * S, { highWater: i % 2 === 0 }));
    inputs.push(alarm(T0 + 300 * S, { highWater: false }), tick(T0 + 400 * S));
    const { sink } = feed(inputs);
    expect(sink.effects).toHaveLength(0);
  });

  it('true for 61 s raises one alert, at = the first true, due 5 days later', () => {
    const inputs: RuleInput[] = [];
    for (let s = 0; s <= 60; s += 10) inputs.push(alarm(T0 + s * S, { pump: true }));
    inputs.push(alarm(T0 + 61 * S, { pump: true }));
    const { sink } = feed(inputs);
    const alerts = [...sink.alerts.values()];
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      key: `equipment-remedy:s1:panel:pump:${T0}`,
      rule: 'equipment-remedy',
      status: 'open',
      at: T0,
      dueAt: DUE_5,
    });
  });

  it('true for 59 s followed by false raises nothing; a bounce before a held run does not move the begin', () => {
    const short = feed([alarm(T0, { pump: true }), alarm(T0 + 59 * S, { pump: false })]).sink;
    expect(short.alerts.size).toBe(0);
    const inputs = [
      alarm(T0, { blower: true }),
      alarm(T0 + 5 * S, { blower: false }),
      alarm(T0 + 20 * S, { blower: true }),
      alarm(T0 + 90 * S, { blower: true }),
    ];
    const a = [...feed(inputs).sink.alerts.values()];
    expect(a).toHaveLength(1);
    expect(a[0]!.at).toBe(T0 + 20 * S);
  });

  it('a device that reports only on change: true then false 5 min later is a 5-minute alarm', () => {
    const { sink } = feed([
      alarm(T0, { panel: true }),
      alarm(T0 + 300 * S, { panel: false }),
      alarm(T0 + 400 * S, { panel: false }),
    ]);
    const a = [...sink.alerts.values()][0]!;
    expect(a).toMatchObject({ at: T0, status: 'resolved', resolvedAt: T0 + 300 * S });
  });

  it('a tick confirms a single true reading once the hold has passed; a late backlog does not', () => {
    const once = feed([alarm(T0, { pump: true }), tick(T0 + 30 * S)]).sink;
    expect(once.alerts.size).toBe(0);
    const held = feed([alarm(T0, { pump: true }), tick(T0 + 61 * S)]).sink;
    expect([...held.alerts.values()][0]).toMatchObject({ at: T0, dueAt: DUE_5 });
    // The same true reading arrives 1 h late (a backlog): 30 s after it arrived, a tick cannot know
    // whether a 'false' is still in the backlog, although the wall clock is an hour past the reading.
    const late = feed([alarm(T0, { pump: true }, T0 + 3600 * S), tick(T0 + 3630 * S)]).sink;
    expect(late.alerts.size).toBe(0);
    const later = feed([alarm(T0, { pump: true }, T0 + 3600 * S), tick(T0 + 3661 * S)]).sink;
    expect(later.alerts.size).toBe(1);
  });

  it('a tick-confirmed alarm that late data shows was a bounce is withdrawn', () => {
    const { sink } = feed([
      alarm(T0, { pump: true }),
      tick(T0 + 120 * S),
      alarm(T0 + 10 * S, { pump: false }),
    ]);
    const a = [...sink.alerts.values()][0]!;
    expect(a.status).toBe('resolved');
    expect(a.resolution).toMatchObject({ withdrawn: true });
    expect(sink.liveAlerts()).toHaveLength(0);
  });
});

describe('equipment-remedy / field-remedy: remedy', () => {
  it('resolves once normal has held, with began, remedied and whether within the deadline', () => {
    const inputs = [
      alarm(T0, { pump: true }),
      alarm(T0 + 120 * S, { pump: true }),
      alarm(T0 + 2 * DAY, { pump: false }),
      alarm(T0 + 2 * DAY + 30 * S, { pump: true }), // a bounce while it is being fixed
      alarm(T0 + 2 * DAY + 40 * S, { pump: false }),
      alarm(T0 + 2 * DAY + 100 * S, { pump: false }),
    ];
    const { sink } = feed(inputs);
    expect(sink.alerts.size).toBe(1);
    const a = [...sink.alerts.values()][0]!;
    expect(a.status).toBe('resolved');
    expect(a.resolvedAt).toBe(T0 + 2 * DAY + 40 * S);
    expect(a.resolution).toMatchObject({
      input: 'pump',
      began: new Date(T0).toISOString(),
      remedied: new Date(T0 + 2 * DAY + 40 * S).toISOString(),
      withinDeadline: true,
    });
  });

  it('an absorption-field alarm has 30 days; remedied after 31 is not within the deadline', () => {
    const inputs = [
      alarm(T0, { field: true }),
      alarm(T0 + 61 * S, { field: true }),
      alarm(T0 + 31 * DAY, { field: false }),
      tick(T0 + 31 * DAY + 61 * S),
    ];
    const { sink } = feed(inputs);
    const a = [...sink.alerts.values()][0]!;
    expect(a).toMatchObject({ rule: 'field-remedy', dueAt: DUE_30, status: 'resolved' });
    expect(a.resolution).toMatchObject({ withinDeadline: false });
  });

  it('one alert per input per episode; a new episode after a remedy is a new alert', () => {
    const inputs: RuleInput[] = [];
    for (let i = 0; i < 100; i++) inputs.push(alarm(T0 + i * 30 * S, { highWater: true, pump: i > 50 }));
    inputs.push(alarm(T0 + 101 * 30 * S, { highWater: false, pump: false }));
    inputs.push(alarm(T0 + 105 * 30 * S, { highWater: false, pump: false }));
    inputs.push(alarm(T0 + 200 * 30 * S, { highWater: true }));
    inputs.push(alarm(T0 + 203 * 30 * S, { highWater: true }));
    const { sink } = feed(inputs);
    const keys = [...sink.alerts.keys()].sort();
    expect(keys).toEqual(
      [
        `equipment-remedy:s1:panel:highWater:${T0}`,
        `equipment-remedy:s1:panel:highWater:${T0 + 200 * 30 * S}`,
        `equipment-remedy:s1:panel:pump:${T0 + 51 * 30 * S}`,
      ].sort(),
    );
    expect(sink.count('open')).toBe(3);
  });

  it('a person closing the alert silences that episode', () => {
    const key = `equipment-remedy:s1:panel:pump:${T0}`;
    const { sink } = feed([
      alarm(T0, { pump: true }),
      alarm(T0 + 61 * S, { pump: true }),
      { type: 'alert-closed', key, at: T0 + DAY, how: 'manual' },
      alarm(T0 + 2 * DAY, { pump: true }),
      alarm(T0 + 3 * DAY, { pump: false }),
      alarm(T0 + 3 * DAY + 61 * S, { pump: false }),
    ]);
    expect(sink.count('open')).toBe(1);
    expect(sink.count('resolve')).toBe(0);
  });

  it('readings in any order give the same episodes; reordering within the hold gives the same alerts', () => {
    const inputs: RuleInput[] = [];
    let t = T0;
    for (let k = 0; k < 6; k++) {
      for (let i = 0; i < 12; i++) {
        t += 10 * S;
        inputs.push(alarm(t, { pump: i % 3 !== 0 || k % 2 === 0, field: k > 2 }));
      }
      t += 2 * 3600 * S;
      inputs.push(alarm(t, { pump: false, field: k % 2 === 1 }));
      t += 120 * S;
      inputs.push(alarm(t, { pump: false, field: k % 2 === 1 }));
    }
    const episodes = (inp: RuleInput[]) => {
      const { state } = feed(inp);
      return Object.fromEntries(
        Object.entries(state.inputs).map(([k, v]) => [k, v!.episodes.map((e) => [e.began, e.remedied])]),
      );
    };
    const expected = episodes(inputs);
    expect(expected.pump!.length).toBeGreaterThan(1);
    for (const seed of [1, 2, 3]) expect(episodes(shuffle(inputs, seed))).toEqual(expected);
    // Swapping neighbours (a message overtaking another) changes no alert.
    const alerts = (inp: RuleInput[]) =>
      feed(inp)
        .sink.liveAlerts()
        .map((a) => [a.key, a.status, a.at, a.dueAt, a.resolvedAt]);
    const swapped = [...inputs];
    for (let i = 0; i + 1 < swapped.length; i += 2)
      [swapped[i], swapped[i + 1]] = [swapped[i + 1]!, swapped[i]!];
    expect(alerts(swapped)).toEqual(alerts(inputs));
  });

  it('keeps its state bounded over weeks of chatter', () => {
    const inputs: RuleInput[] = [];
    for (let i = 0; i < 6000; i++)
      inputs.push(alarm(T0 + i * 10 * 60 * S, { pump: i % 7 === 0, blower: false }));
    const { state } = run(alarmEvaluator, ctx, inputs, { deviceId: 'panel', json: false });
    expect(state.inputs.pump!.track.samples.length).toBeLessThanOrEqual(3000);
    // A true sample followed by a false 10 min later is a 10-minute alarm (report-on-change semantics):
    // an episode every 70 min, kept while inside the 7-day window.
    expect(state.inputs.pump!.episodes.length).toBeLessThanOrEqual(7 * 24 + 1);
    expect(JSON.stringify(state).length).toBeLessThan(200_000);
  });
});
