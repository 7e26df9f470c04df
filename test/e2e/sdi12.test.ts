/**
 * SDI-12 end to end: a gateway whose adapter is one end of a socat pair, SDI-12 sensors (the
 * simulator's) on the other. A sediment trap's level sensor reaches the sediment-cleanout alert; a
 * sensor that does not answer is a gap told in words and counted, and the next measurement works; a
 * damaged answer to aMC! is counted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimSdi12Sensors } from '../../firmware-sim/src/transports/sdi12Sensors.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { type PtyPair, startPtyPair } from '../helpers/socat.ts';

const enabled = haveBinary('socat');

type Alert = { rule: string; siteId: string; deviceId?: string; state: string };
type Health = { components: Array<{ name: string; ok: boolean; [k: string]: unknown }> };

describe.runIf(enabled)('SDI-12 through an adapter (socat pseudo-terminals)', () => {
  let gw: TestGateway;
  let pair: PtyPair;
  let sensors: SimSdi12Sensors;
  /** The distance from the sensor down to the sediment, in inches (mounted 36 in above the bottom). */
  let distanceIn = 28;
  let rainIn = 0;

  beforeAll(async () => {
    pair = await startPtyPair();
    sensors = new SimSdi12Sensors({ path: pair.b });
    sensors.add({ address: '0', read: () => [distanceIn, 11.5] });
    sensors.add({
      address: '1',
      read: () => {
        const r = [rainIn, Math.round(rainIn * 100), rainIn, rainIn, 0];
        rainIn = 0;
        return r;
      },
    });
    await sensors.open();
    gw = await startTestGateway({
      sdi12: [{ path: pair.a, timeoutMs: 300 }],
      sites: [
        {
          id: 'maple-ridge',
          kind: 'construction',
          devices: [
            {
              id: 'trap-1',
              kind: 'sediment-trap',
              designDepthIn: 24,
              transport: 'sdi12',
              mountHeightIn: 36,
              profile: {
                name: 'trap-distance',
                label: 'An SDI-12 distance sensor looking down at the sediment',
                source: 'written out for this test',
                kinds: ['sediment-trap'],
                transport: 'sdi12',
                command: 'MC',
                fields: [{ reading: 'sedimentIn', from: { index: 1 }, derive: 'mount-minus' }],
              },
              sdi12: { port: pair.a, address: '0', pollSeconds: 3600 },
            },
            {
              id: 'rg-1',
              kind: 'rain-gauge',
              inchesPerTip: 0.01,
              transport: 'sdi12',
              profile: 'sutron-sdi-tb',
              sdi12: { port: pair.a, address: '1', pollSeconds: 3600 },
            },
          ],
        },
      ],
    });
  });
  afterAll(async () => {
    await gw?.cleanup();
    await sensors?.close();
    await pair?.stop();
  });

  const adapter = async () => {
    const h = (await (await fetch(`${gw.httpUrl}/api/health`)).json()) as Health;
    return h.components.find((c) => c.name === `sdi12:${pair.a}`)!;
  };
  const latest = async (deviceId: string) => {
    const res = await fetch(`${gw.httpUrl}/api/telemetry?siteId=maple-ridge&deviceId=${deviceId}&from=0`);
    return ((await res.json()) as { readings: Array<{ values: Record<string, number> }> }).readings;
  };

  it('a sediment level measured over SDI-12 reaches its sediment-cleanout alert', async () => {
    expect(await gw.measureSdi12()).toEqual(
      expect.arrayContaining([
        { siteId: 'maple-ridge', deviceId: 'trap-1', outcome: 'stored' },
        { siteId: 'maple-ridge', deviceId: 'rg-1', outcome: 'stored' },
      ]),
    );
    const cleanouts = async () =>
      (await (
        await fetch(`${gw.httpUrl}/api/alerts?siteId=maple-ridge&rule=sediment-cleanout`)
      ).json()) as Alert[];
    expect(await cleanouts()).toHaveLength(0);
    expect((await latest('trap-1')).at(-1)!.values).toEqual({ sedimentIn: 8 });

    distanceIn = 22.5; // 13.5 in of sediment: past half of the 24 in design depth
    rainIn = 0.07;
    await gw.measureSdi12();
    const alerts = await waitFor(
      async () => {
        const a = await cleanouts();
        return a.length ? a : undefined;
      },
      10_000,
      'the sediment-cleanout alert',
    );
    expect(alerts).toEqual([expect.objectContaining({ rule: 'sediment-cleanout', deviceId: 'trap-1' })]);
    expect((await latest('rg-1')).at(-1)!.values).toEqual({ rainIn: 0.07 });
  });

  it('a sensor that does not answer is a gap counted in words; the next measurement works', async () => {
    sensors.setSilent('0', true);
    const out = await gw.measureSdi12();
    const trap = out.find((o) => o.deviceId === 'trap-1')!;
    expect(trap.outcome).toBe('noAnswer');
    expect(trap.detail).toMatch(/^The sensor at address 0 on .* did not answer/);
    expect(out.find((o) => o.deviceId === 'rg-1')!.outcome).toBe('stored');
    expect(await adapter()).toMatchObject({ ok: true, noAnswer: 1 });

    sensors.setSilent('0', false);
    const n = (await latest('trap-1')).length;
    const again = await gw.measureSdi12();
    expect(again.find((o) => o.deviceId === 'trap-1')!.outcome).toBe('stored');
    expect(await latest('trap-1')).toHaveLength(n + 1);
  });

  it('a damaged answer to aMC! (a wrong CRC) is counted; damaged at every try, nothing is stored', async () => {
    const before = (await adapter()).badResponse as number;
    sensors.damage('0', 1);
    const once = await gw.measureSdi12();
    expect(once.find((o) => o.deviceId === 'trap-1')!.outcome).toBe('stored');
    expect((await adapter()).badResponse).toBe(before + 1);

    const n = (await latest('trap-1')).length;
    sensors.damage('0', 3);
    const out = await gw.measureSdi12();
    const trap = out.find((o) => o.deviceId === 'trap-1')!;
    expect(trap.outcome).toBe('badResponse');
    expect(trap.detail).toMatch(/damaged on the way/);
    expect((await adapter()).badResponse).toBe(before + 4);
    expect(await latest('trap-1')).toHaveLength(n);
  });
});
