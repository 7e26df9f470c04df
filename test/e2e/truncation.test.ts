/**
 * A hidden truncation never audits green. In a copy of a stopped gateway's data directory the newest
 * readings, the log's tail from their entries and the signed checkpoints above the cut are deleted, so the
 * store agrees with itself; the gateway started on it (its own process) must say so in /api/health:
 * - with an off-box copy it can read back (an external Mosquitto's retained checkpoint, InfluxDB 1.6.7,
 *   a witness that answers with its latest checkpoint): red, the store was truncated;
 * - with none that it can read back (the embedded broker only, InfluxDB 2 through VictoriaMetrics, which
 *   keeps no string field and answers no Flux query): that a truncation of the tail cannot be ruled out.
 * The untouched copy under the same configuration stays green and says the tail is covered.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointTopic } from '../../gateway/src/evidence/publishers.ts';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { freePort, haveBinary, waitFor } from '../helpers/env.ts';
import { T } from '../helpers/faults.ts';
import { testConfigInput } from '../helpers/gateway.ts';
import { startInfluxd } from '../helpers/influxd.ts';
import { haveMosquitto, type Mosquitto, start as startMosquitto } from '../helpers/mosquitto.ts';
import { truncateTail } from '../helpers/tamper.ts';
import { startVictoria } from '../helpers/victoria.ts';

interface Evidence {
  ok: boolean;
  detail: string;
  size: number;
  audit: string;
  tail: string;
  offBox: Array<{ name: string; state: string; size?: number }>;
  problems?: Array<{ kind: string; reason: string }>;
}

const evidenceOf = async (gw: GatewayChild): Promise<Evidence> => {
  const h = (await (await fetch(`${gw.httpUrl}/api/health`)).json()) as { components: Evidence[] };
  return h.components.find((c) => (c as { name?: string }).name === 'evidence')!;
};

/** The evidence report once the start-up audit and the read-back of the off-box copies are done. */
const settled = (gw: GatewayChild) =>
  waitFor(
    async () => {
      const e = await evidenceOf(gw);
      return e.audit === 'done' && e.tail !== 'checking' ? e : undefined;
    },
    120_000,
    'the start-up audit to finish',
  );

