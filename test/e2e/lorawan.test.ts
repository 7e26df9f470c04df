/**
 * LoRaWAN through the gateway: one storm sent three ways to three construction sites — as the gateway's
 * own JSON, as ChirpStack v4 uplinks (every one published twice, as when two network gateways heard the
 * frame or the broker delivered it again), and as The Things Stack v3 uplinks whose frame counter goes
 * back to 0 mid-storm (the device joined again, twice) — gives the same readings, the same storm and the same
 * storm-inspection duty. The ChirpStack gauge's link (GET …/link) is then read back: its last uplink as
 * sent beside its readings, a frame too short for its profile refused in words, its counts. Mosquitto
 * stands in for both network servers' brokers.
 */
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chirpstackUplink,
  encodeThroughProfile,
  thingsStackUplink,
} from '../../firmware-sim/src/transports/lorawanUplink.ts';
import { draginoLsn50v2Count } from '../../gateway/src/decode/profiles/library/dragino-lsn50v2-count.ts';
import type { DeviceLink } from '../../shared/src/api/deviceLink.ts';
import { waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testConfigInput, testHash } from '../helpers/gateway.ts';
import { haveMosquitto, type Mosquitto, start } from '../helpers/mosquitto.ts';

const run = haveMosquitto();
const MIN = 60_000;
const APP = '0b5a9c1e-8d21-4f7e-9a3c-5e2d7f6b1a40';
const TTS_APP = 'chester-gauges@ttn';
const CS_EUI = 'a840410000000001';
const TTS_EUI = 'a840410000000002';

/** Half an hour dry, a storm of 0.63 in over 105 min, an hour dry; a reading every 5 min. */
function readings(end: number): Array<{ ts: number; rainTips: number }> {
  const out: Array<{ ts: number; rainTips: number }> = [];
  let tips = 500;
  for (let i = 0; i < 40; i++) {
    if (i >= 6 && i < 27) tips += 3;
    out.push({ ts: end - (39 - i) * 5 * MIN, rainTips: tips });
  }
  return out;
}

const gauge = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  kind: 'rain-gauge' as const,
  inchesPerTip: 0.01,
  ...extra,
});
const site = (id: string, device: ReturnType<typeof gauge>) => ({
  id,
  kind: 'construction' as const,
  storm: { settleMinutes: 0.05 },
  devices: [device],
});

