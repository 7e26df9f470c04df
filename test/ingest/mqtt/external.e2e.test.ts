import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExternalMqttInput } from '../../../gateway/src/ingest/mqtt/external.ts';
import { Registry } from '../../../gateway/src/metrics.ts';
import type { RawMessage } from '../../../gateway/src/pipeline.ts';
import { freePort, haveBinary, waitFor } from '../../helpers/env.ts';
import { haveMosquitto, type Mosquitto, mosquittoProgram, start } from '../../helpers/mosquitto.ts';
import { client, firstMessage, MemoryLog, RecordingSink, TcpProxy } from './support.ts';

const run = haveMosquitto();

describe.skipIf(!run)('external MQTT input against Mosquitto', () => {
  let broker: Mosquitto;
  beforeAll(async () => {
    broker = await start();
  });
  afterAll(async () => {
    await broker?.stop();
  });

  it("takes only its own sites' topics, and a site added live at once, without a restart", async () => {
    const sink = new RecordingSink();
    const input = new ExternalMqttInput({
      url: broker.url,
      gatewayId: 'gw-live-site',
      siteIds: ['own'],
      metrics: new Registry(),
      log: new MemoryLog(),
    });
    await input.start(sink);
    const pub = await client(broker.url);
    try {
      await pub.publishAsync('sites/own/devices/d1/telemetry', '{"seq":1}', { qos: 1 });
      await pub.publishAsync('sites/added/devices/d1/telemetry', '{"seq":1}', { qos: 1 });
      await waitFor(() => sink.payloads('sites/own/devices/d1/telemetry').length === 1, 5000, 'own site');
      // Time passes and nothing comes for the site not added yet.
      await new Promise((r) => setTimeout(r, 300));
      expect(sink.payloads('sites/added/devices/d1/telemetry')).toEqual([]);
      await input.siteAdded('added');
      await pub.publishAsync('sites/added/devices/d1/telemetry', '{"seq":2}', { qos: 1 });
      await waitFor(
        () => sink.payloads('sites/added/devices/d1/telemetry').length === 1,
        5000,
        'the site added live',
      );
      expect(sink.payloads('sites/added/devices/d1/telemetry')).toEqual(['{"seq":2}']);
    } finally {
      await pub.endAsync();
      await input.stop();
    }
  });

  it('delivers QoS 0, QoS 1 and mosquitto_pub messages intact, and device status to the handler and the sink', async () => {
    const topic = 'sites/s1/devices/rg-1/telemetry';
    const pre = await client(broker.url);
    await pre.publishAsync('sites/s1/devices/d0/status', 'offline', { qos: 1, retain: true });

    const sink = new RecordingSink();
    const metrics = new Registry();
    const statuses: [string, string, string, number][] = [];
    const input = new ExternalMqttInput({
      url: broker.url,
      gatewayId: 'gw-deliver',
      metrics,
      log: new MemoryLog(),
      onDeviceStatus: (s, d, st, at) => statuses.push([s, d, st, at]),
    });
    const before = Date.now();
    await input.start(sink);
    expect(input.health()).toMatchObject({ name: 'mqtt', ok: true, detail: broker.url, reconnects: 0 });
    expect(metrics.render()).toContain('gateway_mqtt_connected 1');
    await waitFor(() => statuses.some((s) => s[1] === 'd0'), 5000, 'retained device status');
    expect(statuses.find((s) => s[1] === 'd0')?.slice(0, 3)).toEqual(['s1', 'd0', 'offline']);

    const binary = Buffer.from([0x7b, 0x00, 0xff, 0x0a, 0xc3, 0xa9, 0x7d]);
    await pre.publishAsync(topic, '{"seq":1,"rainTips":3}', { qos: 0 });
    await pre.publishAsync(topic, binary, { qos: 1 });
    execFileSync(mosquittoProgram('mosquitto_pub')!, [
      '-h',
      '127.0.0.1',
      '-p',
      String(broker.port),
      '-q',
      '1',
      '-t',
      'sites/s1/devices/rg-2/telemetry',
      '-m',
      '{"seq":3,"ts":"2024-05-01T12:00:00Z"}',
    ]);
    await pre.publishAsync('sites/s1/devices/rg-1/status', 'online', { qos: 1, retain: true });
    await pre.publishAsync('sites/s2/devices/rg-9/status', '{"status":"offline","ts":1714564800000}', {
      qos: 1,
    });

    await waitFor(() => sink.stored.length >= 6, 5000, 'six messages at the sink');
    const byPayload = (p: string) => sink.stored.find((m) => m.payload.toString() === p);
    expect(byPayload('{"seq":1,"rainTips":3}')).toMatchObject({ transport: 'mqtt', topic });
    const bin = sink.stored.find((m) => Buffer.isBuffer(m.payload) && m.payload.equals(binary));
    expect(bin?.topic).toBe(topic);
    expect(byPayload('{"seq":3,"ts":"2024-05-01T12:00:00Z"}')?.topic).toBe('sites/s1/devices/rg-2/telemetry');
    for (const m of sink.stored) {
      expect(m.receivedAt).toBeGreaterThanOrEqual(before);
      expect(m.receivedAt).toBeLessThanOrEqual(Date.now());
    }
    expect(sink.payloads('sites/s1/devices/rg-1/status')).toEqual(['online']);
    expect(statuses).toContainEqual(['s1', 'rg-1', 'online', expect.any(Number)]);
    expect(statuses).toContainEqual(['s2', 'rg-9', 'offline', 1714564800000]);
    const text = metrics.render();
    expect(text).toContain('gateway_mqtt_messages_total{kind="telemetry"} 3');
    expect(text).toContain('gateway_mqtt_messages_total{kind="status"} 3');

    await pre.publishAsync('sites/s1/devices/d0/status', '', { qos: 1, retain: true });
    await pre.publishAsync('sites/s1/devices/rg-1/status', '', { qos: 1, retain: true });
    await pre.endAsync();
    await input.stop();
  });

  it('hands messages to the sink many at once, in arrival order', async () => {
    const sink = new RecordingSink();
    let active = 0;
    let maxActive = 0;
    sink.gate = () => {
      active++;
      maxActive = Math.max(maxActive, active);
      return new Promise<void>((r) =>
        setTimeout(() => {
          active--;
          r();
        }, 2),
      );
    };
    const input = new ExternalMqttInput({
      url: broker.url,
      gatewayId: 'gw-order',
      metrics: new Registry(),
      log: new MemoryLog(),
    });
    await input.start(sink);
    const pub = await client(broker.url);
    const topic = 'sites/s1/devices/order/telemetry';
    await Promise.all(
      Array.from({ length: 100 }, (_, i) => pub.publishAsync(topic, JSON.stringify({ seq: i }), { qos: 1 })),
    );
    await waitFor(() => sink.payloads(topic).length === 100, 10_000, '100 messages');
    expect(sink.calls.filter((m) => m.topic === topic).map((m) => JSON.parse(String(m.payload)).seq)).toEqual(
      Array.from({ length: 100 }, (_, i) => i),
    );
    expect(maxActive).toBeGreaterThan(1);
    await pub.endAsync();
    await input.stop();
  });

  it('announces itself online (retained), publishes its last will when the connection dies, and recovers', async () => {
    const proxy = new TcpProxy(broker.port);
    await proxy.start();
    const log = new MemoryLog();
    const metrics = new Registry();
    const sink = new RecordingSink();
    const input = new ExternalMqttInput({
      url: proxy.url,
      gatewayId: 'gw-will',
      metrics,
      log,
      reconnectPeriodMs: 300,
    });
    const statusTopic = 'gateway/gw-will/status';
    try {
      await input.start(sink);
      const online = await firstMessage(broker.url, statusTopic);
      expect(online.retain).toBe(true);
      expect(JSON.parse(online.payload)).toMatchObject({ status: 'online' });
      expect(Number.isNaN(Date.parse(JSON.parse(online.payload).ts))).toBe(false);

      const watcher = await client(broker.url);
      const seen: string[] = [];
      watcher.on('message', (_t, p) => seen.push(p.toString()));
      await watcher.subscribeAsync(statusTopic, { qos: 1 });
      await waitFor(() => seen.length === 1, 5000, 'retained status');

      proxy.refuse = true;
      proxy.cut();
      await waitFor(() => seen.includes('{"status":"offline"}'), 5000, 'the last will');
      const retained = await firstMessage(broker.url, statusTopic);
      expect(retained).toEqual({ payload: '{"status":"offline"}', retain: true });
      await waitFor(() => input.health().ok === false, 2000, 'health to turn false');
      expect(metrics.render()).toContain('gateway_mqtt_connected 0');

      proxy.refuse = false;
      await waitFor(() => input.health().ok, 10_000, 'reconnect');
      expect(input.health().reconnects).toBe(1);
      await waitFor(() => JSON.parse(seen.at(-1)!).status === 'online', 5000, 'online again');
      const pub = await client(broker.url);
      await pub.publishAsync('sites/s1/devices/after/telemetry', 'after-cut', { qos: 1 });
      await waitFor(() => sink.payloads().includes('after-cut'), 5000, 'message after reconnect');
      await pub.endAsync();
      await watcher.endAsync();

      const t = metrics.render();
      expect(t).toContain('gateway_mqtt_reconnects_total 1');
      expect(t).toContain('gateway_mqtt_connected 1');
      const lost = log.lines.filter((l) => l.msg?.includes('connection to the broker lost'));
      const back = log.lines.filter((l) => l.msg?.includes('reconnected'));
      expect(lost).toHaveLength(1);
      expect(back).toHaveLength(1);
    } finally {
      await input.stop();
      await proxy.stop();
    }
  });

  it('keeps a message unacknowledged and retries while the store fails, then stores it once', async () => {
    const topic = 'sites/s1/devices/flaky/telemetry';
    const sink = new RecordingSink();
    let failures = 2;
    sink.gate = () => (failures-- > 0 ? Promise.reject(new Error('disk I/O error')) : undefined);
    const metrics = new Registry();
    const log = new MemoryLog();
    const opts = { url: broker.url, gatewayId: 'gw-flaky', metrics, log };
    const input = new ExternalMqttInput(opts);
    await input.start(sink);
    const pub = await client(broker.url);
    await pub.publishAsync(topic, 'flaky-1', { qos: 1 });
    await waitFor(() => input.health().ok === false, 2000, 'health to report the failing store');
    expect(String(input.health().ingestError)).toContain('disk I/O error');
    await waitFor(() => sink.payloads(topic).length === 1, 5000, 'the message once the store works');
    expect(sink.calls).toHaveLength(3);
    expect(input.health().ok).toBe(true);
    expect(metrics.render()).toContain('gateway_mqtt_ingest_errors_total 2');
    expect(log.lines.filter((l) => l.level === 'error')).toHaveLength(1);
    await input.stop();

    const again = new ExternalMqttInput({ ...opts, metrics: new Registry() });
    const sink2 = new RecordingSink();
    await again.start(sink2);
    await pub.publishAsync(topic, 'flaky-2', { qos: 1 });
    await waitFor(() => sink2.payloads(topic).includes('flaky-2'), 5000, 'flaky-2');
    expect(sink2.payloads(topic)).toEqual(['flaky-2']);
    await pub.endAsync();
    await again.stop();
  });

  it('publishes as the gateway when connected, and refuses at once when not', async () => {
    const input = new ExternalMqttInput({
      url: broker.url,
      gatewayId: 'gw-pub',
      metrics: new Registry(),
      log: new MemoryLog(),
    });
    await expect(input.publish('alerts/s1/storm-inspection', '{}')).rejects.toThrow(/not connected/);
    await input.start(new RecordingSink());
    const watcher = await client(broker.url);
    const seen: string[] = [];
    watcher.on('message', (t, p) => seen.push(`${t} ${p.toString()}`));
    await watcher.subscribeAsync('alerts/#', { qos: 1 });
    await input.publish('alerts/s1/storm-inspection', '{"event":"raised"}', { qos: 1 });
    await waitFor(() => seen.length === 1, 5000, 'the alert');
    expect(seen).toEqual(['alerts/s1/storm-inspection {"event":"raised"}']);
    await watcher.endAsync();
    await input.stop();
    await expect(input.publish('alerts/s1/storm-inspection', '{}')).rejects.toThrow(/not connected/);
  });

  it('publishes offline (retained) on a clean stop', async () => {
    const metrics = new Registry();
    const input = new ExternalMqttInput({
      url: broker.url,
      gatewayId: 'gw-stop',
      metrics,
      log: new MemoryLog(),
    });
    await input.start(new RecordingSink());
    await input.stop();
    const msg = await firstMessage(broker.url, 'gateway/gw-stop/status');
    expect(msg.retain).toBe(true);
    const body = JSON.parse(msg.payload);
    expect(body.status).toBe('offline');
    expect(typeof body.ts).toBe('string');
    expect(input.health().ok).toBe(false);
    expect(metrics.render()).toContain('gateway_mqtt_connected 0');
    await input.stop();
  });

  it('starts while the broker is down, reports not ok, and connects when it comes up', async () => {
    const port = await freePort();
    const log = new MemoryLog();
    const sink = new RecordingSink();
    const input = new ExternalMqttInput({
      url: `mqtt://127.0.0.1:${port}`,
      gatewayId: 'gw-late',
      metrics: new Registry(),
      log,
      startTimeoutMs: 400,
      reconnectPeriodMs: 150,
      maxReconnectPeriodMs: 400,
    });
    const t0 = Date.now();
    await input.start(sink);
    expect(Date.now() - t0).toBeLessThan(3000);
    const h = input.health();
    expect(h.ok).toBe(false);
    expect(String(h.lastError)).toMatch(/ECONNREFUSED/);
    // The broker stays down through a few more refused reconnects (warned of once, below).
    await new Promise((r) => setTimeout(r, 600));
    const late = await start({ port });
    try {
      await waitFor(() => input.health().ok, 10_000, 'connection once the broker is up');
      const pub = await client(late.url);
      await pub.publishAsync('sites/s1/devices/late/telemetry', 'late', { qos: 1 });
      await waitFor(() => sink.payloads().includes('late'), 5000, 'message');
      await pub.endAsync();
      const refusedWarnings = log.lines.filter(
        (l) => l.msg === 'mqtt-external: connection error' && l.level === 'warn',
      );
      expect(refusedWarnings).toHaveLength(1);
    } finally {
      await input.stop();
      await late.stop();
    }
  });
});

