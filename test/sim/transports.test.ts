import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { SerialPort } from 'serialport';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFleet } from '../../firmware-sim/src/fleet.ts';
import { demoPassword } from '../../firmware-sim/src/scenario/build.ts';
import { loadScenario } from '../../firmware-sim/src/scenario/load.ts';
import { runScenario } from '../../firmware-sim/src/sim.ts';
import { crc16ccitt } from '../../shared/src/crc16.ts';
import { serialPayloadSchema, telemetryPayloadSchema } from '../../shared/src/telemetry.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startBroker, T0, type TestBroker } from './helpers.ts';

describe('MQTT transport (in-process aedes broker)', () => {
  let b: TestBroker;
  beforeAll(async () => {
    const logins = new Map([
      ['quarry-hill/rg-1', demoPassword('quarry-hill', 'rg-1')],
      ['quarry-hill/trap-1', demoPassword('quarry-hill', 'trap-1')],
    ]);
    b = await startBroker(logins);
  });
  afterAll(async () => {
    await b.close();
  });

  it('logs each device in, keeps status retained, sends the will on an abrupt drop, delivers QoS 1 backlog in order', async () => {
    const watcher = await mqtt.connectAsync(b.url, {
      clientId: 'watcher',
      username: 'quarry-hill/rg-1',
      password: demoPassword('quarry-hill', 'rg-1'),
    });
    // The watcher logs in with a device login only because the test broker authenticates everyone.
    watcher.end(true);
    const statuses: string[] = [];
    const telemetry: { ts: number; seq: number; rainTips: number | undefined }[] = [];
    let bad = 0;
    b.broker.on('publish', (packet) => {
      if (packet.topic === 'sites/quarry-hill/devices/rg-1/status') statuses.push(packet.payload.toString());
      if (packet.topic === 'sites/quarry-hill/devices/rg-1/telemetry') {
        expect(packet.qos).toBe(1);
        const p = JSON.parse(packet.payload.toString());
        if (!telemetryPayloadSchema.safeParse(p).success) bad++;
        telemetry.push({ ts: Date.parse(p.ts), seq: p.seq, rainTips: p.rainTips });
      }
    });
    const run = await runScenario(loadScenario('gauge-offline-during-storm'), {
      start: T0,
      speed: 'step',
      mqtt: { url: b.url },
    });
    expect(run.stats.errors).toBe(0);
    expect(run.stats.acked).toBe(run.stats.sent);
    // online, the last will when the link dies at +12h, online again at +16h, offline at the clean shutdown.
    await waitFor(() => statuses.length >= 4, 5000, 'status changes');
    expect(statuses).toEqual(['online', 'offline', 'online', 'offline']);
    expect(bad).toBe(0);
    const seqs = telemetry.map((t) => t.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i));
    const ts = telemetry.map((t) => t.ts);
    expect([...ts].sort((x, y) => x - y)).toEqual(ts);
    expect(telemetry.at(-1)!.rainTips).toBe(80);
    const inOutage = telemetry.filter((t) => t.ts >= T0 + 12 * 3_600_000 && t.ts < T0 + 16 * 3_600_000);
    expect(inOutage.length).toBeGreaterThan(16);

    // After the run the retained status is what a late subscriber sees.
    const sub = await mqtt.connectAsync(b.url, {
      clientId: 'late',
      username: 'quarry-hill/trap-1',
      password: demoPassword('quarry-hill', 'trap-1'),
    });
    const retained = new Promise<string>((resolve) => sub.on('message', (_t, m) => resolve(m.toString())));
    await sub.subscribeAsync('sites/quarry-hill/devices/rg-1/status', { qos: 1 });
    expect(await retained).toBe('offline');
    await sub.endAsync();
  });

  it('a wrong password is refused', async () => {
    const loaded = loadScenario('storm-0.62in');
    await expect(runScenario(loaded, { start: T0, speed: 'step', mqtt: { url: b.url } })).rejects.toThrow(
      /refused|CONNACK|Not authorized|bad/i,
    );
  });

  it('runFleet drives 2,000 devices over 2 connections and reports a rate', async () => {
    const open = await startBroker();
    try {
      let received = 0;
      open.broker.on('publish', (p, c) => {
        if (c && p.topic.endsWith('/telemetry')) received++;
      });
      const r = await runFleet({
        mqttUrl: open.url,
        devices: 2000,
        durationMs: 1500,
        connections: 2,
        qos: 1,
      });
      expect(r.acked).toBeGreaterThan(2000);
      expect(r.ratePerSec).toBeGreaterThan(500);
      expect(r.errors).toBe(0);
      expect(received).toBeGreaterThanOrEqual(r.acked);
    } finally {
      await open.close();
    }
  });
});

describe.skipIf(!haveBinary('socat'))('serial transport (socat pty pair)', () => {
  let socat: ChildProcess;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sim-serial-'));
    socat = spawn('socat', [`pty,raw,echo=0,link=${dir}/a`, `pty,raw,echo=0,link=${dir}/b`], {
      stdio: 'ignore',
    });
    await waitFor(() => existsSync(`${dir}/a`) && existsSync(`${dir}/b`), 5000, 'socat ptys');
  });
  afterAll(() => {
    socat.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes CRC-framed JSON lines that verify with crc16ccitt and pass the serial schema', async () => {
    const reader = new SerialPort({ path: `${dir}/a`, baudRate: 9600 });
    let buf = '';
    reader.on('data', (chunk: Buffer) => {
      buf += chunk.toString('utf8');
    });
    await new Promise<void>((resolve, reject) => reader.once('open', resolve).once('error', reject));
    const run = await runScenario(loadScenario('float-alarm'), {
      start: T0,
      speed: 'step',
      serialPath: `${dir}/b`,
      allSerial: true,
    });
    await waitFor(() => buf.split('\n').length - 1 >= run.result.messages, 5000, 'all lines');
    await new Promise<void>((resolve) => reader.close(() => resolve()));
    const lines = buf.split('\n').filter(Boolean);
    expect(lines).toHaveLength(run.result.messages);
    for (const line of lines) {
      const m = /^(.*)\*([0-9A-F]{4})$/.exec(line);
      expect(m).not.toBeNull();
      expect(crc16ccitt(m![1]!)).toBe(Number.parseInt(m![2]!, 16));
      const obj = JSON.parse(m![1]!);
      expect(serialPayloadSchema.safeParse(obj).success).toBe(true);
      expect(obj.siteId).toBe('12-oak-lane');
    }
    expect(lines.some((l) => l.includes('"highWater":true'))).toBe(true);
  });
});