describe.skipIf(!run)('LoRaWAN uplinks through the gateway (ChirpStack, The Things Stack)', () => {
  let broker: Mosquitto;
  let gw: TestGateway;
  const rs = readings(Date.now() - 30 * MIN);
  /** The last ChirpStack uplink of the stream, as published. */
  let lastCs = '';

  beforeAll(async () => {
    broker = await start();
    gw = await startTestGateway({
      ingest: { deviceRatePerSec: 10_000, deviceBurst: 10_000 },
      integrations: {
        chirpstack: { url: broker.url, applications: [APP] },
        thingsStack: { url: broker.url, applications: [TTS_APP] },
      },
      sites: [
        site('maple-ridge', gauge('rg-1', { passwordHash: testHash('pw-rg-1') })),
        site(
          'birch-hill',
          gauge('rg-cs', { transport: 'lorawan', devEui: CS_EUI, profile: 'dragino-lsn50v2-count' }),
        ),
        site(
          'cedar-court',
          gauge('rg-tts', { transport: 'lorawan', devEui: TTS_EUI, profile: 'dragino-lsn50v2-count' }),
        ),
        testConfigInput().sites![1]!,
      ],
    });
    const device = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    const ns = await mqtt.connectAsync(broker.url, { clientId: 'network-servers' });
    for (const [i, r] of rs.entries()) {
      await device.publishAsync(
        'sites/maple-ridge/devices/rg-1/telemetry',
        JSON.stringify({ ...r, seq: i }),
        {
          qos: 1,
        },
      );
      const enc = encodeThroughProfile(draginoLsn50v2Count, { rainTips: r.rainTips, batteryV: 3.3 });
      const frame = { ...enc, time: r.ts, fCnt: i };
      const cs = chirpstackUplink({ ...frame, devEui: CS_EUI, deviceName: 'rg-cs', application: APP }, 2);
      // Heard by two network gateways and delivered twice: one reading.
      await ns.publishAsync(cs.topic, cs.payload, { qos: 1 });
      await ns.publishAsync(cs.topic, cs.payload, { qos: 1 });
      lastCs = cs.payload;
      // Mid-storm the device joins again, twice within ten minutes (frames 10 and 12): each time its
      // frame counter starts at 0 again, and frames 12 and 13 repeat the counters of frames 10 and 11.
      const fCnt = i < 10 ? 100 + i : i < 12 ? i - 10 : i - 12;
      const tts = thingsStackUplink({
        ...frame,
        fCnt,
        devEui: TTS_EUI,
        deviceName: 'rg-tts',
        application: TTS_APP,
      });
      await ns.publishAsync(tts.topic, tts.payload, { qos: 1 });
    }
    await device.endAsync();
    await ns.endAsync();
  }, 60_000);
  afterAll(async () => {
    await gw?.cleanup();
    await broker?.stop();
  });

  const readingsOf = async (siteId: string, deviceId: string) =>
    (
      (await (
        await fetch(`${gw.httpUrl}/api/telemetry?siteId=${siteId}&deviceId=${deviceId}&from=0`)
      ).json()) as { readings: Array<{ ts: string; values: Record<string, number> }> }
    ).readings ?? [];
  const storms = async (siteId: string) =>
    (
      (await (await fetch(`${gw.httpUrl}/api/storms?siteId=${siteId}&from=0`)).json()) as Array<
        Record<string, unknown>
      >
    ).map(({ start, end, tips, inches, qualified, thresholdAt, dueAt }) => ({
      start,
      end,
      tips,
      inches,
      qualified,
      thresholdAt,
      dueAt,
    }));
  const duties = async (siteId: string) =>
    (
      (await (
        await fetch(`${gw.httpUrl}/api/alerts?siteId=${siteId}&rule=storm-inspection`)
      ).json()) as Array<Record<string, unknown>>
    ).map(({ status, raisedAt, dueAt }) => ({ status, raisedAt, dueAt }));

  it('stores every frame once: duplicates dropped, frames after a counter reset kept', async () => {
    await waitFor(
      async () =>
        (await readingsOf('birch-hill', 'rg-cs')).length === rs.length &&
        (await readingsOf('cedar-court', 'rg-tts')).length === rs.length &&
        (await readingsOf('maple-ridge', 'rg-1')).length === rs.length,
      20_000,
      'every reading of the three gauges',
    );
    const tips = async (s: string, d: string) =>
      (await readingsOf(s, d)).map((r) => [r.ts, r.values.rainTips]);
    const json = await tips('maple-ridge', 'rg-1');
    expect(await tips('birch-hill', 'rg-cs')).toEqual(json);
    expect(await tips('cedar-court', 'rg-tts')).toEqual(json);
    // Not one more: the second copy of every ChirpStack uplink was a duplicate.
    await new Promise((r) => setTimeout(r, 300));
    expect(await readingsOf('birch-hill', 'rg-cs')).toHaveLength(rs.length);
  });

  it('raises the same storm and the same storm-inspection duty as the JSON path', async () => {
    await waitFor(
      async () =>
        (await duties('maple-ridge')).length === 1 &&
        (await duties('birch-hill')).length === 1 &&
        (await duties('cedar-court')).length === 1,
      20_000,
      'a storm-inspection duty at each site',
    );
    const storm = await storms('maple-ridge');
    expect(storm).toHaveLength(1);
    expect(storm[0]).toMatchObject({ tips: 63, qualified: true });
    expect(await storms('birch-hill')).toEqual(storm);
    expect(await storms('cedar-court')).toEqual(storm);
    const duty = await duties('maple-ridge');
    expect(await duties('birch-hill')).toEqual(duty);
    expect(await duties('cedar-court')).toEqual(duty);
  });

  it('reports each network server connected, with its uplinks', async () => {
    const health = (await (await fetch(`${gw.httpUrl}/api/health`)).json()) as {
      components: Array<Record<string, unknown>>;
    };
    const byName = Object.fromEntries(health.components.map((c) => [c.name, c]));
    expect(byName['lorawan-chirpstack']).toMatchObject({ ok: true, connected: true, uplinks: 2 * rs.length });
    expect(byName['lorawan-thingsStack']).toMatchObject({ ok: true, connected: true, uplinks: rs.length });
  });

  it('reads a device’s link back: the last uplink as ChirpStack sent it, its readings, its counts', async () => {
    const link = async () => {
      const res = await fetch(`${gw.httpUrl}/api/sites/birch-hill/devices/rg-cs/link`);
      expect(res.status).toBe(200);
      return (await res.json()) as DeviceLink;
    };
    const profile = {
      name: 'dragino-lsn50v2-count',
      label: draginoLsn50v2Count.label,
      source: draginoLsn50v2Count.source,
    };
    const last = rs.at(-1)!;
    // After the stream: its last uplink, the second copy of frame 39, is what was heard last.
    const after = await link();
    expect(after).toMatchObject({
      transport: 'lorawan',
      profile,
      errors: [],
      counts: { uplinks: 2 * rs.length },
    });
    expect(after.last).toMatchObject({
      outcome: 'duplicate',
      values: { rainTips: last.rainTips, batteryV: 3.3 },
    });
    expect(after.last!.raw).toBe(lastCs);

    const ns = await mqtt.connectAsync(broker.url, { clientId: 'network-server-link' });
    const uplink = (fCnt: number, time: number, enc: ReturnType<typeof encodeThroughProfile>) =>
      chirpstackUplink({ ...enc, fCnt, time, devEui: CS_EUI, deviceName: 'rg-cs', application: APP });
    try {
      // One more frame, heard once: stored, its readings beside it.
      const next = uplink(
        rs.length,
        last.ts + 5 * MIN,
        encodeThroughProfile(draginoLsn50v2Count, { rainTips: last.rainTips + 1, batteryV: 3.25 }),
      );
      await ns.publishAsync(next.topic, next.payload, { qos: 1 });
      await waitFor(
        async () => (await link()).last?.raw === next.payload,
        10_000,
        'the new uplink on the link',
      );
      const stored = await link();
      expect(stored).toMatchObject({ transport: 'lorawan', profile, errors: [] });
      expect(stored.last).toEqual({
        at: expect.any(String),
        raw: next.payload,
        outcome: 'stored',
        values: { rainTips: last.rainTips + 1, batteryV: 3.25 },
      });
      expect(JSON.parse(stored.last!.raw)).toMatchObject({
        fCnt: rs.length,
        fPort: 2,
        deviceInfo: { devEui: CS_EUI },
      });
      expect(stored.counts).toEqual({ uplinks: 2 * rs.length + 1 });

      // A frame too short for the count (4 bytes, the count at bytes 7-10): refused, in words.
      const short = uplink(rs.length + 1, last.ts + 10 * MIN, {
        fPort: 2,
        frame: Uint8Array.of(0x0c, 0xe4, 0x00, 0x00),
        object: {},
      });
      await ns.publishAsync(short.topic, short.payload, { qos: 1 });
      await waitFor(
        async () => (await link()).last?.raw === short.payload,
        10_000,
        'the short frame on the link',
      );
      const refused = await link();
      expect(refused.last).toMatchObject({ raw: short.payload, outcome: 'rejected' });
      expect(refused.last!.values).toEqual({});
      const words = refused.last!.detail!;
      expect(words).toMatch(/the frame has 4 bytes, too short for a uint32 at byte 7/);
      // Words, not a reason code.
      expect(words).not.toMatch(/wrong_type|[a-z]_[a-z]/);
      expect(refused.errors).toEqual([{ at: refused.last!.at, text: words }]);
      expect(refused.counts).toEqual({ uplinks: 2 * rs.length + 2, errors: 1 });
      // The reading of the stored frame is the device's newest: the short one gave none.
      const newest = (await readingsOf('birch-hill', 'rg-cs')).at(-1)!;
      expect(newest.values.rainTips).toBe(last.rainTips + 1);
    } finally {
      await ns.endAsync();
    }
  });
});
