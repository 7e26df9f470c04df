/** The simulator's uplinks: the network servers' documented shapes, and the profile's mapping undone. */
import { describe, expect, it } from 'vitest';
import {
  chirpstackUplink,
  encodeThroughProfile,
  thingsStackUplink,
} from '../../firmware-sim/src/transports/lorawanUplink.ts';
import {
  chirpstackUplinkSchema,
  thingsStackUplinkSchema,
} from '../../gateway/src/decode/native/lorawanShapes.ts';
import type { NativeDevice } from '../../gateway/src/decode/native/types.ts';
import { decodeNative } from '../../gateway/src/decode/native.ts';
import { profileByName } from '../../gateway/src/decode/profiles/library/index.ts';
import type { LorawanProfile } from '../../gateway/src/decode/profiles/schema.ts';
import type { TelemetryPayload } from '../../shared/src/telemetry.ts';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const cases: Array<[string, NativeDevice['kind'], TelemetryPayload]> = [
  ['dragino-ldds75', 'holding-tank', { levelIn: 41.5, batteryV: 3.6 }],
  ['dragino-ldds75-sediment', 'sediment-trap', { sedimentIn: 9.25, batteryV: 3.6 }],
  ['dragino-lsn50v2-count', 'rain-gauge', { rainTips: 123_456, batteryV: 3.3 }],
  ['dragino-cpl01-float', 'holding-tank', { alarms: { highWater: true } }],
];

describe('simulated LoRaWAN uplinks', () => {
  for (const [name, kind, telemetry] of cases)
    for (const server of ['chirpstack', 'things-stack'] as const)
      it(`${name} through ${server}: decoded back to the same readings`, () => {
        const profile = profileByName(name) as LorawanProfile;
        const enc = encodeThroughProfile(profile, telemetry, 120);
        const frame = { ...enc, fCnt: 7, time: NOW - 1000, devEui: 'a840410000000001', deviceName: 'd' };
        const up =
          server === 'chirpstack'
            ? chirpstackUplink({ ...frame, application: 'c0ffee00-0000-4000-8000-000000000001' })
            : thingsStackUplink({ ...frame, application: 'town@ttn' });
        const schema = server === 'chirpstack' ? chirpstackUplinkSchema : thingsStackUplinkSchema;
        expect(schema.safeParse(JSON.parse(up.payload)).success).toBe(true);
        const device: NativeDevice = {
          siteId: 's',
          deviceId: 'd',
          kind,
          device: { transport: 'lorawan', devEui: 'a840410000000001', mountHeightIn: 120 },
        };
        const d = decodeNative(
          { transport: 'lorawan', topic: up.topic, payload: up.payload, receivedAt: NOW },
          { lookup: () => device, byDevEui: () => device },
          { profileOf: () => profile, mapping: () => ({}) },
          { maxPayloadBytes: 65_536, maxFutureMs: 60_000 },
        );
        expect(d.ok).toBe(true);
        if (!d.ok) return;
        expect(d.reading.seq).toBe(7);
        expect(d.reading.ts).toBe(NOW - 1000);
        const { alarms, ...values } = telemetry;
        for (const [k, v] of Object.entries(values))
          expect(d.reading.values[k as keyof typeof d.reading.values]).toBeCloseTo(v as number, 1);
        if (alarms) expect(d.reading.alarms).toEqual(alarms);
      });
});
