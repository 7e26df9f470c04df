/**
 * The rules' stored states (alerts/ruleStates.ts): an older version is upgraded when loaded, a newer one
 * is refused, and the states a release-0.1.0 store holds carry on under their keys.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { JSON_CACHED_MAX, RuleStates, type StagedStates } from '../../gateway/src/alerts/ruleStates.ts';
import { RuleStateStore } from '../../gateway/src/alerts/stores/ruleState.ts';
import { parseConfig } from '../../gateway/src/config/load.ts';
import { Registry } from '../../gateway/src/metrics.ts';
import { bindRule, type RuleId, ruleContext } from '../../gateway/src/rules/index.ts';
import { firstVersion } from '../../gateway/src/rules/state.ts';
import type { Evaluator } from '../../gateway/src/rules/types.ts';
import { openDatabase } from '../../gateway/src/store/db.ts';
import { testConfigInput } from '../helpers/gateway.ts';
import { type Harness, makeEngine, reading, realEngine, T0, tempDir } from './support.ts';

const RELEASE_DUMP = join(import.meta.dirname, '../fixtures/store/release-0.1.0.sql');

let tmp: ReturnType<typeof tempDir> | undefined;
let h: Harness | undefined;
afterEach(() => {
  if (h?.db.open) h.db.close();
  tmp?.cleanup();
  h = undefined;
  tmp = undefined;
});

interface V2 {
  v: 2;
  count: number;
}

/** A rule whose state is at version 2: `{ v: 2, count }`; version 1 was `{ n }`. */
function versioned(upgrades: unknown[]) {
  const evaluator: Evaluator<V2> = {
    rule: 'device-silent',
    init: () => ({ v: 2, count: 0 }),
    evaluate: (s, input) =>
      input.type === 'reading'
        ? { state: { v: 2, count: s.count + 1 }, effects: [] }
        : { state: s, effects: [] },
  };
  const state = {
    version: 2,
    upgrade(old: unknown, from: number): V2 {
      upgrades.push({ old, from });
      return { v: 2, count: (old as { n: number }).n };
    },
  };
  return { evaluator: evaluator as Evaluator<unknown>, deviceId: 'panel-1', state };
}

const saveState = (db: Database.Database, state: unknown) =>
  db
    .prepare(`INSERT INTO rule_state (site_id, rule, device_id, state, updated_at) VALUES (?, ?, ?, ?, ?)`)
    .run('site-a', 'device-silent', 'panel-1', JSON.stringify(state), T0);
const storedState = (db: Database.Database) =>
  JSON.parse(
    (db.prepare(`SELECT state FROM rule_state WHERE site_id = 'site-a'`).get() as { state: string }).state,
  );

/** Two storms on two gauges, then a sediment trap filling, readings interleaved, through a real engine. */
function runScenario(cacheMb: number | undefined) {
  const input = testConfigInput();
  if (cacheMb !== undefined) (input as { storage?: object }).storage = { ruleStateCacheMb: cacheMb };
  const db = openDatabase(join(tmp!.dir, `cache-${cacheMb ?? 'all'}`));
  const metrics = new Registry();
  const engine = realEngine(db, parseConfig(input), () => T0 + 30 * 3_600_000, metrics);
  for (let i = 0; i < 120; i++) {
    const ts = T0 + i * 60_000;
    engine.handleReadings([
      reading('maple-ridge', 'rg-1', ts, { rainTips: i }),
      reading('maple-ridge', 'rg-2', ts + 1, { rainTips: 2 * i }),
      reading('maple-ridge', 'trap-1', ts + 2, { levelIn: 8 + i / 10 }),
    ]);
  }
  engine.tick(T0 + 20 * 3_600_000);
  const storms = engine
    .listStorms({ siteId: 'maple-ridge' })
    .map((s) => [s.deviceId, s.tips, s.start, s.end]);
  const alerts = engine
    .listAlerts({ siteId: 'maple-ridge' })
    .map((a) => [a.rule, a.deviceId, a.status, a.dueAt, a.message])
    .sort();
  const dropped = Number(/gateway_rule_state_cache_dropped (\d+)/.exec(metrics.render())?.[1]);
  db.close();
  return { storms, alerts, dropped };
}

