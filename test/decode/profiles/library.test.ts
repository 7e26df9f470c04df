/** The library's LoRaWAN profiles applied to payloads from their makers' documents. */
import { describe, expect, it } from 'vitest';
import { readUplink } from '../../../gateway/src/decode/native/lorawan.ts';
import { PROFILES, profileByName } from '../../../gateway/src/decode/profiles/library/index.ts';
import { mapFields } from '../../../gateway/src/decode/profiles/map.ts';
import { type LorawanProfile, profileSchema } from '../../../gateway/src/decode/profiles/schema.ts';

const apply = (name: string, fPort: number, hex: string, device = {}) => {
  const p = profileByName(name) as LorawanProfile;
  const frame = Buffer.from(hex.replace(/\s/g, ''), 'hex');
  return mapFields(p, (f) => readUplink(f.from, { fPort, frame, object: undefined }), device);
};

describe('the LoRaWAN profiles of the library', () => {
  it('are valid profiles, each naming its maker’s document', () => {
    for (const p of PROFILES) {
      expect(profileSchema.parse(p)).toEqual(p);
      expect(p.source).toMatch(/https:\/\/|github\.com/);
    }
  });

  it('dragino-ldds75: the example frame of the maker’s codec (0E 1C 0B 05 on port 2)', () => {
    // Battery 0x0E1C = 3612 mV, distance 0x0B05 = 2821 mm; the sensor 120 in above the bottom.
    const m = apply('dragino-ldds75', 2, '0E 1C 0B 05', { mountHeightIn: 120 });
    expect(m.ok).toBe(true);
    if (!m.ok) return;
    expect(m.telemetry.batteryV).toBe(3.612);
    expect(m.telemetry.levelIn).toBeCloseTo(120 - 111.063, 3);
    expect(apply('dragino-ldds75', 2, '0E 1C 0B 05')).toMatchObject({ ok: false });
  });

  it('dragino-ldds75: a frame on another port (5: the device’s status) gives no reading', () => {
    expect(apply('dragino-ldds75', 5, '0E 1C 0B 05', { mountHeightIn: 120 })).toMatchObject({
      ok: true,
      telemetry: {},
    });
  });

  it('dragino-ldds75-sediment: the same example frame, read as the sediment in a trap', () => {
    // Distance 0x0B05 = 2821 mm = 111.063 in down to the sediment's top; the sensor 120 in above the bottom.
    const m = apply('dragino-ldds75-sediment', 2, '0E 1C 0B 05', { mountHeightIn: 120 });
    expect(m.ok).toBe(true);
    if (!m.ok) return;
    expect(m.telemetry).toEqual({ batteryV: 3.612, sedimentIn: expect.any(Number) });
    expect(m.telemetry.sedimentIn).toBeCloseTo(120 - 111.063, 3);
    expect(profileByName('dragino-ldds75-sediment')!.source).toBe(profileByName('dragino-ldds75')!.source);
    // Without the mounting height there is no depth to give.
    expect(apply('dragino-ldds75-sediment', 2, '0E 1C 0B 05')).toMatchObject({ ok: false });
    expect(apply('dragino-ldds75-sediment', 5, '0E 1C 0B 05', { mountHeightIn: 120 })).toMatchObject({
      ok: true,
      telemetry: {},
    });
  });

  it('dragino-lsn50v2-count: battery in bytes 0-1, the count (MOD=6) in bytes 7-10', () => {
    // Laid out as the maker's decoder reads counting mode: 3.300 V, mode bits (5 << 2) in byte 6, 1234 tips.
    const m = apply('dragino-lsn50v2-count', 2, '0C E4 00 00 00 00 14 00 00 04 D2');
    expect(m).toMatchObject({ ok: true, telemetry: { rainTips: 1234, batteryV: 3.3 } });
  });

  it('dragino-cpl01-float: the example frame of the maker’s codec (contact open: no alarm), and closed', () => {
    const open = apply('dragino-cpl01-float', 2, '31 61 8E 57 40 61 8E 81 70 05 00');
    expect(open).toMatchObject({ ok: true, telemetry: { alarms: { highWater: false } } });
    const closed = apply('dragino-cpl01-float', 2, '30 61 8E 57 40 61 8E 81 70 05 00');
    expect(closed).toMatchObject({ ok: true, telemetry: { alarms: { highWater: true } } });
  });
});
