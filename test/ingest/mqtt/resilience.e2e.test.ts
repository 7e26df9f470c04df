import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExternalMqttInput } from '../../../gateway/src/ingest/mqtt/external.ts';
import { Registry } from '../../../gateway/src/metrics.ts';
import { waitFor } from '../../helpers/env.ts';
import { haveMosquitto, type Mosquitto, start } from '../../helpers/mosquitto.ts';
import { client, firstMessage, MemoryLog, RecordingSink, TcpProxy } from './support.ts';

const run = haveMosquitto();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

describe.skipIf(!run)('external MQTT input: broker restarts and gateway crashes', () => {
  let broker: Mosquitto;
  beforeAll(async () => {
    broker = await start();
  });
  afterAll(async () => {
    await broker?.stop();
  });

  it('loses nothing at QoS 1 when the broker restarts (SIGTERM) mid-stream, and resubscribes by itself', async () => {
    await restartMidStream(broker, 3000, 'SIGTERM', 'gw-restart');
  });

  it('loses nothing at QoS 1 when the broker is killed (SIGKILL) with a backlog queued for the gateway', async () => {
    const n = 600;
    const topic = 'sites/s1/devices/kill/telemetry';
    const sink = new RecordingSink();
    // A slow store: one message every 20 ms, however many are in flight, so a backlog is left at the kill.
    let chain = Promise.resolve();
    sink.gate = () => {
      chain = chain.then(() => sleep(20)).then(() => undefined);
      return chain;
    };
    const input = new ExternalMqttInput({
      url: broker.url,
      gatewayId: 'gw-kill',
      metrics: new Registry(),
      log: new MemoryLog(),
      reconnectPeriodMs: 250,
    });
    await input.start(sink);
    const pub = await client(broker.url, { clientId: 'pub-kill', clean: false, reconnectPeriod: 200 });
    pub.on('error', () => undefined);
    const send = (from: number, to: number) =>
      Promise.all(
        Array.from({ length: to - from + 1 }, (_, i) =>
          pub.publishAsync(topic, JSON.stringify({ seq: from + i }), { qos: 1 }),
        ),
      );
    await send(1, n / 2);
    await broker.saved();
    const storedAtKill = sink.stored.length;
    expect(storedAtKill).toBeLessThan(n / 2);
    await broker.restart({ signal: 'SIGKILL', downMs: 200 });
    sink.gate = undefined;
    await send(n / 2 + 1, n);

    const seqs = () => new Set(sink.payloads(topic).map((p) => JSON.parse(p).seq as number));
    const complete = await waitFor(() => seqs().size === n, 20_000, `all ${n} numbers`).then(
      () => true,
      () => false,
    );
    const got = seqs();
    expect(Array.from({ length: n }, (_, i) => i + 1).filter((i) => !got.has(i))).toEqual([]);
    expect(complete).toBe(true);
    await waitFor(() => input.health().ok, 5000, 'the input to be connected and subscribed');
    expect(input.health().reconnects).toBe(1);
    await pub.endAsync();
    await input.stop();
  });

  it('subscribes again after reconnecting to a broker that lost its session', async () => {
    const sink = new RecordingSink();
    const log = new MemoryLog();
    const input = new ExternalMqttInput({
      url: broker.url,
      gatewayId: 'gw-amnesia',
      metrics: new Registry(),
      log,
      reconnectPeriodMs: 200,
    });
    await input.start(sink);
    await broker.restart({ clearPersistence: true });
    await waitFor(() => input.health().reconnects === 1 && input.health().ok, 10_000, 'reconnect');
    const pub = await client(broker.url);
    await pub.publishAsync('sites/s1/devices/amnesia/telemetry', 'after-wipe', { qos: 1 });
    await waitFor(() => sink.payloads().includes('after-wipe'), 5000, 'a message after the session was lost');
    expect(log.lines.some((l) => l.level === 'warn' && l.msg?.includes('no session for this gateway'))).toBe(
      true,
    );
    await pub.endAsync();
    await input.stop();
  });

  it('does not acknowledge a message before the sink has stored it: redelivered after the connection dies', async () => {
    const proxy = new TcpProxy(broker.port);
    await proxy.start();
    const topic = 'sites/s1/devices/slow/telemetry';
    const sink = new RecordingSink();
    let release: (() => void) | undefined;
    let held = false;
    sink.gate = (m) => {
      if (m.payload.toString() === 'slow-1' && !held) {
        held = true;
        return new Promise<void>((r) => {
          release = r;
        });
      }
      return undefined;
    };
    const opts = {
      url: proxy.url,
      gatewayId: 'gw-slow',
      metrics: new Registry(),
      log: new MemoryLog(),
      reconnectPeriodMs: 200,
    };
    const input = new ExternalMqttInput(opts);
    const pub = await client(broker.url);
    try {
      await input.start(sink);
      await pub.publishAsync(topic, 'slow-1', { qos: 1 });
      await pub.publishAsync(topic, 'slow-2', { qos: 1 });
      // slow-2 is stored while slow-1 is held, but its PUBACK waits behind slow-1's (arrival order).
      await waitFor(() => sink.calls.length === 2, 5000, 'the held ingest and the next one');
      // Time for a PUBACK sent too early (slow-2's ahead of slow-1's) to reach the broker before the cut.
      await sleep(200);
      expect(sink.calls.map((m) => m.payload.toString())).toEqual(['slow-1', 'slow-2']);
      expect(sink.payloads(topic)).toEqual(['slow-2']);

      proxy.cut();
      await waitFor(() => sink.payloads(topic).includes('slow-1'), 10_000, 'redelivery after reconnect');
      await waitFor(() => sink.calls.length === 4, 5000, 'both redelivered');
      expect(sink.calls.map((m) => m.payload.toString())).toEqual(['slow-1', 'slow-2', 'slow-1', 'slow-2']);
      expect(sink.payloads(topic)).toEqual(['slow-2', 'slow-1', 'slow-2']);
      await waitFor(() => input.health().reconnects === 1, 5000, 'the reconnect to be counted');

      release?.();
      await waitFor(() => sink.stored.length === 4, 2000, 'the stale ingest to finish');
      await input.stop();

      const again = new ExternalMqttInput({ ...opts, url: broker.url, log: new MemoryLog() });
      const sink2 = new RecordingSink();
      await again.start(sink2);
      await pub.publishAsync(topic, 'slow-3', { qos: 1 });
      await waitFor(() => sink2.payloads(topic).includes('slow-3'), 5000, 'slow-3');
      expect(sink2.payloads(topic)).toEqual(['slow-3']);
      await again.stop();
    } finally {
      await pub.endAsync();
      await input.stop();
      await proxy.stop();
    }
  });

  it('a gateway killed (SIGKILL) before its store committed gets the message again on restart, and its will is published', async () => {
    const topic = 'sites/s1/devices/crash/telemetry';
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/ingest/mqtt/gateway-child.ts'], {
      cwd: repoRoot,
      env: { ...process.env, BROKER_URL: broker.url, GATEWAY_ID: 'gw-crash' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const exited = new Promise((r) => child.once('exit', r));
    try {
      await waitFor(() => out.includes('READY') || child.exitCode !== null, 20_000, 'the child gateway');
      expect(err).toBe('');
      expect(out).toContain('READY');
      const online = await firstMessage(broker.url, 'gateway/gw-crash/status');
      expect(JSON.parse(online.payload).status).toBe('online');

      const pub = await client(broker.url);
      await pub.publishAsync(topic, 'crash-1', { qos: 1 });
      await waitFor(() => out.includes('INGEST crash-1'), 5000, 'the child to receive crash-1');
      child.kill('SIGKILL');
      await exited;

      const will = await firstMessage(broker.url, 'gateway/gw-crash/status');
      expect(will).toEqual({ payload: '{"status":"offline"}', retain: true });

      const sink = new RecordingSink();
      const input = new ExternalMqttInput({
        url: broker.url,
        gatewayId: 'gw-crash',
        metrics: new Registry(),
        log: new MemoryLog(),
      });
      await input.start(sink);
      await pub.publishAsync(topic, 'crash-2', { qos: 1 });
      await waitFor(() => sink.payloads(topic).includes('crash-2'), 5000, 'crash-2');
      expect(sink.payloads(topic)).toEqual(['crash-1', 'crash-2']);
      await pub.endAsync();
      await input.stop();
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});

/**
 * A QoS 1 publisher with a persistent session sends 1..n; once a tenth has reached the sink the
 * broker is stopped with `signal` and started again on the same port. The sink must end up with
 * every number.
 */
async function restartMidStream(broker: Mosquitto, n: number, signal: NodeJS.Signals, gatewayId: string) {
  const topic = `sites/s1/devices/${gatewayId}/telemetry`;
  const sink = new RecordingSink();
  let calls = 0;
  sink.gate = () => (++calls % 10 === 0 ? new Promise<void>((r) => setTimeout(r, 1)) : undefined);
  const metrics = new Registry();
  const input = new ExternalMqttInput({
    url: broker.url,
    gatewayId,
    metrics,
    log: new MemoryLog(),
    reconnectPeriodMs: 250,
  });
  await input.start(sink);

  const pub = await client(broker.url, { clientId: `pub-${gatewayId}`, clean: false, reconnectPeriod: 200 });
  pub.on('error', () => undefined);
  const acks: Promise<unknown>[] = [];
  let restart: Promise<void> | undefined;
  let storedAtRestart = -1;
  for (let i = 1; i <= n; i++) {
    acks.push(pub.publishAsync(topic, JSON.stringify({ seq: i }), { qos: 1 }));
    // The publisher's pace, so that the restart falls in the middle of the stream.
    if (i % 50 === 0) await sleep(2);
    if (!restart && sink.stored.length >= n / 10) {
      storedAtRestart = sink.stored.length;
      restart = broker.restart({ signal, downMs: 200 });
    }
  }
  if (!restart) {
    await waitFor(() => sink.stored.length >= n / 10, 10_000, 'the first tenth at the sink');
    storedAtRestart = sink.stored.length;
    restart = broker.restart({ signal, downMs: 200 });
  }
  await restart;
  const acked = await Promise.allSettled(acks);
  expect(acked.filter((a) => a.status === 'rejected')).toEqual([]);

  const seqs = () => new Set(sink.payloads(topic).map((p) => JSON.parse(p).seq as number));
  const complete = await waitFor(() => seqs().size === n, 30_000, `all ${n} numbers`).then(
    () => true,
    () => false,
  );
  const got = seqs();
  const missing = Array.from({ length: n }, (_, i) => i + 1).filter((i) => !got.has(i));
  expect(missing).toEqual([]);
  expect(complete).toBe(true);
  expect(storedAtRestart).toBeGreaterThan(0);
  expect(storedAtRestart).toBeLessThan(n);

  await waitFor(() => input.health().ok, 5000, 'the input to be connected and subscribed');
  expect(input.health()).toMatchObject({ ok: true, reconnects: 1 });
  expect(metrics.render()).toContain('gateway_mqtt_reconnects_total 1');
  const fresh = await client(broker.url);
  await fresh.publishAsync(`sites/s1/devices/${gatewayId}-fresh/telemetry`, 'after-restart', { qos: 1 });
  await waitFor(() => sink.payloads().includes('after-restart'), 5000, 'a message from a fresh client');
  await fresh.endAsync();
  const status = await firstMessage(broker.url, `gateway/${gatewayId}/status`);
  expect(JSON.parse(status.payload).status).toBe('online');

  await pub.endAsync();
  await input.stop();
}
