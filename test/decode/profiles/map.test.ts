/**
 * A profile's mapping applied (pure): each derivation, an inverted contact, a contact where a number is
 * expected, scale and offset with their rounding, a counter that wraps, and numbers read from bytes in
 * every format and byte order.
 */
import { describe, expect, it } from 'vitest';
import {
  mapFields,
  type RawValue,
  readNumber,
  unwrapCounter,
} from '../../../gateway/src/decode/profiles/map.ts';
import { NUMBER_FORMATS, type Profile, profileSchema } from '../../../gateway/src/decode/profiles/schema.ts';

/** An SDI-12 profile of these fields (the transport does not matter to the mapping). */
const profile = (fields: object[]): Profile =>
  profileSchema.parse({
    name: 'test-profile',
    label: 'A test sensor',
    source: 'A test document',
    transport: 'sdi12',
    kinds: ['holding-tank'],
    fields: fields.map((f, i) => ({ from: { index: i + 1 }, ...f })),
  });

/** The raw values by reading. */
const reads =
  (values: Record<string, RawValue>) =>
  (f: { reading: string }): RawValue =>
    values[f.reading];

describe('mapFields', () => {
  it('scales, offsets and rounds to a millionth', () => {
    const p = profile([
      { reading: 'levelIn', scale: 0.1 },
      { reading: 'batteryV', scale: 0.001, offset: 0.5 },
      { reading: 'rssi', offset: -120 },
    ]);
    const m = mapFields(p, reads({ levelIn: 3, batteryV: 3123, rssi: 41 }), {});
    // 3 * 0.1 is 0.30000000000000004 in floating point: rounded to 0.3.
    expect(m).toEqual({
      ok: true,
      telemetry: { levelIn: 0.3, batteryV: 3.623, rssi: -79 },
      values: { levelIn: 0.3, batteryV: 3.623, rssi: -79 },
    });
    const fine = mapFields(profile([{ reading: 'levelIn', scale: 1e-7 }]), reads({ levelIn: 4 }), {});
    expect(fine).toMatchObject({ telemetry: { levelIn: 0 } });
  });

  it('mount-minus: the level is the mounting height less the distance measured down', () => {
    const p = profile([{ reading: 'levelIn', scale: 0.0393701, derive: 'mount-minus' }]);
    // 508 mm is 20.0000108 in; 60 in less that is 39.9999892.
    expect(mapFields(p, reads({ levelIn: 508 }), { mountHeightIn: 60 })).toMatchObject({
      ok: true,
      telemetry: { levelIn: 39.999989 },
    });
    expect(mapFields(p, reads({ levelIn: 508 }), {})).toEqual({
      ok: false,
      detail: "Level: the sensor's mounting height above the bottom is not set for this device",
    });
  });

  it('counter-16 and counter-32: the running count goes on across the wrap, and starts at the first reading', () => {
    const c16 = profile([{ reading: 'rainTips', derive: 'counter-16' }]);
    expect(mapFields(c16, reads({ rainTips: 65_530 }), {}, {})).toMatchObject({
      telemetry: { rainTips: 65_530 },
    });
    expect(mapFields(c16, reads({ rainTips: 4 }), {}, { previousTips: 65_530 })).toMatchObject({
      telemetry: { rainTips: 65_540 },
    });
    // A second wrap: the running count 131,070 is 65,534 past the last wrap; the raw 2 is four on.
    expect(mapFields(c16, reads({ rainTips: 2 }), {}, { previousTips: 131_070 })).toMatchObject({
      telemetry: { rainTips: 131_074 },
    });
    const c32 = profile([{ reading: 'rainTips', derive: 'counter-32', scale: 0.5 }]);
    // The scaled value is rounded to whole tips before it is unwrapped.
    expect(mapFields(c32, reads({ rainTips: 7 }), {}, { previousTips: 4_294_967_295 })).toMatchObject({
      telemetry: { rainTips: 4_294_967_300 },
    });
  });

  it('an alarm: any non-zero value or true is raised; invert for a normally closed contact', () => {
    const p = profile([
      { reading: 'alarms.highWater' },
      { reading: 'alarms.pump', invert: true },
      { reading: 'alarms.panel', invert: true },
    ]);
    const m = mapFields(p, reads({ 'alarms.highWater': 2, 'alarms.pump': 0, 'alarms.panel': true }), {});
    expect(m).toEqual({
      ok: true,
      telemetry: { alarms: { highWater: true, pump: true, panel: false } },
      values: { 'alarms.highWater': true, 'alarms.pump': true, 'alarms.panel': false },
    });
  });

  it('refuses a contact where a number is expected, a value that is not a number, and a read error', () => {
    const p = profile([{ reading: 'levelIn' }]);
    expect(mapFields(p, reads({ levelIn: true }), {})).toEqual({
      ok: false,
      detail: 'Level: the device sent a contact (on or off), not a number',
    });
    expect(mapFields(p, reads({ levelIn: Number.NaN }), {})).toEqual({
      ok: false,
      detail: 'Level: the device sent no number (NaN)',
    });
    expect(mapFields(p, reads({ levelIn: { error: 'the sensor answered nothing' } }), {})).toEqual({
      ok: false,
      detail: 'Level: the sensor answered nothing',
    });
  });

  it('leaves out a value absent from the message, and gives no alarms object without an alarm', () => {
    const p = profile([{ reading: 'levelIn' }, { reading: 'batteryV' }, { reading: 'alarms.pump' }]);
    expect(mapFields(p, reads({ batteryV: 3.3 }), {})).toEqual({
      ok: true,
      telemetry: { batteryV: 3.3 },
      values: { batteryV: 3.3 },
    });
  });
});

