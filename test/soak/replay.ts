/**
 * `npm run soak:replay -- [kills] [seed]` (defaults 100, 1): the gateway killed with SIGKILL at random
 * points while three devices publish a day of readings at QoS 1 (two rain gauges with five storms, a
 * sediment trap filling past half its depth), started again on the same store each time, and the
 * publishers resending from their first unacknowledged reading. The rules commit their states with the
 * cursor once per slice, not once per reading; at each start the readings after the cursor are
 * evaluated again. The store it leaves is compared with a run of the same readings without kills: the
 * same alerts (rule, key, status, due times), the same storm records (their final versions, as logged),
 * the same deadlines, every notification exactly once, the evidence log whole. Prints one JSON line;
 * exits 1 on a difference. The suite runs a short form (test/e2e/replay.test.ts, 20 kills).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mqtt from 'mqtt';
import { type GatewayProcess, spawnGateway } from '../helpers/child.ts';
import { freePort } from '../helpers/env.ts';
import { auditAll } from '../helpers/evidence.ts';
import { testConfigInput } from '../helpers/gateway.ts';
import { rng } from '../rules/helpers.ts';

const MIN = 60_000;
const DAY = 24 * 60 * MIN;

export interface ScriptReading {
  device: string;
  payload: Record<string, number>;
}

/** A day of three devices' readings ending a minute ago, per device in order. */
export function dayOfReadings(now: number): Map<string, ScriptReading[]> {
  const t0 = Math.floor(now / MIN) * MIN - 20 * 60 * MIN;
  const out = new Map<string, ScriptReading[]>();
  // Storms as [first minute, tips]: a tip a minute; storms more than 6 h apart are events of their own.
  const gauges: Record<string, Array<[number, number]>> = {
    'rg-1': [
      [0, 60],
      [500, 30],
      [900, 80],
    ],
    'rg-2': [
      [100, 71],
      [700, 61],
    ],
  };
  for (const [device, storms] of Object.entries(gauges)) {
    const rs: ScriptReading[] = [];
    let tips = 0;
    for (let m = 0; m < 1200; m++) {
      if (storms.some(([from, n]) => m > from && m <= from + n)) tips++;
      rs.push({ device, payload: { seq: m, ts: t0 + m * MIN, rainTips: tips } });
    }
    out.set(device, rs);
  }
  const trap: ScriptReading[] = [];
  for (let m = 0; m < 600; m++)
    trap.push({
      device: 'trap-1',
      payload: { seq: m, ts: t0 + 2 * m * MIN, sedimentIn: Math.round((2 + (m / 600) * 12) * 100) / 100 },
    });
  out.set('trap-1', trap);
  return out;
}

/** What a store holds that must not depend on kills: compared between runs. */
export interface Outcome {
  alerts: string[];
  storms: string[];
  timers: string[];
  notifications: string[];
  /** Notification events recorded more than once for one alert, kind and step. */
  twice: string[];
  raisedTwice: string[];
  readings: number;
  evaluatedUpTo: number;
  auditProblems: unknown[];
}

