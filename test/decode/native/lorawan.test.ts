import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { NativeContext, NativeDevice } from '../../../gateway/src/decode/native/types.ts';
import { decodeNative } from '../../../gateway/src/decode/native.ts';
import { resolveProfile } from '../../../gateway/src/decode/profiles/library/index.ts';

const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/lorawan/${name}`, import.meta.url), 'utf8');
const CS_TOPIC = 'application/17c82e96-be03-4f38-aef3-f83d48582d97/device/a84041000181c061/event/up';
const TTS_TOPIC = 'v3/chester-tanks@ttn/devices/tank-1-level/up';
const opts = { maxPayloadBytes: 64 * 1024, maxFutureMs: 60_000 };
const NOW = Date.parse('2026-05-14T09:40:00Z');

type Dev = NativeDevice & { device: NativeDevice['device'] & { profile?: string } };
const tank: Dev = {
  siteId: 'tank-1',
  deviceId: 'level',
  kind: 'holding-tank',
  device: { transport: 'lorawan', devEui: 'a84041000181c061', mountHeightIn: 120, profile: 'dragino-ldds75' },
};
const registry = {
  lookup: (s: string, d: string) => (s === tank.siteId && d === tank.deviceId ? tank : undefined),
  byDevEui: (e: string) => (e.toLowerCase() === tank.device.devEui ? tank : undefined),
};
const ctx: NativeContext<Dev> = { profileOf: (d) => resolveProfile(d.device.profile), mapping: () => ({}) };
const decode = (topic: string, payload: string, receivedAt = NOW) =>
  decodeNative({ transport: 'lorawan', topic, payload, receivedAt }, registry, ctx, opts);

describe('the LoRaWAN decoder', () => {
  it('reads a ChirpStack v4 uplink: the network server time, fCnt, the frame through the profile', () => {
    const d = decode(CS_TOPIC, fixture('chirpstack-ldds75-up.json'));
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    expect(d.reading).toMatchObject({
      siteId: 'tank-1',
      deviceId: 'level',
      ts: Date.parse('2026-05-14T09:34:15.775Z'),
      seq: 41,
      transport: 'lorawan',
    });
    // 2821 mm below a sensor 120 in above the bottom; 3612 mV.
    expect(d.reading.values.levelIn).toBeCloseTo(120 - 2821 / 25.4, 4);
    expect(d.reading.values.batteryV).toBeCloseTo(3.612, 6);
    expect(d.reading.arrivalTs).toBeUndefined();
  });

  it('reads a The Things Stack v3 uplink the same, with the uplink time of the network server', () => {
    const d = decode(TTS_TOPIC, fixture('things-stack-ldds75-up.json'));
    expect(d.ok && d.reading).toMatchObject({
      ts: Date.parse('2026-05-14T09:34:15.802Z'),
      seq: 41,
      values: { batteryV: 3.612 },
    });
  });

  it('takes a missing f_cnt as 0 (The Things Stack leaves out zeros: the first frame after a join)', () => {
    const d = decode(TTS_TOPIC, fixture('things-stack-ldds75-up-fcnt0.json'), NOW + 3_600_000);
    expect(d.ok && d.reading.seq).toBe(0);
  });

  it('reads a {path} of the decoded object', () => {
    const byPath = { ...tank, device: { ...tank.device, profile: undefined } };
    const profile = resolveProfile({
      name: 'by-path',
      label: 'x',
      source: 'x',
      kinds: ['holding-tank'],
      transport: 'lorawan',
      fields: [{ reading: 'batteryV', from: { path: 'Bat' }, scale: 1, offset: 0, invert: false }],
    });
    const d = decodeNative(
      {
        transport: 'lorawan',
        topic: CS_TOPIC,
        payload: fixture('chirpstack-ldds75-up.json'),
        receivedAt: NOW,
      },
      { lookup: () => byPath, byDevEui: () => byPath },
      { profileOf: () => profile, mapping: () => ({}) },
      opts,
    );
    expect(d.ok && d.reading.values).toEqual({ batteryV: 3.612 });
  });

  it('skips a field whose fPort is not the frame’s: a port-5 status frame carries none of the readings', () => {
    const up = JSON.parse(fixture('chirpstack-ldds75-up.json'));
    up.fPort = 5;
    const d = decode(CS_TOPIC, JSON.stringify(up));
    expect(d).toMatchObject({ ok: false, reason: 'wrong_type', siteId: 'tank-1', deviceId: 'level' });
    expect(!d.ok && d.detail).toMatch(/port 5 carries none of the readings/);
  });

  it('names an unknown DevEUI by a stand-in identity, so the quarantine keeps it', () => {
    const up = JSON.parse(fixture('chirpstack-ldds75-up.json'));
    up.deviceInfo.devEui = '70B3D57ED0001234';
    const topic = CS_TOPIC.replace('a84041000181c061', '70B3D57ED0001234');
    expect(decode(topic, JSON.stringify(up))).toMatchObject({
      ok: false,
      reason: 'unregistered_device',
      siteId: 'lorawan',
      deviceId: 'eui-70b3d57ed0001234',
    });
  });

  it('refuses, with its reason in words, what is not an uplink', () => {
    expect(decode(CS_TOPIC, '{"deviceInfo":')).toMatchObject({ ok: false, reason: 'malformed_json' });
    expect(decode(CS_TOPIC, '[1]')).toMatchObject({ ok: false, reason: 'not_an_object' });
    const noEui = decode(CS_TOPIC, JSON.stringify({ fCnt: 1, deviceInfo: {} }));
    expect(noEui).toMatchObject({ ok: false, reason: 'wrong_type' });
    expect(!noEui.ok && noEui.detail).toMatch(/not an uplink of ChirpStack: deviceInfo\.devEui/);
    const other = decode(
      CS_TOPIC.replace('a84041000181c061', 'a84041000181c062'),
      fixture('chirpstack-ldds75-up.json'),
    );
    expect(other).toMatchObject({ ok: false, reason: 'topic_mismatch' });
    expect(decode('application/x/device/a84041000181c061/event/join', '{}')).toMatchObject({
      ok: false,
      reason: 'bad_topic',
    });
    const short = JSON.parse(fixture('things-stack-ldds75-up.json'));
    short.uplink_message.frm_payload = Buffer.from([0x0e]).toString('base64');
    const s = decode(TTS_TOPIC, JSON.stringify(short));
    expect(!s.ok && s.detail).toMatch(/frame has 1 bytes, too short/);
  });
});
