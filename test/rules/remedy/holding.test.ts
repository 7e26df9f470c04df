/**
 * Holding tanks are advanced systems (law 000, 5.030 B 1 b): a holding tank's high-water alarm is an
 * equipment fault with its 5-day remedy, and a holding-tank site has the engineer's annual inspection.
 */
import { describe, expect, it } from 'vitest';
import { annualInspection } from '../../../gateway/src/rules/annual-inspection/index.ts';
import { evaluatorsFor } from '../../../gateway/src/rules/binding.ts';
import { alarmEvaluator } from '../../../gateway/src/rules/remedy/evaluator.ts';
import { remedy } from '../../../gateway/src/rules/remedy/index.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { ctxOf, reading, run, type SiteContext, T0, tick } from '../helpers.ts';

const S = 1000;
const ctx: SiteContext = ctxOf({
  kind: 'holding-tank',
  devices: [{ id: 'vault', kind: 'holding-tank', highLevelIn: 48 }],
});
const float = (ts: number, on: boolean): RuleInput =>
  reading('vault', ts, {}, { deviceKind: 'holding-tank', alarms: { highWater: on } });

describe('holding tanks', () => {
  it("a holding tank's high-water alarm held opens the 5-day equipment remedy, besides its pump-out alert", () => {
    const names = evaluatorsFor(ctx.site as never).map(
      (b) => `${b.name}${b.deviceId ? `:${b.deviceId}` : ''}`,
    );
    expect(names).toEqual(
      expect.arrayContaining([
        'remedy:vault',
        'holding-tank-pumpout:vault',
        'annual-inspection',
        'deficiency-remedy',
      ]),
    );
    const { sink } = run(
      alarmEvaluator,
      ctx,
      [float(T0, true), float(T0 + 30 * S, true), tick(T0 + 90 * S)],
      {
        deviceId: 'vault',
        checkPurity: true,
      },
    );
    const alerts = [...sink.alerts.values()];
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      key: `equipment-remedy:s1:vault:highWater:${T0}`,
      rule: 'equipment-remedy',
      status: 'open',
      at: T0,
    });
    expect(alerts[0]!.dueAt).toBeGreaterThan(T0 + 5 * 86_400_000 - 1);
  });

  it('the float back to normal remedies it', () => {
    const { sink } = run(
      alarmEvaluator,
      ctx,
      [float(T0, true), tick(T0 + 90 * S), float(T0 + 3600 * S, false), tick(T0 + 3700 * S)],
      { deviceId: 'vault' },
    );
    expect([...sink.alerts.values()][0]).toMatchObject({ status: 'resolved' });
  });

  it('binds where the law puts it: holding tanks and alternative systems, not a conventional septic site', () => {
    const binds = remedy.binds;
    if (!('perDevice' in binds)) throw new Error('per device');
    const site = (kind: string) => ctxOf({ kind, devices: [] }).site as never;
    const dev = (kind: string) => ({ id: 'd', kind }) as never;
    expect(binds.perDevice(dev('holding-tank'), site('holding-tank'))).toBe(true);
    expect(binds.perDevice(dev('holding-tank'), site('alternative-system'))).toBe(true);
    expect(binds.perDevice(dev('septic-panel'), site('alternative-system'))).toBe(true);
    expect(binds.perDevice(dev('septic-panel'), site('holding-tank'))).toBe(false);
    expect(binds.perDevice(dev('septic-tank'), site('septic'))).toBe(false);
    expect(binds.perDevice(dev('holding-tank'), site('septic'))).toBe(false);
  });

  it("a holding-tank site has the engineer's annual inspection duty", () => {
    const binds = annualInspection.binds;
    if (!('perSite' in binds)) throw new Error('per site');
    expect(binds.perSite(ctx.site as never)).toEqual({ devices: [] });
    expect(binds.perSite(ctxOf({ kind: 'septic', devices: [] }).site as never)).toBeUndefined();
    const { sink } = run(annualInspection.evaluator, ctx, [tick(Date.parse('2026-09-15T12:00:00Z'))]);
    const [a] = [...sink.alerts.values()];
    expect(a).toMatchObject({ rule: 'annual-inspection', status: 'open' });
  });
});