function outcomeOf(file: string): Outcome {
  const db = new Database(file, { readonly: true });
  try {
    const rows = <T>(sql: string) => db.prepare(sql).all() as T[];
    // A duty due at once (a record the site lacks) is due at the gateway's first tick, which is the wall
    // clock's: compared as "due when raised", not by its time.
    const alerts = rows<Record<string, unknown>>(
      'SELECT key, rule, site_id, device_id, status, raised_at, due_at, original_due_at, message FROM alerts ORDER BY site_id, key',
    ).map(({ raised_at, ...a }) =>
      JSON.stringify(
        a.due_at !== null && a.due_at === raised_at && a.original_due_at === raised_at
          ? { ...a, due_at: 'when raised', original_due_at: 'when raised' }
          : a,
      ),
    );
    const storms = rows<Record<string, unknown>>(
      `SELECT s.id, s.start, s."end", s.tips, s.inches, s.qualified, s.threshold_at, s.due_at, s.closed,
           s.superseded_by, e.body
         FROM storms s LEFT JOIN log_entries e ON e.idx = s.log_idx ORDER BY s.id`,
    ).map((s) => {
      // The logged record, without the entry it supersedes (how many versions came before differs).
      const body = typeof s.body === 'string' ? (JSON.parse(s.body) as Record<string, unknown>) : {};
      const { supersedes: _s, ...record } = body;
      return JSON.stringify({ ...s, body: record });
    });
    const timers = rows<Record<string, unknown>>(
      `SELECT a.key, t.kind, t.hours, t.due_at, t.fire_at, t.fired_at IS NOT NULL AS fired
         FROM timers t JOIN alerts a ON a.id = t.alert_id WHERE t.fired_at IS NULL ORDER BY a.key, t.kind, t.hours`,
    ).map((t) => JSON.stringify(t));
    const notifications = rows<{ key: string; kind: string; n: number }>(
      `SELECT a.key, e.kind, COUNT(*) AS n FROM notification_events e JOIN alerts a ON a.id = e.alert_id
         GROUP BY a.key, e.kind ORDER BY a.key, e.kind`,
    ).map((n) => `${n.key} ${n.kind} ${n.n}`);
    const twice = rows<{ event_id: string }>(
      'SELECT event_id FROM notification_events GROUP BY event_id HAVING COUNT(*) > 1',
    ).map((r) => r.event_id);
    const raisedTwice = rows<{ alert_id: string }>(
      `SELECT alert_id FROM alert_history WHERE action = 'raised' GROUP BY alert_id HAVING COUNT(*) > 1`,
    ).map((r) => r.alert_id);
    const readings = (db.prepare('SELECT COUNT(*) AS n FROM readings').get() as { n: number }).n;
    const cursor = db.prepare(`SELECT position FROM cursors WHERE name = 'rules'`).get() as
      | { position: number }
      | undefined;
    return {
      alerts,
      storms,
      timers,
      notifications,
      twice,
      raisedTwice,
      readings,
      evaluatedUpTo: cursor?.position ?? 0,
      auditProblems: auditAll(db).problems,
    };
  } finally {
    db.close();
  }
}

/** One device's publisher: in order, a window in flight, from its first unacknowledged reading after a drop. */
class Publisher {
  next = 0;
  constructor(
    readonly device: string,
    readonly readings: ScriptReading[],
  ) {}
  get done(): boolean {
    return this.next >= this.readings.length;
  }

  /** Publishes until done or the connection drops, `window` at a time, about `rate` a second; resolves either way. */
  async run(url: string, window: number, rate: number): Promise<void> {
    const c = mqtt.connect(url, {
      clientId: `maple-ridge/${this.device}`,
      username: `maple-ridge/${this.device}`,
      password: `pw-${this.device}`,
      reconnectPeriod: 0,
      connectTimeout: 5000,
    });
    // A gateway killed while the connection is being taken: neither connect nor error may come, a close does.
    const up = await new Promise<boolean>((r) => {
      c.once('connect', () => r(true));
      c.once('close', () => r(false));
      c.once('error', () => r(false));
    });
    if (!up) {
      c.end(true);
      return; // tried again at the gateway's next start
    }
    c.on('error', () => {});
    // A publish in flight when the gateway dies is never settled by the client: the close settles it.
    const closed = new Promise<'closed'>((r) => c.once('close', () => r('closed')));
    const topic = `sites/maple-ridge/devices/${this.device}/telemetry`;
    try {
      while (!this.done) {
        const from = this.next;
        const batch = this.readings.slice(from, from + window);
        const acked: boolean[] = batch.map(() => false);
        const all = Promise.all(
          batch.map((r, i) =>
            c.publishAsync(topic, JSON.stringify(r.payload), { qos: 1 }).then(
              () => {
                acked[i] = true;
              },
              () => undefined,
            ),
          ),
        );
        const pace = new Promise((r) => setTimeout(r, (1000 * batch.length) / rate));
        await Promise.race([all, closed]);
        const firstFailed = acked.indexOf(false);
        this.next = from + (firstFailed < 0 ? batch.length : firstFailed);
        if (firstFailed >= 0) return;
        await Promise.race([pace, closed]);
      }
    } finally {
      c.end(true);
    }
  }
}

export interface ReplayFigures {
  kills: number;
  seed: number;
  readings: number;
  ms: number;
  killedAtMs: number[];
  reference: Outcome;
  killed: Outcome;
  differences: string[];
}

