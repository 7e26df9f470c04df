/**
 * The storm rule's state of release 0.1.0 (version 1: the window a list of readings) carries on after the
 * upgrade to version 2: the same inputs give the effects the release's own derivation gives from it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../gateway/src/config/load.ts';
import { ruleContext } from '../../../gateway/src/rules/index.ts';
import { stormEvaluator, stormEventsOf } from '../../../gateway/src/rules/storm-inspection/evaluator.ts';
import { stormInspection } from '../../../gateway/src/rules/storm-inspection/index.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { testConfigInput } from '../../helpers/gateway.ts';
import { HOUR, MIN, reading } from '../helpers.ts';
import * as ref from './reference.ts';

const DUMP = join(import.meta.dirname, '../../fixtures/store/release-0.1.0.sql');

function storedState(): unknown {
  const db = new Database(':memory:');
  db.exec(readFileSync(DUMP, 'utf8'));
  const row = db
    .prepare(`SELECT state FROM rule_state WHERE rule = 'storm-inspection' AND device_id = 'rg-1'`)
    .get() as { state: string };
  db.close();
  return JSON.parse(row.state);
}

describe('storm-inspection: a state stored by release 0.1.0', () => {
  it('is upgraded and carries on: the same effects as the release derives from it', () => {
    const v1 = storedState() as ref.StormState;
    expect((v1 as unknown as { v: number }).v).toBe(1);
    const site = parseConfig(testConfigInput()).sites.find((s) => s.id === 'maple-ridge')!;
    const ctx = ruleContext(site, 'America/New_York');
    const upgraded = stormInspection.state.upgrade(structuredClone(v1), 1, ctx, 'rg-1');
    expect(upgraded.v).toBe(stormInspection.state.version);
    expect(stormEventsOf(upgraded, ctx)).toEqual(ref.stormEventsOf(v1, ctx));
    // The stored storm goes on raining, then a second storm, a late reading inside the first, and time.
    const last = v1.newestTs!;
    const late = (ts: number, rainTips: number) =>
      reading('rg-1', ts, { rainTips }, { siteId: 'maple-ridge', receivedAt: last + 12 * HOUR });
    const inputs: RuleInput[] = [];
    for (let i = 1; i <= 10; i++) inputs.push(late(last + i * MIN, 60 + i));
    inputs.push({ type: 'tick', now: last + 12 * HOUR });
    for (let i = 1; i <= 60; i++) inputs.push(late(last + 8 * HOUR + i * MIN, 70 + i));
    inputs.push(late(v1.win[30]![0] + 1000, v1.win[30]![2]));
    inputs.push({ type: 'tick', now: last + 40 * HOUR });
    let a = v1;
    let b = upgraded;
    for (const input of inputs) {
      const ra = ref.referenceStormEvaluator.evaluate(a, input, ctx);
      const rb = stormEvaluator.evaluate(b, input, ctx);
      expect(rb.effects).toEqual(ra.effects);
      a = ra.state;
      b = JSON.parse(JSON.stringify(rb.state));
    }
    expect(stormEventsOf(b, ctx).map((s) => [s.tips, s.qualified])).toEqual([
      [70, true],
      [60, true],
    ]);
  });
});
