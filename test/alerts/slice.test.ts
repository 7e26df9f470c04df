/**
 * The rules' slices against the real gateway: a rain gauge's readings that open no alert are evaluated
 * into a slice that is committed once (its states, its storm record's version), not once per reading;
 * any look at the alerts or storms commits it first, so what the API shows includes every reading it
 * acknowledged; an alert that opens is committed at once. Counted with triggers on the store, added
 * through a second connection.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mqtt from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const M = 60_000;
type Health = { components: Array<{ name: string; evaluatedUpTo?: number }> };

describe('the rules commit a slice of readings at once', () => {
  let gw: TestGateway | undefined;
  afterEach(async () => {
    await gw?.cleanup();
    gw = undefined;
  });

  it('writes a storm state and its record once per slice, shows every acknowledged reading, opens alerts at once', async () => {
    gw = await startTestGateway();
    const db = new Database(join(gw.dataDir, 'gateway.db'));
    db.exec(`
      CREATE TABLE writes (what TEXT);
      CREATE TRIGGER state_written AFTER UPDATE ON rule_state
        WHEN NEW.rule = 'storm-inspection' AND NEW.device_id = 'rg-1'
        BEGIN INSERT INTO writes VALUES ('state'); END;
      CREATE TRIGGER state_added AFTER INSERT ON rule_state
        WHEN NEW.rule = 'storm-inspection' AND NEW.device_id = 'rg-1'
        BEGIN INSERT INTO writes VALUES ('state'); END;
      CREATE TRIGGER storm_written AFTER UPDATE ON storms WHEN NEW.device_id = 'rg-1'
        BEGIN INSERT INTO writes VALUES ('storm'); END;
      CREATE TRIGGER storm_added AFTER INSERT ON storms WHEN NEW.device_id = 'rg-1'
        BEGIN INSERT INTO writes VALUES ('storm'); END;`);
    const writes = (what: string) =>
      (db.prepare('SELECT COUNT(*) AS n FROM writes WHERE what = ?').get(what) as { n: number }).n;
    const health = async () =>
      ((await (await fetch(`${gw!.httpUrl}/api/health`)).json()) as Health).components.find(
        (c) => c.name === 'rules',
      )!.evaluatedUpTo!;
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
        { qos: 1 },
      );
    // Forty tips, below 0.5 in, sent together (in order, on one connection): a storm that grows, no alert.
    await Promise.all(Array.from({ length: 41 }, (_, i) => send(i)));
    const stored = (db.prepare('SELECT MAX(id) AS id FROM readings').get() as { id: number }).id;
    // A look at the storms commits the slice first: the storm shows every tip.
    const storms = (await (
      await fetch(`${gw.httpUrl}/api/storms?siteId=maple-ridge&from=2000-01-01T00:00:00Z`)
    ).json()) as Array<{ deviceId: string; tips: number }>;
    expect(storms.find((s) => s.deviceId === 'rg-1')?.tips).toBe(40);
    expect(await health()).toBe(stored);
    // 41 readings, a few slices (one a second; more only on a very slow machine): far fewer writes than readings.
    expect(writes('state')).toBeGreaterThan(0);
    expect(writes('state')).toBeLessThanOrEqual(10);
    expect(writes('storm')).toBeGreaterThan(0);
    expect(writes('storm')).toBeLessThanOrEqual(10);
    // The 50th tip crosses 0.5 in: its alert is committed with its reading's slice, at once.
    for (let i = 41; i <= 50; i++) await send(i);
    const raised = db.prepare(`SELECT COUNT(*) AS n FROM alerts WHERE rule = 'storm-inspection'`).get() as {
      n: number;
    };
    expect(raised.n).toBe(1);
    await c.endAsync();
    db.close();
  });

  it('sends no reminder of a live storm: a slice carries the time of its commit, not of its first reading', async () => {
    // Due 24 h after the last tip, and a reminder 24 h before the due time: the time of the last tip. A
    // slice that kept the time of its first reading armed that reminder just ahead of itself, at every
    // slice, and it went out at once.
    gw = await startTestGateway({ notify: { reminderHours: [24, 1] } });
    const db = new Database(join(gw.dataDir, 'gateway.db'), { readonly: true });
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    // Live: each tip stamped as it is sent, as a gauge reporting each tip does.
    for (let i = 0; i <= 65; i++)
      await c.publishAsync(
        'sites/maple-ridge/devices/rg-1/telemetry',
        JSON.stringify({ ts: Date.now(), rainTips: i }),
        { qos: 1 },
      );
    // A few slices' commits and ticks later: time passing is the point (no reminder goes out meanwhile).
    await new Promise((r) => setTimeout(r, 2500));
    await fetch(`${gw.httpUrl}/api/alerts`);
    const kinds = db
      .prepare(
        `SELECT kind, COUNT(*) AS n FROM notification_events WHERE rule = 'storm-inspection' GROUP BY kind`,
      )
      .all() as Array<{ kind: string; n: number }>;
    expect(kinds).toEqual([{ kind: 'raise', n: 1 }]);
    await c.endAsync();
    db.close();
  });
});
