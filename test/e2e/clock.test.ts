/**
 * Wall clock jumps against the real gateway process (libfaketime: the wall clock moves, the monotonic
 * clock does not). Two days ahead and back: a clock fault in /api/health and /metrics, and no silence,
 * no overdue escalation, no notification meanwhile or after. A restart two days later is no jump: the
 * first tick catches up on the silences and the deadline passed while the gateway was down.
 * Needs Debian's `faketime` package; with CI=true its absence fails the suite instead of skipping it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mqtt from 'mqtt';
import { afterAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, jumpingWallClock, onFixedPorts, spawnGateway } from '../helpers/child.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { testConfigInput } from '../helpers/gateway.ts';

const MIN = 60_000;
const DAY = 24 * 60 * MIN;

type Health = { components: Array<{ name: string; ok: boolean; detail?: string; jumps?: number }> };
type Alert = { rule: string; status: string; overdue: boolean };

describe.runIf(haveBinary('faketime'))('wall clock jumps (libfaketime) against the real gateway', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-clock-'));
  let proc: GatewayProcess | undefined;
  afterAll(async () => {
    await proc?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('a jump of two days and back raises nothing; a restart two days later catches up', async () => {
    const {
      config,
      httpUrl: http,
      mqttUrl,
    } = await onFixedPorts(
      testConfigInput({ ingest: { deviceRatePerSec: 10_000, deviceBurst: 10_000 } }),
      dir,
    );
    const { env, set: setClock } = jumpingWallClock(dir);
    const api = async <T>(path: string) => (await (await fetch(`${http}${path}`)).json()) as T;
    const clock = async () => (await api<Health>('/api/health')).components.find((c) => c.name === 'clock')!;
    const ticks = async () =>
      Number(
        /gateway_rules_tick_seconds_count (\d+)/.exec(await (await fetch(`${http}/metrics`)).text())?.[1],
      );
    const notifications = () => {
      const db = new Database(join(config.dataDir, 'gateway.db'), { readonly: true });
      try {
        return db.prepare('SELECT kind, rule FROM notification_events ORDER BY id').all() as Array<{
          kind: string;
          rule: string;
        }>;
      } finally {
        db.close();
      }
    };
    /** Waits for a tick after now (the scheduler ticks at once when the clock jumps or comes back). */
    const nextTick = async () => {
      const n = await ticks();
      await waitFor(async () => (await ticks()) > n, 20_000, 'a tick');
    };

    proc = await spawnGateway(config, join(dir, 'config.json'), env);
    // Every device reports; rg-1 a storm of 55 tips that ended an hour ago: an inspection due in 23 h.
    const now = Date.now();
    for (const [site, dev] of [
      ['maple-ridge', 'rg-1'],
      ['maple-ridge', 'rg-2'],
      ['maple-ridge', 'trap-1'],
      ['oak-lane', 'panel-1'],
    ] as const) {
      const c = await mqtt.connectAsync(mqttUrl, {
        clientId: `${site}/${dev}`,
        username: `${site}/${dev}`,
        password: `pw-${dev}`,
      });
      const topic = `sites/${site}/devices/${dev}/telemetry`;
      if (dev === 'rg-1')
        for (let i = 0; i <= 55; i++)
          await c.publishAsync(topic, JSON.stringify({ ts: now - 2 * 60 * MIN + i * MIN, rainTips: i }), {
            qos: 1,
          });
      else await c.publishAsync(topic, JSON.stringify({ ts: now - MIN, batteryV: 12.4 }), { qos: 1 });
      await c.endAsync();
    }
    await waitFor(
      async () => (await api<Alert[]>('/api/alerts?rule=storm-inspection')).length === 1,
      10_000,
      'the storm alert',
    );
    // The site's other duties (the routine report, the annual inspection) are as they are.
    const alerts = async () =>
      (await api<Alert[]>('/api/alerts')).map((a) => [a.rule, a.status, a.overdue]).sort();
    const before = notifications();
    const beforeAlerts = await alerts();
    expect(beforeAlerts).toContainEqual(['storm-inspection', 'open', false]);
    expect(beforeAlerts.filter((a) => a[0] === 'device-silent')).toEqual([]);

    // Two days ahead: a fault, ticks keep the real time; nothing comes due.
    setClock('+2d');
    await waitFor(async () => !(await clock()).ok, 20_000, 'the clock fault in /api/health');
    expect((await clock()).detail).toMatch(/2 d ahead of the monotonic clock/);
    await nextTick();
    expect(await alerts()).toEqual(beforeAlerts);
    expect(notifications()).toEqual(before);
    expect(await (await fetch(`${http}/metrics`)).text()).toMatch(/gateway_clock_fault 1/);

    // Back: in step again, and still nothing.
    setClock('+0');
    await waitFor(async () => (await clock()).ok, 20_000, 'the clock back in step');
    await nextTick();
    expect(await alerts()).toEqual(beforeAlerts);
    expect(notifications()).toEqual(before);
    expect(await (await fetch(`${http}/metrics`)).text()).toMatch(/gateway_clock_jumps_total 1/);

    // Down for two days: the restart is no jump; the first tick raises the silences and the overdue storm.
    await proc.kill('SIGTERM');
    proc = undefined;
    setClock('+2d');
    proc = await spawnGateway(config, join(dir, 'config.json'), env);
    await waitFor(
      async () => (await api<Alert[]>('/api/alerts?rule=device-silent')).length === 4,
      20_000,
      'four silent devices',
    );
    expect((await clock()).ok).toBe(true);
    const storm = (await api<Alert[]>('/api/alerts?rule=storm-inspection'))[0]!;
    expect(storm.overdue).toBe(true);
    const after = notifications().slice(before.length);
    expect(after.filter((n) => n.kind === 'overdue' && n.rule === 'storm-inspection')).toHaveLength(1);
    expect(after.filter((n) => n.kind === 'raise' && n.rule === 'device-silent')).toHaveLength(4);
    // The test's own clock was never moved.
    expect(Date.now()).toBeLessThan(now + DAY);
  }, 120_000);
});
