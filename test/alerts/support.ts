import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type AlertEvent, ComplianceEngine } from '../../gateway/src/alerts/engine.ts';
import { type Config, configSchema, type SiteConfig } from '../../gateway/src/config/schema.ts';
import type { SiteCatalogue } from '../../gateway/src/config/sites.ts';
import { Registry } from '../../gateway/src/metrics.ts';
import type { EventRow } from '../../gateway/src/notify/queue.ts';
import { silentLog } from '../../gateway/src/pipeline.ts';
import type { SiteView } from '../../gateway/src/rules/context.ts';
import { bindRule, evaluatorsFor, type RuleId } from '../../gateway/src/rules/index.ts';
import type { RuleState } from '../../gateway/src/rules/module.ts';
import { firstVersion } from '../../gateway/src/rules/state.ts';
import type { Effect, Evaluator, RuleInput } from '../../gateway/src/rules/types.ts';
import { EvidenceLog } from '../../gateway/src/store/evidenceLog.ts';
import { migrate } from '../../gateway/src/store/schema/index.ts';
import type { Reading } from '../../shared/src/telemetry.ts';

export const H = 3_600_000;
export const T0 = Date.UTC(2025, 3, 1, 12, 0, 0);

export function testConfig(extra: Record<string, unknown> = {}): Config {
  return configSchema.parse({
    gatewayId: 'test-gw',
    sites: [
      {
        id: 'site-a',
        kind: 'construction',
        devices: [
          { id: 'rg-1', kind: 'rain-gauge', inchesPerTip: 0.01 },
          { id: 'panel-1', kind: 'septic-panel' },
        ],
      },
      {
        id: 'site-b',
        kind: 'construction',
        devices: [{ id: 'rg-2', kind: 'rain-gauge', inchesPerTip: 0.01 }],
      },
    ],
    ...extra,
  });
}

export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'alerts-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function openDb(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

export interface StubState {
  n: number;
}

/**
 * A stub evaluator: counts the inputs it sees in its state and returns whatever `script` says.
 * Every input it receives is recorded in `seen` (not in the state) for assertions.
 */
export function scripted(
  rule: RuleId | RuleId[],
  script: (input: RuleInput, state: StubState, site: SiteView, deviceId?: string) => Effect[],
): Evaluator<StubState> & { seen: RuleInput[] } {
  const seen: RuleInput[] = [];
  return {
    rule,
    seen,
    init: () => ({ n: 0 }),
    evaluate(state, input, ctx) {
      seen.push(input);
      return { state: { n: state.n + 1 }, effects: script(input, { n: state.n + 1 }, ctx.site) };
    },
  };
}

/**
 * The deterministic evaluator of the crash test: every reading with a level opens a new alert whose
 * key is the count of such readings so far, due `dueHours` after the reading.
 */
export function levelEvaluator(dueHours = 2): Evaluator<StubState> {
  return {
    rule: 'holding-tank-pumpout',
    init: () => ({ n: 0 }),
    evaluate(state, input) {
      if (input.type !== 'reading' || input.reading.values.levelIn === undefined)
        return { state, effects: [] };
      const n = state.n + 1;
      const r = input.reading;
      return {
        state: { n },
        effects: [
          {
            type: 'open',
            rule: 'holding-tank-pumpout',
            siteId: r.siteId,
            deviceId: r.deviceId,
            key: `k-${n}`,
            at: r.ts,
            dueAt: r.ts + dueHours * H,
            message: `level ${r.values.levelIn} in`,
            evidence: { levelIn: r.values.levelIn },
          },
        ],
      };
    },
  };
}

export function reading(
  siteId: string,
  deviceId: string,
  ts: number,
  values: Reading['values'] = {},
): Reading {
  return {
    siteId,
    deviceId,
    deviceKind: deviceId.startsWith('rg') ? 'rain-gauge' : 'septic-panel',
    ts,
    receivedAt: ts,
    transport: 'api',
    values,
  };
}

/** A stub evaluator for a site, per device when `deviceId` is set; its state at version 1 by default. */
export interface StubBinding {
  evaluator: Evaluator<unknown>;
  deviceId?: string;
  state?: RuleState<unknown>;
}

/** Binds stub evaluators as the engine binds the rule modules (state version 1). */
function bindStubs(site: SiteConfig, stubs: StubBinding[]) {
  return stubs.map((s) =>
    bindRule(
      {
        name: [s.evaluator.rule].flat().join('+'),
        evaluator: s.evaluator as Evaluator<unknown, RuleId>,
        state: s.state ?? { version: 1, upgrade: firstVersion },
      },
      site,
      s.deviceId,
      s.deviceId === undefined ? [] : [s.deviceId],
    ),
  );
}