const base = mkdtempSync(join(tmpdir(), 'truncation-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/**
 * Runs a gateway on a fresh data directory with `config`, publishes `n` readings through `publish`,
 * waits until `offBoxHolds(size)` says the copy off the box holds a checkpoint of the whole log, stops it,
 * and returns the directory.
 */
async function original(
  name: string,
  config: Record<string, unknown>,
  offBoxHolds: (size: number) => Promise<boolean>,
  brokerUrl?: string,
): Promise<string> {
  const dataDir = join(base, name, 'original');
  const gw = await startGatewayChild(config, { dataDir });
  try {
    const c = await mqtt.connectAsync(brokerUrl ?? gw.mqttUrl, {
      clientId: 'maple-ridge/rg-2',
      username: 'maple-ridge/rg-2',
      password: 'pw-rg-2',
      reconnectPeriod: 0,
    });
    const t0 = Date.now() - 3_600_000;
    for (let i = 0; i < 12; i++)
      await c.publishAsync(T('rg-2'), JSON.stringify({ seq: i, ts: t0 + i * 60_000, rainTips: 0 }), {
        qos: 1,
      });
    await c.endAsync();
    const e = await waitFor(
      async () => {
        const h = (await (await fetch(`${gw.httpUrl}/api/health`)).json()) as {
          components: Array<{ name: string; readings?: number }>;
        };
        const stored = h.components.find((x) => x.name === 'store')?.readings ?? 0;
        return stored >= 12 ? evidenceOf(gw) : undefined;
      },
      30_000,
      'the readings to be stored',
    );
    await waitFor(() => offBoxHolds(e.size), 30_000, 'the checkpoint of the whole log off the box');
  } finally {
    await gw.stop();
  }
  return dataDir;
}

/** Copies of the original: one untouched, one with its newest 5 readings and the log's tail cut off. */
function copies(dir: string): { untouched: string; truncated: string; cut: number } {
  const untouched = join(dir, '..', 'untouched');
  const truncated = join(dir, '..', 'truncated');
  cpSync(dir, untouched, { recursive: true });
  cpSync(dir, truncated, { recursive: true });
  return { untouched, truncated, cut: truncateTail(truncated, 5) };
}

async function healthOn(dataDir: string, config: Record<string, unknown>): Promise<Evidence> {
  const gw = await startGatewayChild(config, { dataDir });
  try {
    return await settled(gw);
  } finally {
    await gw.stop();
  }
}

const CHECKPOINTS = { evidence: { checkpointIntervalSeconds: 1 } };

describe.runIf(haveMosquitto())('a hidden truncation, with an external broker keeping the checkpoint', () => {
  let broker: Mosquitto;
  beforeAll(async () => {
    broker = await startMosquitto();
  });
  afterAll(async () => broker?.stop());

  it('is flagged red at the next start; the untouched copy is green with its tail covered', async () => {
    const config = {
      ...testConfigInput(),
      ...CHECKPOINTS,
      gatewayId: 'trunc-mqtt',
      mqtt: { url: broker.url },
    };
    const retainedSize = async () => {
      const c = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
      try {
        const got = new Promise<string>((r) => c.on('message', (_t, p) => r(p.toString())));
        await c.subscribeAsync(checkpointTopic('trunc-mqtt'), { qos: 1 });
        const note = await Promise.race([got, new Promise<string>((r) => setTimeout(() => r(''), 1000))]);
        return Number(note.split('\n')[1] ?? 0);
      } finally {
        await c.endAsync(true);
      }
    };
    const dir = await original('mqtt', config, async (size) => (await retainedSize()) >= size, broker.url);
    const { untouched, truncated, cut } = copies(dir);

    const bad = await healthOn(truncated, config);
    expect(bad.size).toBeGreaterThanOrEqual(cut);
    expect(bad.ok, bad.detail).toBe(false);
    expect(bad.detail).toMatch(/published checkpoint \(mqtt\).*truncated/);
    // The gateway did not overwrite the retained checkpoint that shows the truncation.
    expect(await retainedSize()).toBeGreaterThan(cut);

    const good = await healthOn(untouched, config);
    expect(good.ok, good.detail).toBe(true);
    expect(good.tail).toBe('ruled-out');
    expect(good.detail).toMatch(
      /the store matches its evidence log, and it holds all .* on the external MQTT broker/,
    );
  }, 240_000);
});

describe.runIf(haveBinary('influxd'))('a hidden truncation, with InfluxDB 1.x keeping the checkpoint', () => {
  it('is flagged red at the next start; the untouched copy is green with its tail covered', async () => {
    const influx = await startInfluxd();
    try {
      const config = {
        ...testConfigInput(),
        ...CHECKPOINTS,
        gatewayId: 'trunc-influx',
        influx: { url: influx.url, db: 'gateway', flushIntervalMs: 50 },
      };
      const dir = await original('influx', config, async (size) => {
        const rows = await influx.select(`SELECT last(size) FROM checkpoints WHERE gateway = 'trunc-influx'`);
        return Number(rows[0]?.last ?? 0) >= size;
      });
      const { untouched, truncated } = copies(dir);
      const bad = await healthOn(truncated, config);
      expect(bad.ok, bad.detail).toBe(false);
      expect(bad.detail).toMatch(/published checkpoint \(influxdb\).*truncated/);
      const good = await healthOn(untouched, config);
      expect(good.ok, good.detail).toBe(true);
      expect(good.tail).toBe('ruled-out');
      expect(good.detail).toMatch(/on InfluxDB/);
    } finally {
      await influx.stop();
    }
  }, 240_000);
});

describe('a hidden truncation, with a witness that answers with its latest checkpoint', () => {
  let witness: Server;
  let latest: string | undefined;
  let url = '';
  beforeAll(async () => {
    witness = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => {
        body += d;
      });
      req.on('end', () => {
        if (req.method === 'POST') {
          latest = (JSON.parse(body) as { checkpoint: string }).checkpoint;
          res.writeHead(204).end();
        } else if (latest) res.writeHead(200, { 'content-type': 'text/plain' }).end(latest);
        else res.writeHead(404).end();
      });
    });
    const port = await freePort();
    await new Promise<void>((r) => witness.listen(port, '127.0.0.1', r));
    url = `http://127.0.0.1:${port}/checkpoints`;
  });
  afterAll(() => new Promise<void>((r) => witness.close(() => r())));

  it('is flagged red at the next start', async () => {
    const config = {
      ...testConfigInput(),
      gatewayId: 'trunc-witness',
      notify: { webhookSecret: 'witness-secret-0123456789' },
      evidence: { checkpointIntervalSeconds: 1, witnesses: [{ url, latestUrl: `${url}/latest` }] },
    };
    const dir = await original('witness', config, async (size) => Number(latest?.split('\n')[1]) >= size);
    const { untouched, truncated } = copies(dir);
    const bad = await healthOn(truncated, config);
    expect(bad.ok, bad.detail).toBe(false);
    expect(bad.detail).toMatch(/published checkpoint \(witness 127\.0\.0\.1:\d+\).*truncated/);
    const good = await healthOn(untouched, config);
    expect(good.ok, good.detail).toBe(true);
    expect(good.tail).toBe('ruled-out');
  }, 240_000);
});

