import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frameWithCrc } from '../../shared/src/crc16.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { makeTempDir, openPtyWriter, type PtyPair, startPtyPair } from '../helpers/socat.ts';

const enabled = haveBinary('socat');

describe.runIf(enabled)('serial ingest through the gateway (socat pseudo-terminals)', () => {
  let gw: TestGateway;
  let pair: PtyPair;
  let dir: string;
  beforeAll(async () => {
    dir = await makeTempDir('gw-serial-');
    pair = await startPtyPair({ a: `${dir}/gw`, b: `${dir}/dev` });
    gw = await startTestGateway({ serial: [{ path: pair.a, baudRate: 9600, reopenMs: 200 }] });
  });
  afterAll(async () => {
    await gw?.cleanup();
    await pair?.stop();
  });

  const metric = async (name: string) => {
    const text = await (await fetch(`${gw.httpUrl}/metrics`)).text();
    return Number(new RegExp(`^${name.replace(/[{}"]/g, '\\$&')} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  };
  const stored = async (deviceId: string) => {
    const res = await fetch(`${gw.httpUrl}/api/telemetry?siteId=maple-ridge&deviceId=${deviceId}&from=0`);
    return ((await res.json()) as { readings: Array<{ seq?: number }> }).readings;
  };

  it('stores CRC-framed lines and rejects a bad CRC and broken JSON, counting each', async () => {
    const w = await openPtyWriter(pair.b);
    const base = Date.now() - 60_000;
    const line = (seq: number) =>
      JSON.stringify({
        siteId: 'maple-ridge',
        deviceId: 'trap-1',
        ts: base + seq,
        seq,
        sedimentIn: 2 + seq / 10,
      });
    const good = frameWithCrc(line(1));
    const badCrc = `${frameWithCrc(line(2)).slice(0, -4)}${frameWithCrc(line(2)).endsWith('0000') ? '1111' : '0000'}`;
    await w.write(`${good}\r\n${badCrc}\n{"siteId":"maple-ridge",\n${line(3)}\n${frameWithCrc(line(4))}\n`);
    await waitFor(async () => (await stored('trap-1')).length === 3, 10_000, 'three stored serial readings');
    expect((await stored('trap-1')).map((r) => r.seq)).toEqual([1, 3, 4]);
    expect(await metric('gateway_rejections_total{reason="bad_crc"}')).toBe(1);
    expect(await metric('gateway_rejections_total{reason="malformed_json"}')).toBe(1);
    await w.close();
  });

  it('reopens the port after it disappears and comes back, without a restart', async () => {
    await pair.stop();
    await waitFor(
      async () => {
        const h = (await (await fetch(`${gw.httpUrl}/api/health`)).json()) as {
          components: Array<{ name: string; ok: boolean }>;
        };
        return h.components.some((c) => c.name.startsWith('serial:') && !c.ok);
      },
      10_000,
      'health to show the port closed',
    );
    pair = await startPtyPair({ a: `${dir}/gw`, b: `${dir}/dev` });
    await waitFor(
      async () => {
        const h = (await (await fetch(`${gw.httpUrl}/api/health`)).json()) as {
          components: Array<{ name: string; ok: boolean }>;
        };
        return h.components.some((c) => c.name.startsWith('serial:') && c.ok);
      },
      10_000,
      'the port to reopen',
    );
    const w = await openPtyWriter(pair.b);
    await w.write(
      `${frameWithCrc(JSON.stringify({ siteId: 'maple-ridge', deviceId: 'trap-1', seq: 50, sedimentIn: 9 }))}\n`,
    );
    await waitFor(
      async () => (await stored('trap-1')).some((r) => r.seq === 50),
      10_000,
      'a reading after the reopen',
    );
    await w.close();
  });
});