describe.skipIf(!run || !mosquittoProgram('mosquitto_passwd'))(
  'external MQTT input with broker logins',
  () => {
    let broker: Mosquitto;
    beforeAll(async () => {
      broker = await start({ users: { 'gw-auth': 'Right-Secret-123' } });
    });
    afterAll(async () => {
      await broker?.stop();
    });

    it('rejects start() when the broker refuses the password, without logging it', async () => {
      const log = new MemoryLog();
      const input = new ExternalMqttInput({
        url: broker.url,
        gatewayId: 'gw-auth',
        username: 'gw-auth',
        password: 'Wrong-Secret-456',
        metrics: new Registry(),
        log,
        startTimeoutMs: 5000,
      });
      const t0 = Date.now();
      await expect(input.start(new RecordingSink())).rejects.toThrow(
        /Bad User Name or Password|Not authorized/i,
      );
      expect(Date.now() - t0).toBeLessThan(4000);
      expect(log.text()).not.toContain('Wrong-Secret-456');
      expect(JSON.stringify(input.health())).not.toContain('Wrong-Secret-456');
    });

    it('logs in with credentials in the url and never shows them', async () => {
      const log = new MemoryLog();
      const sink = new RecordingSink();
      const url = `mqtt://gw-auth:Right-Secret-123@127.0.0.1:${broker.port}`;
      const input = new ExternalMqttInput({ url, gatewayId: 'gw-auth', metrics: new Registry(), log });
      await input.start(sink);
      const h = input.health();
      expect(h.ok).toBe(true);
      expect(h.detail).toBe(`mqtt://127.0.0.1:${broker.port}`);
      const pub = await client(broker.url, {
        username: 'gw-auth',
        password: 'Right-Secret-123',
        clientId: 'pub-auth',
      });
      await pub.publishAsync('sites/s1/devices/a/telemetry', 'x', { qos: 1 });
      await waitFor(() => sink.stored.length === 1, 5000, 'message');
      await pub.endAsync();
      await input.stop();
      expect(log.text()).not.toContain('Right-Secret-123');
      expect(JSON.stringify(input.health())).not.toContain('Right-Secret-123');
      expect((sink.stored[0] as RawMessage).payload.toString()).toBe('x');
    });
  },
);