export interface Harness {
  engine: ComplianceEngine;
  db: Database.Database;
  events: AlertEvent[];
  metrics: Registry;
  clock: { now: number };
  /** How many commits told the dispatcher hook about new notification events. */
  notifyCalls: { n: number };
}

/**
 * The sites an engine under test is bound to: its configuration's, as the live catalogue holds them once
 * the configuration has seeded it (the gateway gives the engine the catalogue).
 */
export function configuredSites(config: Config): Pick<SiteCatalogue, 'sites' | 'site'> {
  const byId = new Map(config.sites.map((s) => [s.id, s]));
  return { sites: () => config.sites, site: (id) => byId.get(id) };
}

/** An engine over `db` with the real rules bound to `config`'s sites. */
export function realEngine(
  db: Database.Database,
  config: Config,
  now: () => number,
  metrics: Registry = new Registry(),
): ComplianceEngine {
  return new ComplianceEngine({
    db,
    evidence: new EvidenceLog(db),
    config,
    sites: configuredSites(config),
    evaluatorsFor,
    now,
    log: silentLog,
    metrics,
  });
}

export function makeEngine(
  file: string,
  evaluatorsFor: (site: SiteConfig) => StubBinding[],
  opts: { config?: Config; now?: number; tickIntervalMs?: number } = {},
): Harness {
  const db = openDb(file);
  const clock = { now: opts.now ?? T0 };
  const events: AlertEvent[] = [];
  const metrics = new Registry();
  const notifyCalls = { n: 0 };
  const config = opts.config ?? testConfig();
  const engine = new ComplianceEngine({
    db,
    evidence: new EvidenceLog(db),
    config,
    sites: configuredSites(config),
    evaluatorsFor: (site) => bindStubs(site, evaluatorsFor(site)),
    now: () => clock.now,
    log: silentLog,
    metrics,
    ...(opts.tickIntervalMs !== undefined ? { tickIntervalMs: opts.tickIntervalMs } : {}),
  });
  engine.onChange((e) => events.push(e));
  engine.onNotify(() => {
    notifyCalls.n++;
  });
  return { engine, db, events, metrics, clock, notifyCalls };
}

/** A row of the notification outbox, as the dispatcher reads it. */
export type NotificationRow = EventRow;

export function notifications(db: Database.Database, kind?: string): NotificationRow[] {
  return kind === undefined
    ? db.prepare<[], NotificationRow>('SELECT * FROM notification_events ORDER BY id').all()
    : db
        .prepare<[string], NotificationRow>('SELECT * FROM notification_events WHERE kind = ? ORDER BY id')
        .all(kind);
}

/** A stub evaluator on site-a whose next reading yields exactly the effects queued by the test. */
export function driven() {
  const queue: Effect[][] = [];
  const evaluator = scripted(['holding-tank-pumpout', 'storm-inspection'], (input) =>
    input.type === 'reading' ? (queue.shift() ?? []) : [],
  );
  return { evaluator, queue };
}
export type Driven = ReturnType<typeof driven>;

/** An `open` effect on site-a's panel (a high tank, unless `extra` says otherwise). */
export const open = (
  key: string,
  at: number,
  dueAt: number | undefined,
  extra: Partial<Effect> = {},
): Effect =>
  ({
    type: 'open',
    rule: 'holding-tank-pumpout',
    siteId: 'site-a',
    deviceId: 'panel-1',
    key,
    at,
    ...(dueAt !== undefined ? { dueAt } : {}),
    message: `tank high (${key})`,
    evidence: { levelIn: 70 },
    ...extra,
  }) as Effect;

/** An engine on a fresh file whose only evaluator is a driven one on site-a. */
export function drivenHarness(): { tmp: ReturnType<typeof tempDir>; drv: Driven; h: Harness } {
  const tmp = tempDir();
  const drv = driven();
  const h = makeEngine(join(tmp.dir, 'gw.db'), (site) =>
    site.id === 'site-a' ? [{ evaluator: drv.evaluator }] : [],
  );
  return { tmp, drv, h };
}

/** Queues effects for the driven evaluator and sends it one reading, now. */
export function emitReading(h: Harness, drv: Driven, effects: Effect[]) {
  drv.queue.push(effects);
  return h.engine.handleReadings([reading('site-a', 'panel-1', h.clock.now, { levelIn: 70 })]);
}

export function closeHarness(h: Harness, tmp: ReturnType<typeof tempDir>): void {
  h.engine.stop();
  if (h.db.open) h.db.close();
  tmp.cleanup();
}