describe('a hidden truncation, with no copy off the box the gateway can read back', () => {
  it('embedded broker only: health says in plain words that a truncation cannot be ruled out', async () => {
    const config = { ...testConfigInput(), ...CHECKPOINTS, gatewayId: 'trunc-none' };
    const dir = await original('none', config, async () => true);
    const { truncated } = copies(dir);
    const e = await healthOn(truncated, config);
    expect(e.tail).toBe('not-ruled-out');
    expect(e.detail).not.toMatch(/^the store matches its log$/);
    expect(e.detail).toMatch(
      /a truncation of its newest entries cannot be ruled out: no copy of its checkpoints is kept off this box/,
    );
  }, 240_000);

  it.runIf(haveBinary('victoria-metrics'))(
    'InfluxDB 2 (VictoriaMetrics): it takes the checkpoints but cannot give them back, and health says so',
    async () => {
      const vm = await startVictoria();
      try {
        const config = {
          ...testConfigInput(),
          ...CHECKPOINTS,
          gatewayId: 'trunc-v2',
          influx: { url: vm.url, org: 'town', bucket: 'gateway', token: 'unused', flushIntervalMs: 50 },
        };
        const dir = await original('v2', config, async (size) => {
          await vm.forceFlush();
          const s = await vm.exportSeries('{__name__="checkpoints_size",gateway="trunc-v2"}');
          return (s[0]?.values ?? []).some((v) => v >= size);
        });
        // What VictoriaMetrics kept of the checkpoints: the size, but the signed note (a string field) as 0.
        const notes = await vm.exportSeries('{__name__="checkpoints_note",gateway="trunc-v2"}');
        expect(notes.flatMap((n) => n.values).every((v) => v === 0)).toBe(true);
        const { truncated } = copies(dir);
        const e = await healthOn(truncated, config);
        expect(e.tail).toBe('not-ruled-out');
        expect(e.detail).toMatch(
          /a truncation of its newest entries cannot be ruled out: InfluxDB 2 takes every checkpoint but cannot be read back/,
        );
      } finally {
        await vm.stop();
      }
    },
    240_000,
  );
});