describe.skipIf(!run || !haveBinary('openssl'))('external MQTT input over TLS', () => {
  let broker: Mosquitto;
  let dir: string;
  let ca: Buffer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mqtt-tls-'));
    const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    ssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=test-ca',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
    );
    ssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
    );
    writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
    ssl(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      'san.ext',
      '-out',
      'server.pem',
    );
    ca = readFileSync(join(dir, 'ca.pem'));
    broker = await start({ tls: { certFile: join(dir, 'server.pem'), keyFile: join(dir, 'server.key') } });
  });
  afterAll(async () => {
    await broker?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('connects with the CA given and receives messages', async () => {
    const sink = new RecordingSink();
    const input = new ExternalMqttInput({
      url: broker.url,
      gatewayId: 'gw-tls',
      ca,
      metrics: new Registry(),
      log: new MemoryLog(),
    });
    await input.start(sink);
    expect(input.health()).toMatchObject({ ok: true, detail: broker.url });
    const pub = await client(broker.url, { ca });
    await pub.publishAsync('sites/s1/devices/tls/telemetry', 'over-tls', { qos: 1 });
    await waitFor(() => sink.payloads().includes('over-tls'), 5000, 'message over TLS');
    await pub.endAsync();
    await input.stop();
  });

  it('rejects start() at once when the broker certificate is not trusted', async () => {
    const input = new ExternalMqttInput({
      url: broker.url,
      gatewayId: 'gw-tls-bad',
      metrics: new Registry(),
      log: new MemoryLog(),
      startTimeoutMs: 10_000,
    });
    const t0 = Date.now();
    await expect(input.start(new RecordingSink())).rejects.toThrow(/certificate/i);
    expect(Date.now() - t0).toBeLessThan(5000);
  });
});