describe('stored rule states', () => {
  it('gives the same storms and alerts when its cache holds one state at a time (the rest read back from the store)', () => {
    tmp = tempDir();
    const all = runScenario(undefined);
    const tiny = runScenario(0.000_01);
    expect(all.storms).toHaveLength(2);
    expect(all.alerts.length).toBeGreaterThanOrEqual(3);
    expect(tiny.storms).toEqual(all.storms);
    expect(tiny.alerts).toEqual(all.alerts);
    expect(all.dropped).toBe(0);
    expect(tiny.dropped).toBeGreaterThan(300);
  });

  it("keys a binding's state by site, rule and device, the same for a binding made again after a site change", () => {
    tmp = tempDir();
    const db = openDatabase(join(tmp.dir, 'keys'));
    const states = new RuleStates(new RuleStateStore(db));
    const site = parseConfig(testConfigInput()).sites[0]!;
    const { evaluator, state } = versioned([]);
    const rule = { name: 'device-silent', evaluator: evaluator as Evaluator<unknown, RuleId>, state };
    const bind = (deviceId: string) => bindRule(rule, site, deviceId, [deviceId]);
    const first = bind('panel-1');
    const again = bind('panel-1');
    expect(again).not.toBe(first);
    expect(states.keyOf(first)).toBe(states.keyOf(again));
    expect(states.keyOf(first)).toBe(`${site.id}\u0000device-silent\u0000panel-1`);
    expect(states.keyOf(bind('panel-2'))).not.toBe(states.keyOf(first));
    // A state committed under one binding is what the binding made again reads.
    const staged: StagedStates = new Map([[states.keyOf(first), { rule: first, state: { v: 2, count: 7 } }]]);
    db.transaction(() => states.save(staged, T0))();
    states.commit(staged);
    expect(states.get(new Map(), again, ruleContext(site))).toEqual({ v: 2, count: 7 });
    db.close();
  });

  it('keeps a small state as its stored JSON (a fresh object at every read) and a large one as its object', () => {
    tmp = tempDir();
    const db = openDatabase(join(tmp.dir, 'compact'));
    const states = new RuleStates(new RuleStateStore(db), 1_000_000);
    const config = parseConfig(testConfigInput());
    const site = config.sites[0]!;
    const ctx = ruleContext(site);
    const evaluator: Evaluator<{ v: 1; pad: string }, RuleId> = {
      rule: 'device-silent',
      init: () => ({ v: 1, pad: '' }),
      evaluate: (st) => ({ state: st, effects: [] }),
    };
    const bind = (deviceId: string) =>
      bindRule(
        {
          name: 'device-silent',
          evaluator: evaluator as Evaluator<unknown, RuleId>,
          state: { version: 1, upgrade: firstVersion },
        },
        site,
        deviceId,
        [deviceId],
      );
    const small = bind('small');
    const large = bind('large');
    const write = (staged: StagedStates) => {
      db.transaction(() => states.save(staged, T0))();
      states.commit(staged);
    };
    const smallState = { v: 1, pad: 'é'.repeat(100) };
    const largeState = { v: 1, pad: 'x'.repeat(JSON_CACHED_MAX) };
    const staged: StagedStates = new Map([
      [states.keyOf(small), { rule: small, state: smallState }],
      [states.keyOf(large), { rule: large, state: largeState }],
    ]);
    write(staged);
    const smallJson = JSON.stringify(smallState).length;
    const largeJson = JSON.stringify(largeState).length;
    // The small one counted at its length (Latin-1: one byte a character) and a header, the large at 3x.
    expect(states.stats()).toEqual({ states: 2, bytes: 64 + smallJson + 3 * largeJson, dropped: 0 });
    const empty: StagedStates = new Map();
    const a = states.get(empty, small, ctx) as typeof smallState;
    const b = states.get(empty, small, ctx) as typeof smallState;
    expect(a).toEqual(smallState);
    expect(a).not.toBe(smallState);
    expect(b).not.toBe(a);
    // Whatever a caller does to what it read, the next read is what the store holds.
    a.pad = 'changed';
    expect((states.get(empty, small, ctx) as typeof smallState).pad).toBe(smallState.pad);
    expect(states.get(empty, large, ctx)).toBe(largeState);
    // A state beyond Latin-1 is counted at two bytes a character.
    const wide = { v: 1, pad: '\u2014'.repeat(50) };
    write(new Map([[states.keyOf(small), { rule: small, state: wide }]]));
    expect(states.stats().bytes).toBe(64 + 2 * JSON.stringify(wide).length + 3 * largeJson);
    db.close();
  });

  it('upgrades a state stored at an older version (one without `v` is version 1) when it loads it', () => {
    tmp = tempDir();
    const file = join(tmp.dir, 'gw.db');
    const upgrades: unknown[] = [];
    h = makeEngine(file, (site) => (site.id === 'site-a' ? [versioned(upgrades)] : []));
    saveState(h.db, { n: 41 });
    h.engine.handleReadings([reading('site-a', 'panel-1', T0, { levelIn: 1 })]);
    expect(upgrades).toEqual([{ old: { n: 41 }, from: 1 }]);
    expect(storedState(h.db)).toEqual({ v: 2, count: 42 });
    // Loaded once: the next reading continues from the cache.
    h.engine.handleReadings([reading('site-a', 'panel-1', T0 + 1000, { levelIn: 1 })]);
    expect(upgrades).toHaveLength(1);
    expect(storedState(h.db)).toEqual({ v: 2, count: 43 });
  });

  it('refuses a state stored by a newer version of its rule, and leaves it as it is', () => {
    tmp = tempDir();
    const upgrades: unknown[] = [];
    h = makeEngine(join(tmp.dir, 'gw.db'), (site) => (site.id === 'site-a' ? [versioned(upgrades)] : []));
    saveState(h.db, { v: 3, later: true });
    h.engine.handleReadings([reading('site-a', 'panel-1', T0, { levelIn: 1 })]);
    expect(upgrades).toEqual([]);
    expect(storedState(h.db)).toEqual({ v: 3, later: true });
    expect(h.metrics.render()).toMatch(/gateway_rule_errors_total\{rule="device-silent"\} 1/);
  });

  it("carries on a release-0.1.0 store's states: the remedy evaluator's under equipment-remedy+field-remedy", () => {
    tmp = tempDir();
    const raw = new Database(join(tmp.dir, 'gateway.db'));
    raw.exec(readFileSync(RELEASE_DUMP, 'utf8'));
    raw.close();
    const db = openDatabase(tmp.dir);
    const config = parseConfig(testConfigInput());
    const last = 1796108209466; // the pump alarm's last sample in the stored state
    const engine = realEngine(db, config, () => last + 3_600_000);
    const [pump] = engine.listAlerts({ siteId: 'oak-lane', status: 'acknowledged' });
    expect(pump?.rule).toBe('equipment-remedy');
    // The stored episode ends when the pump has held normal for a minute: its alert resolves on time.
    const normal = (ts: number) => ({ ...reading('oak-lane', 'panel-1', ts), alarms: { pump: false } });
    engine.handleReadings([normal(last + 60_000), normal(last + 130_000)]);
    const done = engine.getAlert(pump!.id)!;
    expect(done).toMatchObject({
      status: 'resolved',
      withinDeadline: true,
      resolvedAt: new Date(last + 60_000).toISOString(),
    });
    expect(done.resolution).toMatchObject({ how: 'auto', evidence: { input: 'pump', withinDeadline: true } });
    // No second alert for the episode it already knew.
    expect(engine.listAlerts({ siteId: 'oak-lane', rule: 'equipment-remedy' })).toHaveLength(1);
    db.close();
  });

  it("carries on a release-0.1.0 store's storm state (version 1, upgraded): the storm grows, no alert twice", () => {
    tmp = tempDir();
    const raw = new Database(join(tmp.dir, 'gateway.db'));
    raw.exec(readFileSync(RELEASE_DUMP, 'utf8'));
    raw.close();
    const db = openDatabase(tmp.dir);
    const last = 1796107969466; // the storm's last reading in the stored state (counter 60)
    const engine = realEngine(db, parseConfig(testConfigInput()), () => last + 12 * 3_600_000);
    const rain = (ts: number, rainTips: number) => reading('maple-ridge', 'rg-1', ts, { rainTips });
    engine.handleReadings(Array.from({ length: 5 }, (_, i) => rain(last + (i + 1) * 60_000, 61 + i)));
    const [first] = engine.listStorms({ siteId: 'maple-ridge' });
    expect(first).toMatchObject({ tips: 65, start: new Date(1796104429466).toISOString() });
    // Its alert was inspected: the storm keeps it; a second storm raises one of its own.
    engine.handleReadings(
      Array.from({ length: 55 }, (_, i) => rain(last + 8 * 3_600_000 + i * 60_000, 66 + i)),
    );
    const alerts = engine.listAlerts({ siteId: 'maple-ridge', rule: 'storm-inspection' });
    expect(alerts.map((a) => a.status).sort()).toEqual(['open', 'resolved']);
    const state = JSON.parse(
      (
        db
          .prepare(`SELECT state FROM rule_state WHERE rule = 'storm-inspection' AND device_id = 'rg-1'`)
          .get() as { state: string }
      ).state,
    );
    expect(state.v).toBe(2);
    db.close();
  });
});
