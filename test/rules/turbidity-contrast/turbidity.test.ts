import { describe, expect, it } from 'vitest';
import { turbidityEvaluator } from '../../../gateway/src/rules/turbidity-contrast/evaluator.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { ctxOf, MIN, reading, run, type SiteContext, T0, tick } from '../helpers.ts';

const ctx: SiteContext = ctxOf({
  kind: 'construction',
  turbidity: { marginNtu: 50 },
  devices: [
    { id: 'up', kind: 'turbidity', role: 'background' },
    { id: 'out', kind: 'turbidity', role: 'outlet' },
  ],
});
const ntu = (deviceId: string, ts: number, turbidityNtu: number): RuleInput =>
  reading(deviceId, ts, { turbidityNtu }, { deviceKind: 'turbidity' });

function feed(inputs: RuleInput[]) {
  return run(turbidityEvaluator, ctx, inputs, { checkPurity: true });
}

describe('turbidity-contrast', () => {
  it('opens once per episode when outlet - background > margin, and says it is a surrogate', () => {
    const inputs: RuleInput[] = [];
    for (let i = 0; i < 20; i++) {
      inputs.push(ntu('up', T0 + i * 5 * MIN, 10));
      inputs.push(ntu('out', T0 + i * 5 * MIN + MIN, i < 2 ? 55 : 80 + (i % 3)));
    }
    const { sink } = feed(inputs);
    expect(sink.count('open')).toBe(1);
    const a = [...sink.alerts.values()][0]!;
    expect(a).toMatchObject({
      key: `turbidity-contrast:s1:out:${T0 + 10 * MIN + MIN}`,
      at: T0 + 11 * MIN,
      status: 'open',
    });
    expect(a.message).toMatch(/surrogate, not the legal test/);
    expect(a.evidence).toMatchObject({ outletNtu: 82, backgroundNtu: 10, contrastNtu: 72, surrogate: true });
  });

  it('resolves when the contrast has stayed within the margin for 30 min (not on one good reading)', () => {
    const inputs = [ntu('up', T0, 10), ntu('out', T0 + MIN, 100)];
    for (let m = 5; m <= 60; m += 5)
      inputs.push(ntu('up', T0 + m * MIN, 10), ntu('out', T0 + m * MIN + MIN, m === 20 ? 90 : 30));
    const { sink } = feed(inputs);
    const a = [...sink.alerts.values()][0]!;
    expect(a.status).toBe('resolved');
    // Normal from 6 min, but 21 min was above again: normal since 26 min, held 30 min at 56 min.
    expect(a.resolvedAt).toBe(T0 + 26 * MIN);
  });

  it('no recent background: no comparison, no alert; a background arriving a little later is used', () => {
    expect(feed([ntu('out', T0, 500)]).sink.alerts.size).toBe(0);
    expect(feed([ntu('up', T0, 10), ntu('out', T0 + 45 * MIN, 500)]).sink.alerts.size).toBe(0);
    const late = feed([ntu('out', T0, 500), ntu('up', T0 + 10 * MIN, 10)]).sink;
    expect([...late.alerts.values()][0]).toMatchObject({ at: T0 });
  });

  it('a tick confirms the return to normal when the outlet goes quiet', () => {
    const { sink } = feed([
      ntu('up', T0, 10),
      ntu('out', T0, 100),
      ntu('out', T0 + 5 * MIN, 20),
      tick(T0 + 40 * MIN),
    ]);
    expect([...sink.alerts.values()][0]).toMatchObject({ status: 'resolved', resolvedAt: T0 + 5 * MIN });
  });
});
