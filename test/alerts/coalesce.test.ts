/** Folding an alert's updates within a batch (alerts/coalesce.ts). */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coalesceUpdates } from '../../gateway/src/alerts/coalesce.ts';
import type { RuleWork } from '../../gateway/src/alerts/rules.ts';
import { parseConfig } from '../../gateway/src/config/load.ts';
import type { SiteRule } from '../../gateway/src/rules/index.ts';
import type { Effect } from '../../gateway/src/rules/types.ts';
import { openDatabase } from '../../gateway/src/store/db.ts';
import type { Reading } from '../../shared/src/telemetry.ts';
import { auditAll } from '../helpers/evidence.ts';
import { testConfigInput } from '../helpers/gateway.ts';
import { reading, realEngine, T0, tempDir } from './support.ts';

const ruleA = { id: 'a' } as unknown as SiteRule;
const ruleB = { id: 'b' } as unknown as SiteRule;
type E = Effect<'storm-inspection'>;
const upd = (key: string, at: number, dueAt?: number, evidence?: Record<string, unknown>): E => ({
  type: 'update',
  key,
  at,
  ...(dueAt !== undefined ? { dueAt } : {}),
  message: `m${at}`,
  ...(evidence ? { evidence } : {}),
});
const w = (rule: SiteRule, ...effects: E[]): RuleWork => ({ rule, effects }) as RuleWork;

describe('coalesceUpdates', () => {
  it("folds a binding's updates to one key into the first: the last due time, message and time, the evidence merged", () => {
    const storm: E = { type: 'storm', event: { id: 's1' } as never };
    const out = coalesceUpdates([
      w(ruleA, storm, upd('k', 1, 10, { tips: 1, a: 1 })),
      w(ruleA, upd('other', 2, 5)),
      w(ruleA, storm, upd('k', 3, 12, { tips: 2 })),
      w(ruleA, upd('k', 4, undefined, { b: 2 })),
    ]);
    expect(out).toEqual([
      w(ruleA, storm, {
        type: 'update',
        key: 'k',
        at: 4,
        dueAt: 12,
        message: 'm4',
        evidence: { tips: 2, a: 1, b: 2 },
      }),
      w(ruleA, upd('other', 2, 5)),
      w(ruleA, storm),
    ]);
  });

  it('leaves apart an update that moves the due time earlier, one after another effect on the key, and other bindings', () => {
    const resolve: E = { type: 'resolve', key: 'k', at: 5, message: 'done', evidence: {} };
    const work = [
      w(ruleA, upd('k', 1, 10)),
      w(ruleA, upd('k', 2, 8)),
      w(ruleB, upd('k', 3, 20)),
      w(ruleA, resolve),
      w(ruleA, upd('k', 6, 30)),
    ];
    expect(coalesceUpdates(work)).toEqual(work);
  });

  it('gives a new list and leaves the work it was given as it was', () => {
    const work = [w(ruleA, upd('k', 1, 10)), w(ruleA, upd('k', 2, 11))];
    const copy = structuredClone(work.map((x) => x.effects));
    const out = coalesceUpdates(work);
    expect(out).toHaveLength(1);
    expect(work.map((x) => x.effects)).toEqual(copy);
  });
});

describe('a batch of readings through the engine', () => {
  let tmp: ReturnType<typeof tempDir> | undefined;
  afterEach(() => tmp?.cleanup());

  /** Two storms on two gauges and a sediment trap filling, in batches of `size`; the alerts and storms after. */
  function run(size: number) {
    const db = openDatabase(join(tmp!.dir, `batch-${size}`));
    const engine = realEngine(db, parseConfig(testConfigInput()), () => T0 + 30 * 3_600_000);
    const all: Reading[] = [];
    for (let i = 0; i < 150; i++) {
      // rg-1 rains steadily; rg-2 rains, stops for 7 h (a second storm), rains again.
      const ts = T0 + i * 60_000;
      all.push(reading('maple-ridge', 'rg-1', ts, { rainTips: i }));
      const gap = i < 80 ? 0 : 7 * 3_600_000;
      all.push(reading('maple-ridge', 'rg-2', ts + 1 + gap, { rainTips: 2 * i }));
      all.push(reading('maple-ridge', 'trap-1', ts + 2, { levelIn: 8 + i / 10 }));
    }
    for (let i = 0; i < all.length; i += size) engine.handleReadings(all.slice(i, i + size));
    engine.tick(T0 + 30 * 3_600_000);
    const alerts = engine
      .listAlerts({ siteId: 'maple-ridge' })
      .map((a) => ({
        ...a,
        id: undefined,
        history: a.history.map((h) => h.action).filter((x) => x !== 'updated'),
      }))
      .sort((a, b) => `${a.rule}${a.raisedAt}`.localeCompare(`${b.rule}${b.raisedAt}`));
    const storms = engine.listStorms({ siteId: 'maple-ridge' }).map((x) => [x.id, x.tips, x.start, x.end]);
    const ok = auditAll(db).problems.length === 0;
    db.close();
    return { alerts, storms, ok };
  }

  it('leaves the same alerts and storms whether the readings come one at a time or 200 at once', () => {
    tmp = tempDir();
    const one = run(1);
    const many = run(200);
    expect(one.alerts.filter((a) => a.rule === 'storm-inspection').length).toBeGreaterThanOrEqual(2);
    expect(many.alerts).toEqual(one.alerts);
    expect(many.storms).toEqual(one.storms);
    expect(one.ok && many.ok).toBe(true);
  });
});
