import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../gateway/src/notify/channels/webhook.ts';
import { childNow, type GatewayProcess, onFixedPorts, spawnGateway } from '../helpers/child.ts';
import { freePort, haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testConfigInput, testHash } from '../helpers/gateway.ts';

const SECRET = 'webhook-secret-for-tests';
type Alert = {
  id: string;
  rule: string;
  status: string;
  overdue: boolean;
  dueAt: string | null;
  raisedAt: string;
};

/** Publishes a storm: a counter baseline, then `tips` tips `stepMs` apart, starting `agoMs` ago. */
async function storm(url: string, tips: number, agoMs = 3 * 3_600_000, stepMs = 60_000) {
  const c = await mqtt.connectAsync(url, {
    clientId: 'maple-ridge/rg-1',
    username: 'maple-ridge/rg-1',
    password: 'pw-rg-1',
  });
  const t0 = Date.now() - agoMs;
  const topic = 'sites/maple-ridge/devices/rg-1/telemetry';
  await c.publishAsync(topic, JSON.stringify({ ts: t0, seq: 0, rainTips: 1000 }), { qos: 1 });
  for (let i = 1; i <= tips; i++)
    await c.publishAsync(topic, JSON.stringify({ ts: t0 + i * stepMs, seq: i, rainTips: 1000 + i }), {
      qos: 1,
    });
  await c.endAsync();
  return t0;
}

describe('readings in, alerts out: MQTT, API, webhook and e-mail', () => {
  let gw: TestGateway;
  let hookServer: Server;
  let smtp: SMTPServer;
  const hooks: Array<{
    headers: Record<string, string | string[] | undefined>;
    body: string;
    valid: boolean;
  }> = [];
  const mails: string[] = [];
  let hookFailures = 1;

  beforeAll(async () => {
    const hookPort = await freePort();
    hookServer = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => {
        body += d;
      });
      req.on('end', () => {
        const valid = verifySignature(
          SECRET,
          req.headers['x-gateway-timestamp'] as string,
          body,
          req.headers['x-gateway-signature'] as string,
        );
        hooks.push({ headers: req.headers, body, valid });
        // The first delivery fails: the gateway must retry it from its outbox.
        if (hookFailures-- > 0) res.writeHead(503).end();
        else res.writeHead(valid ? 204 : 401).end();
      });
    });
    await new Promise<void>((r) => hookServer.listen(hookPort, '127.0.0.1', () => r()));
    const smtpPort = await freePort();
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, _session, cb) {
        let text = '';
        stream.on('data', (d) => {
          text += d;
        });
        stream.on('end', () => {
          mails.push(text);
          cb();
        });
      },
    });
    await new Promise<void>((r) => smtp.listen(smtpPort, '127.0.0.1', () => r()));
    const base = testConfigInput();
    gw = await startTestGateway({
      mqtt: { users: [{ username: 'ops', passwordHash: testHash('pw-ops'), subscribe: ['alerts/#'] }] },
      notify: {
        webhookSecret: SECRET,
        smtp: { host: '127.0.0.1', port: smtpPort, secure: false, from: 'gw@test' },
      },
      sites: base.sites!.map((s) =>
        s.id === 'maple-ridge'
          ? {
              ...s,
              recipients: [
                { role: 'officer', email: 'smo@town.test', webhook: `http://127.0.0.1:${hookPort}/hook` },
              ],
            }
          : s,
      ),
    });
  });
  afterAll(async () => {
    await gw?.cleanup();
    hookServer?.closeAllConnections();
    hookServer?.close();
    await new Promise<void>((r) => smtp?.close(() => r()));
  });

  it('a storm crossing 0.5 in raises one alert, published on MQTT, in the API, by webhook and by e-mail', async () => {
    const watcher = await mqtt.connectAsync(gw.mqttUrl, { username: 'ops', password: 'pw-ops' });
    const published: Array<{ topic: string; event: string; alert: Alert }> = [];
    watcher.on('message', (topic, payload) => published.push({ topic, ...JSON.parse(payload.toString()) }));
    await watcher.subscribeAsync('alerts/#', { qos: 1 });

    // 49 tips of 0.01 in: below the threshold, nothing is raised.
    const t0 = await storm(gw.mqttUrl, 49);
    const before = (await (
      await fetch(`${gw.httpUrl}/api/alerts?siteId=maple-ridge&rule=storm-inspection`)
    ).json()) as Alert[];
    expect(before).toHaveLength(0);

    // The 50th tip crosses 0.5 in.
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    for (let i = 50; i <= 60; i++)
      await c.publishAsync(
        'sites/maple-ridge/devices/rg-1/telemetry',
        JSON.stringify({ ts: t0 + i * 60_000, seq: i, rainTips: 1000 + i }),
        { qos: 1 },
      );
    await c.endAsync();

    const alerts = await waitFor(
      async () => {
        const a = (await (
          await fetch(`${gw.httpUrl}/api/alerts?siteId=maple-ridge&rule=storm-inspection`)
        ).json()) as Alert[];
        return a.length ? a : undefined;
      },
      10_000,
      'the storm alert in the API',
    );
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.raisedAt).toBe(new Date(t0 + 50 * 60_000).toISOString());
    // Due 24 h after the last tip (the storm has not ended yet: the due time follows the last tip).
    expect(alerts[0]!.dueAt).toBe(new Date(t0 + 60 * 60_000 + 24 * 3_600_000).toISOString());

    const raise = await waitFor(
      () => published.find((p) => p.event === 'raise'),
      10_000,
      'the alert on MQTT',
    );
    expect(raise.topic).toBe('alerts/maple-ridge/storm-inspection');
    expect(raise.alert.id).toBe(alerts[0]!.id);
    expect(published.filter((p) => p.event === 'raise')).toHaveLength(1);

    // Webhook: failed once with 503, retried, signed.
    const stormHooks = () => hooks.filter((h) => JSON.parse(h.body).alert?.id === alerts[0]!.id);
    await waitFor(
      () => stormHooks().some((h) => h.headers['x-gateway-event'] === 'raise'),
      60_000,
      'the webhook',
    );
    await waitFor(
      () =>
        hooks.filter((h) => h.headers['x-gateway-delivery'] === hooks[0]!.headers['x-gateway-delivery'])
          .length >= 2,
      30_000,
      'the retry of the delivery that failed',
    );
    expect(hooks.every((h) => h.valid)).toBe(true);
    // The very first delivery got a 503 and was retried with the same delivery id.
    const first = hooks[0]!.headers['x-gateway-delivery'];
    expect(hooks.filter((h) => h.headers['x-gateway-delivery'] === first).length).toBeGreaterThanOrEqual(2);

    const mail = await waitFor(() => mails.find((m) => m.includes('storm-inspection')), 15_000, 'the e-mail');
    expect(mail).toMatch(/To: smo@town\.test/i);
    await watcher.endAsync();
  });
});

