import { describe, expect, it } from 'vitest';
import {
  fractionFilled,
  sedimentEvaluator,
  stageVolume,
} from '../../../gateway/src/rules/sediment-cleanout/evaluator.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { ctxOf, HOUR, reading, run, type SiteContext, T0 } from '../helpers.ts';

const depthCtx: SiteContext = ctxOf({
  kind: 'construction',
  devices: [{ id: 'trap', kind: 'sediment-trap', designDepthIn: 24 }],
});
// A trap with sloped walls: the top of the design depth holds most of the volume.
const table: Array<[number, number]> = [
  [0, 0],
  [6, 100],
  [12, 300],
  [18, 600],
  [24, 1000],
];
const tableCtx: SiteContext = ctxOf({
  kind: 'construction',
  devices: [{ id: 'trap', kind: 'sediment-trap', stageStorage: table }],
});

const sed = (ts: number, sedimentIn: number): RuleInput =>
  reading('trap', ts, { sedimentIn }, { deviceKind: 'sediment-trap' });

function feed(ctx: SiteContext, inputs: RuleInput[]) {
  return run(sedimentEvaluator, ctx, inputs, { deviceId: 'trap', checkPurity: true });
}

describe('sediment-cleanout', () => {
  it('opens at 50% of the design depth, not below', () => {
    expect(feed(depthCtx, [sed(T0, 11.9)]).sink.alerts.size).toBe(0);
    const { sink } = feed(depthCtx, [sed(T0, 11.9), sed(T0 + HOUR, 12)]);
    const a = [...sink.alerts.values()];
    expect(a).toHaveLength(1);
    expect(a[0]).toMatchObject({
      key: `sediment-cleanout:s1:trap:${T0 + HOUR}`,
      at: T0 + HOUR,
      dueAt: undefined,
    });
    expect(a[0]!.evidence).toMatchObject({ fraction: 0.5, depthIn: 12 });
  });

  it('fires once: 100 readings above the threshold are one open, updated only as the fill grows', () => {
    const inputs = Array.from({ length: 100 }, (_, i) => sed(T0 + i * HOUR, 12.5 + (i % 5) * 0.1));
    const { sink } = feed(depthCtx, inputs);
    expect(sink.count('open')).toBe(1);
    expect(sink.alerts.size).toBe(1);
    expect(sink.count('update')).toBe(0);
    const growing = feed(
      depthCtx,
      Array.from({ length: 100 }, (_, i) => sed(T0 + i * HOUR, 12 + i * 0.1)),
    ).sink;
    expect(growing.count('open')).toBe(1);
    // From 50% to 91%: an update every 5 points, not every reading.
    expect(growing.count('update')).toBeLessThanOrEqual(9);
  });

  it('a large drop in depth below the threshold is a cleanout: resolved with before and after', () => {
    const inputs = [
      sed(T0, 10),
      sed(T0 + HOUR, 13),
      sed(T0 + 2 * HOUR, 15),
      sed(T0 + 3 * HOUR, 11),
      sed(T0 + 4 * HOUR, 2),
    ];
    const { sink } = feed(depthCtx, inputs);
    const a = [...sink.alerts.values()][0]!;
    expect(a.status).toBe('resolved');
    expect(a.resolvedAt).toBe(T0 + 4 * HOUR);
    expect(a.resolution).toMatchObject({
      cleanout: true,
      peak: { depthIn: 15, at: new Date(T0 + 2 * HOUR).toISOString() },
      before: { depthIn: 11, at: new Date(T0 + 3 * HOUR).toISOString() },
      after: { depthIn: 2, at: new Date(T0 + 4 * HOUR).toISOString() },
    });
  });

  it('a wobble around the threshold is not a cleanout; a refill after a cleanout is a new alert', () => {
    const wobble = feed(depthCtx, [sed(T0, 12.2), sed(T0 + HOUR, 11.8), sed(T0 + 2 * HOUR, 12.1)]).sink;
    expect(wobble.count('open')).toBe(1);
    expect(wobble.count('resolve')).toBe(0);
    const refill = feed(depthCtx, [
      sed(T0, 14),
      sed(T0 + HOUR, 3),
      sed(T0 + 10 * HOUR, 8),
      sed(T0 + 20 * HOUR, 12.5),
      sed(T0 + 21 * HOUR, 13),
    ]).sink;
    expect(refill.count('open')).toBe(2);
    expect([...refill.alerts.values()].map((a) => a.status)).toEqual(['resolved', 'open']);
  });

  it('with a stage-storage table, 50% means half the design VOLUME, not half the depth', () => {
    expect(stageVolume(table, 15)).toBe(450);
    expect(fractionFilled(tableCtx.site.devices[0]!, 12)).toBe(0.3);
    // Half the design volume (500 of 1000) lies between 12 in (300) and 18 in (600): at 16 in.
    expect(fractionFilled(tableCtx.site.devices[0]!, 16)).toBeCloseTo(0.5, 12);
    // At half the depth (12 in) the trap holds only 30% of its volume: no alert yet.
    expect(feed(tableCtx, [sed(T0, 12)]).sink.alerts.size).toBe(0);
    expect(feed(tableCtx, [sed(T0, 15.9)]).sink.alerts.size).toBe(0);
    const { sink } = feed(tableCtx, [sed(T0, 12), sed(T0 + HOUR, 16)]);
    const a = [...sink.alerts.values()][0]!;
    expect(a.at).toBe(T0 + HOUR);
    expect(a.evidence).toMatchObject({ stageStorage: true, fraction: 0.5 });
  });

  it('ignores a reading older than the newest one (a level is a state)', () => {
    const { sink, state } = feed(depthCtx, [sed(T0 + HOUR, 5), sed(T0, 20)]);
    expect(sink.alerts.size).toBe(0);
    expect(state.lateIgnored).toBe(1);
  });

  it('after a person closes the alert, a new one needs the trap to go below the threshold first', () => {
    const key = `sediment-cleanout:s1:trap:${T0}`;
    const { sink } = feed(depthCtx, [
      sed(T0, 13),
      { type: 'alert-closed', key, at: T0 + HOUR, how: 'manual' },
      sed(T0 + 2 * HOUR, 13),
      sed(T0 + 3 * HOUR, 4),
      sed(T0 + 4 * HOUR, 12.5),
    ]);
    expect(sink.count('open')).toBe(2);
    expect([...sink.alerts.keys()][1]).toBe(`sediment-cleanout:s1:trap:${T0 + 4 * HOUR}`);
  });
});
