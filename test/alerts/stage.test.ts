/**
 * The rules stage never moves its cursor past readings whose evaluation failed: the next batch, a retry
 * or the next start evaluates them, in order. Against the real gateway: a trigger on the alerts table
 * (added through a second connection to the store) makes every evaluation that raises an alert for rain
 * gauge rg-1 fail.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mqtt from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

type Alert = { rule: string; status: string; evidence: { tips?: number } };
type Health = {
  status: string;
  components: Array<{ name: string; ok: boolean; detail?: string; evaluatedUpTo?: number }>;
};

const M = 60_000;

describe('the rules cursor after a failed evaluation', () => {
  let gw: TestGateway | undefined;
  afterEach(async () => {
    await gw?.cleanup();
    gw = undefined;
  });

  it('evaluates the failed readings again, in order, once the store takes them', async () => {
    gw = await startTestGateway();
    const db = new Database(join(gw.dataDir, 'gateway.db'));
    db.exec(
      `CREATE TRIGGER refuse_alerts BEFORE INSERT ON alerts WHEN NEW.device_id = 'rg-1' BEGIN SELECT RAISE(ABORT, 'disk I/O error (test)'); END`,
    );
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    const t0 = Date.now() - 3 * 60 * M;
    const send = (i: number) =>
      c.publishAsync(
        'sites/maple-ridge/devices/rg-1/telemetry',
        JSON.stringify({ ts: t0 + i * M, rainTips: i }),
        {
          qos: 1,
        },
      );
    // 60 tips: the storm crosses 0.5 in at the 50th, whose evaluation fails (its alert cannot be stored).
    for (let i = 0; i <= 60; i++) await send(i);
    const alerts = async () =>
      (await (
        await fetch(`${gw!.httpUrl}/api/alerts?siteId=maple-ridge&rule=storm-inspection`)
      ).json()) as Alert[];
    expect(await alerts()).toEqual([]);
    const health = async () => (await (await fetch(`${gw!.httpUrl}/api/health`)).json()) as Health;
    const h = await health();
    const rules = h.components.find((x) => x.name === 'rules')!;
    expect(rules.ok).toBe(false);
    expect(rules.detail).toMatch(/not evaluated yet: .*disk I\/O error/);
    expect(h.status).toBe('degraded');

    // The store takes writes again; the next reading's batch evaluates everything from the cursor.
    db.exec('DROP TRIGGER refuse_alerts');
    db.close();
    await send(61);
    await c.endAsync();
    const raised = await waitFor(
      async () => {
        const a = await alerts();
        return a.length ? a : undefined;
      },
      5000,
      'the storm alert',
    );
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ status: 'open' });
    const storms = (await (await fetch(`${gw.httpUrl}/api/storms?siteId=maple-ridge`)).json()) as Array<{
      tips: number;
    }>;
    expect(storms.map((s) => s.tips)).toEqual([61]);
    expect((await health()).components.find((x) => x.name === 'rules')?.ok).toBe(true);
  });

  it('does not move past a failed batch when later batches succeed, so a restart evaluates it', async () => {
    gw = await startTestGateway();
    const dataDir = gw.dataDir;
    const db = new Database(join(dataDir, 'gateway.db'));
    db.exec(
      `CREATE TRIGGER refuse_alerts BEFORE INSERT ON alerts WHEN NEW.device_id = 'rg-1' BEGIN SELECT RAISE(ABORT, 'disk I/O error (test)'); END`,
    );
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    const t0 = Date.now() - 3 * 60 * M;
    for (let i = 0; i <= 55; i++)
      await c.publishAsync(
        'sites/maple-ridge/devices/rg-1/telemetry',
        JSON.stringify({ ts: t0 + i * M, rainTips: i }),
        {
          qos: 1,
        },
      );
    await c.endAsync();
    // Another gauge's readings, which the rules can evaluate on their own, come after the failed ones.
    const other = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-2',
      username: 'maple-ridge/rg-2',
      password: 'pw-rg-2',
    });
    for (let i = 0; i < 5; i++)
      await other.publishAsync(
        'sites/maple-ridge/devices/rg-2/telemetry',
        JSON.stringify({ ts: t0 + (60 + i) * M, rainTips: 0, batteryV: 12.5 }),
        { qos: 1 },
      );
    await other.endAsync();
    const stored = (await (await fetch(`${gw.httpUrl}/api/health`)).json()) as Health;
    expect(stored.components.find((x) => x.name === 'store')).toMatchObject({ readings: 61 });
    await gw.stop();
    db.exec('DROP TRIGGER refuse_alerts');
    db.close();
    gw = await startTestGateway({}, { dataDir });
    const a = (await (
      await fetch(`${gw.httpUrl}/api/alerts?siteId=maple-ridge&rule=storm-inspection`)
    ).json()) as Alert[];
    expect(a).toHaveLength(1);
  });
});