describe.runIf(haveBinary('faketime'))('the gateway process killed in the middle of a deadline', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-deadline-'));
  let proc: GatewayProcess | undefined;
  afterAll(async () => {
    await proc?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the deadline: after a kill -9 and restart the alert goes overdue exactly once', async () => {
    const base = testConfigInput();
    // A 40-second inspection deadline, raised on the real clock. The restarted gateways run on a driven
    // clock (libfaketime), so the deadline passes for them without the test waiting it out.
    const {
      config,
      httpUrl: api,
      mqttUrl,
    } = await onFixedPorts(
      {
        ...base,
        sites: base.sites!.map((s) =>
          s.id === 'maple-ridge'
            ? { ...s, storm: { dueHours: 40 / 3600, dueFrom: 'threshold' as const } }
            : s,
        ),
      },
      dir,
    );
    const file = join(dir, 'config.json');
    proc = await spawnGateway(config, file);
    // 55 tips one second apart, ending now: the threshold is crossed ~5 s ago, due ~35 s from now.
    await storm(mqttUrl, 55, 55_000, 1000);
    const [alert] = await waitFor(
      async () => {
        const a = (await (await fetch(`${api}/api/alerts?rule=storm-inspection`)).json()) as Alert[];
        return a.length ? a : undefined;
      },
      10_000,
      'the alert',
    );
    const due = Date.parse(alert!.dueAt!);
    expect(due).toBeGreaterThan(Date.now());
    await proc.kill('SIGKILL');
    // Restarted on a clock ten times as fast: it arms its timer for the deadline, which falls due for it
    // within a few real seconds (or during its start, when the first tick catches up on it).
    proc = await spawnGateway(config, file, {}, { clock: { rate: 10 } });
    await waitFor(
      async () => {
        const a = (await (await fetch(`${api}/api/alerts/${alert!.id}`)).json()) as Alert & {
          history: Array<{ action: string }>;
        };
        return a.overdue && a.history.some((h) => h.action === 'overdue');
      },
      30_000,
      'the overdue flag after the restart',
    );
    // One more restart, a minute after both the due time and the time the fast gateway had reached, must
    // not escalate again: its first tick (the catch-up) has run before the checks.
    const later = Math.max(await childNow(api), due) + 60_000;
    await proc.kill('SIGTERM');
    proc = await spawnGateway(config, file, {}, { clock: { offsetMs: later - Date.now() } });
    expect(await childNow(api)).toBeGreaterThanOrEqual(later - 1000);
    await waitFor(
      async () =>
        Number(
          /gateway_rules_tick_seconds_count (\d+)/.exec(await (await fetch(`${api}/metrics`)).text())?.[1],
        ) >= 1,
      10_000,
      'the first tick after the restart',
    );
    const a = (await (await fetch(`${api}/api/alerts/${alert!.id}`)).json()) as Alert & {
      history: Array<{ action: string }>;
    };
    expect(a.history.filter((h) => h.action === 'overdue')).toHaveLength(1);
    expect(a.history.filter((h) => h.action === 'raised')).toHaveLength(1);
    const all = (await (await fetch(`${api}/api/alerts?rule=storm-inspection`)).json()) as Alert[];
    expect(all).toHaveLength(1);
  }, 150_000);
});