/** Runs the day once without kills and once with `kills`, and compares what the two stores hold. */
export async function replayRun(opts: {
  kills: number;
  seed: number;
  log?: (line: string) => void;
}): Promise<ReplayFigures> {
  const started = Date.now();
  const script = dayOfReadings(started);
  const total = [...script.values()].reduce((n, rs) => n + rs.length, 0);
  const dir = mkdtempSync(join(tmpdir(), 'gw-replay-'));
  const random = rng(opts.seed);
  const killedAtMs: number[] = [];
  try {
    const reference = await runOnce(started - DAY, join(dir, 'reference'), script, 0, random, killedAtMs);
    opts.log?.(`reference run: ${reference.readings} readings stored`);
    const killed = await runOnce(
      started - DAY,
      join(dir, 'killed'),
      script,
      opts.kills,
      random,
      killedAtMs,
      opts.log,
    );
    const differences: string[] = [];
    for (const k of ['alerts', 'storms', 'timers', 'notifications'] as const) {
      const a = reference[k].join('\n');
      const b = killed[k].join('\n');
      if (a !== b) differences.push(`${k} differ:\n  without kills:\n${a}\n  with kills:\n${b}`);
    }
    if (killed.readings !== total) differences.push(`${killed.readings} of ${total} readings stored`);
    if (killed.twice.length) differences.push(`notifications recorded twice: ${killed.twice.join(', ')}`);
    if (killed.raisedTwice.length) differences.push(`alerts raised twice: ${killed.raisedTwice.join(', ')}`);
    if (killed.auditProblems.length)
      differences.push(`audit problems: ${JSON.stringify(killed.auditProblems)}`);
    return {
      kills: opts.kills,
      seed: opts.seed,
      readings: total,
      ms: Date.now() - started,
      killedAtMs,
      reference,
      killed,
      differences,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runOnce(
  historyAt: number,
  dataDir: string,
  script: Map<string, ScriptReading[]>,
  kills: number,
  random: () => number,
  killedAtMs: number[],
  log?: (line: string) => void,
): Promise<Outcome> {
  const config = {
    ...testConfigInput({ ingest: { deviceRatePerSec: 100_000, deviceBurst: 100_000 } }),
    dataDir,
    http: { port: await freePort(), host: '127.0.0.1' },
    mqtt: { port: await freePort(), host: '127.0.0.1' },
    notify: { reminderHours: [1] },
  };
  const site = config.sites!.find((s) => s.id === 'maple-ridge')!;
  site.storm = { settleMinutes: 0 };
  // The routine inspection's clock runs from a time of the script's, not from the gateway's first start.
  site.history = { lastRoutineInspection: new Date(historyAt).toISOString() };
  // So is the septic tank's pumping clock (with no pump-out on record it asks at its first tick).
  const oak = config.sites!.find((s) => s.id === 'oak-lane')!;
  oak.history = { ...oak.history, lastPumpOut: new Date(historyAt).toISOString() };
  const file = join(dataDir, '..', `${dataDir.split('/').at(-1)}.json`);
  const publishers = [...script].map(([device, rs]) => new Publisher(device, rs));
  const url = `mqtt://127.0.0.1:${config.mqtt.port}`;
  let proc: GatewayProcess | undefined;
  try {
    for (let life = 0; ; life++) {
      proc = await spawnGateway(config, file);
      // Paced so that the readings pour in across every life (a life lasts about 0.37 s of publishing).
      const rate = kills > 0 ? 1200 / (kills * 0.3) : 2000;
      const running = Promise.all(publishers.map((p) => p.run(url, 8, rate)));
      if (life < kills) {
        // A random point of this life: most while readings pour in, some while the gateway starts its work.
        const ms = Math.round(30 + random() * 700);
        await Promise.race([running, new Promise((r) => setTimeout(r, ms))]);
        killedAtMs.push(ms);
        await proc.kill('SIGKILL');
        proc = undefined;
        await running;
        log?.(
          `kill ${life + 1}/${kills} after ${ms} ms: ${publishers.map((p) => `${p.device} ${p.next}`).join(', ')}`,
        );
        continue;
      }
      await running;
      if (publishers.every((p) => p.done)) break;
      // A drop without a kill (the window timed out): the publishers go on against the same gateway.
      await proc.kill('SIGTERM');
      proc = undefined;
    }
    // A graceful stop: the last slice is committed with the cursor.
    await proc!.kill('SIGTERM');
    proc = undefined;
  } finally {
    await proc?.kill('SIGKILL');
  }
  return outcomeOf(join(dataDir, 'gateway.db'));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const kills = Number(process.argv[2] ?? 100);
  const seed = Number(process.argv[3] ?? 1);
  const r = await replayRun({ kills, seed, log: (l) => process.stderr.write(`${l}\n`) });
  const { reference, killed, ...figures } = r;
  process.stdout.write(
    `${JSON.stringify({ ...figures, alerts: killed.alerts.length, storms: killed.storms.length, notifications: killed.notifications })}\n`,
  );
  process.exit(r.differences.length === 0 ? 0 : 1);
}