describe('unwrapCounter', () => {
  it('takes the first reading as it is', () => {
    expect(unwrapCounter(123, 65_536, undefined)).toBe(123);
  });
  it('adds the rise since the previous reading, across the wrap too', () => {
    expect(unwrapCounter(130, 65_536, 100)).toBe(130);
    expect(unwrapCounter(100, 65_536, 100)).toBe(100);
    expect(unwrapCounter(5, 65_536, 65_535)).toBe(65_541);
    expect(unwrapCounter(0, 65_536, 65_535)).toBe(65_536);
    expect(unwrapCounter(10, 4_294_967_296, 4_294_967_290)).toBe(4_294_967_306);
  });
  it('reads a drop from the middle of the range as a restart from zero, not a wrap', () => {
    // 40,000 tips, then the logger restarts and has counted 5 since: 5 more, not 25,541.
    expect(unwrapCounter(5, 65_536, 40_000)).toBe(40_005);
    expect(unwrapCounter(0, 65_536, 1_000)).toBe(1_000);
    // After a wrap the running count is past 65,536: the raw value is read against its remainder.
    expect(unwrapCounter(20, 65_536, 65_541)).toBe(65_556);
    expect(unwrapCounter(3, 65_536, 65_541 + 30_000)).toBe(65_541 + 30_003);
  });
});

describe('readNumber', () => {
  const bytes = Uint8Array.from([0x12, 0x34, 0x56, 0x78, 0xfe, 0xdc, 0xba, 0x98, 0x41, 0x20, 0x00, 0x00]);
  const cases: Array<[(typeof NUMBER_FORMATS)[number], number, number, number]> = [
    // format, at, big-endian, little-endian
    ['uint8', 4, 0xfe, 0xfe],
    ['int8', 4, -2, -2],
    ['uint16', 0, 0x1234, 0x3412],
    ['int16', 4, -292, -8962], // 0xfedc, 0xdcfe
    ['uint32', 0, 0x12345678, 0x78563412],
    ['int32', 4, -19_088_744, -1_732_584_194], // 0xfedcba98, 0x98badcfe
    ['float32', 8, 10, 8257 * 2 ** -149], // 0x41200000; 0x00002041, a denormal
  ];

  it('covers every format', () => {
    expect(new Set(cases.map((c) => c[0]))).toEqual(new Set(NUMBER_FORMATS));
  });

  for (const [format, at, big, little] of cases)
    it(`${format}: big-endian and little-endian`, () => {
      expect(readNumber(bytes, at, format)).toBe(big);
      expect(readNumber(bytes, at, format, true)).toBe(little);
    });

  it('reads a float32 in either byte order', () => {
    const le = Uint8Array.from([0x00, 0x00, 0x20, 0x41]);
    expect(readNumber(le, 0, 'float32', true)).toBe(10);
    expect(readNumber(Uint8Array.from([0xc2, 0x48, 0x00, 0x00]), 0, 'float32')).toBe(-50);
  });

  it('reads from a view into a larger buffer at its own offset', () => {
    const view = bytes.subarray(4);
    expect(readNumber(view, 0, 'uint16')).toBe(0xfedc);
  });

  it('gives nothing for a value past the end or before the start', () => {
    expect(readNumber(bytes, 11, 'uint16')).toBeUndefined();
    expect(readNumber(bytes, 9, 'uint32')).toBeUndefined();
    expect(readNumber(bytes, -1, 'uint8')).toBeUndefined();
    expect(readNumber(bytes, 11, 'uint8')).toBe(0);
  });
});
