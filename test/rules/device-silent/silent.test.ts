import { describe, expect, it } from 'vitest';
import { defaultSilentMinutes, silentEvaluator } from '../../../gateway/src/rules/device-silent/evaluator.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { ctxOf, HOUR, MIN, reading, run, type SiteContext, T0, tick } from '../helpers.ts';

const ctx: SiteContext = ctxOf({
  kind: 'construction',
  devices: [
    { id: 'rg', kind: 'rain-gauge', inchesPerTip: 0.01 },
    { id: 'trap', kind: 'sediment-trap', designDepthIn: 24, silentAfterMinutes: 30 },
  ],
});
const hb = (ts: number, receivedAt = ts): RuleInput => reading('rg', ts, { batteryV: 12.5 }, { receivedAt });

function feed(inputs: RuleInput[], deviceId = 'rg') {
  return run(silentEvaluator, ctx, inputs, { deviceId, checkPurity: true });
}

describe('device-silent', () => {
  it('defaults: rain gauges 60 min, others 120 min, or the device setting', () => {
    expect(defaultSilentMinutes('rain-gauge')).toBe(60);
    expect(defaultSilentMinutes('septic-panel')).toBe(120);
    const { sink } = feed([reading('trap', T0, { sedimentIn: 3 }), tick(T0 + 31 * MIN)], 'trap');
    expect(sink.count('open')).toBe(1);
  });

  it('opens "no evidence since" the last reading once silent for the limit, once; the next reading resolves it with the gap', () => {
    const { sink } = feed([
      hb(T0),
      tick(T0 + 59 * MIN),
      tick(T0 + 60 * MIN),
      tick(T0 + 2 * HOUR),
      hb(T0 + 3 * HOUR),
    ]);
    expect(sink.count('open')).toBe(1);
    const a = [...sink.alerts.values()][0]!;
    expect(a).toMatchObject({
      key: `device-silent:s1:rg:${T0}`,
      at: T0,
      status: 'resolved',
      resolvedAt: T0 + 3 * HOUR,
    });
    expect(a.resolution).toMatchObject({
      gap: { from: new Date(T0).toISOString(), to: new Date(T0 + 3 * HOUR).toISOString() },
      gapMinutes: 180,
      backfilled: false,
    });
  });

  it('a buffered backlog (old source times arriving now) opens no false silence', () => {
    // Source times stop at T0; the device then sends a backlog that arrives from T0 + 3 h on.
    const inputs = [
      hb(T0),
      hb(T0 + 5 * MIN, T0 + 3 * HOUR),
      tick(T0 + 3 * HOUR + MIN),
      hb(T0 + 10 * MIN, T0 + 3 * HOUR + 2 * MIN),
      tick(T0 + 3 * HOUR + 30 * MIN),
    ];
    expect(feed(inputs).sink.alerts.size).toBe(0);
  });

  it('a silence filled later by a backlog closes with only the evidence really missing; older data does not close it', () => {
    const inputs = [
      hb(T0),
      tick(T0 + 2 * HOUR), // opens: no evidence since T0
      hb(T0 - 10 * MIN, T0 + 2 * HOUR + MIN), // late data from BEFORE the gap: says nothing about it
      tick(T0 + 2 * HOUR + 2 * MIN),
    ];
    const open = feed(inputs).sink;
    expect([...open.alerts.values()][0]!.status).toBe('open');
    const { sink } = feed([
      ...inputs,
      hb(T0 + 5 * MIN, T0 + 2 * HOUR + 3 * MIN),
      hb(T0 + 10 * MIN, T0 + 2 * HOUR + 3 * MIN),
    ]);
    const a = [...sink.alerts.values()][0]!;
    expect(a).toMatchObject({ status: 'resolved', resolvedAt: T0 + 5 * MIN });
    expect(a.resolution).toMatchObject({ gapMinutes: 5, backfilled: true });
    expect(sink.count('open')).toBe(1);
  });

  it('a device never heard from is silent relative to the first tick', () => {
    const { sink } = feed([tick(T0), tick(T0 + 30 * MIN), tick(T0 + HOUR)]);
    expect([...sink.alerts.values()][0]).toMatchObject({ at: T0, status: 'open' });
  });

  it('a gap seen only in the data (the gateway was down: no tick) is recorded at once', () => {
    const { sink } = feed([hb(T0), hb(T0 + 4 * HOUR)]);
    const a = [...sink.alerts.values()][0]!;
    expect(a).toMatchObject({ at: T0, status: 'resolved', resolvedAt: T0 + 4 * HOUR });
  });

  it('a person closing it silences the rule until the device sends again', () => {
    const key = `device-silent:s1:rg:${T0}`;
    const { sink } = feed([
      hb(T0),
      tick(T0 + 2 * HOUR),
      { type: 'alert-closed', key, at: T0 + 3 * HOUR, how: 'manual' },
      tick(T0 + 10 * HOUR),
      hb(T0 + 11 * HOUR),
      tick(T0 + 13 * HOUR),
    ]);
    expect(sink.count('open')).toBe(2);
  });
});
