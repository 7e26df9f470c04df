/**
 * The profile schema: a good profile of each transport with its defaults filled in, and bad ones refused
 * at the path of what is wrong.
 */
import { describe, expect, it } from 'vitest';
import { profileSchema } from '../../../gateway/src/decode/profiles/schema.ts';

const head = {
  name: 'test-sensor',
  label: 'A test sensor',
  source: 'A test document',
  kinds: ['holding-tank'],
};

const lorawan = {
  ...head,
  transport: 'lorawan',
  fields: [
    { reading: 'levelIn', from: { byte: 0, format: 'uint16' }, scale: 0.0393701, derive: 'mount-minus' },
    { reading: 'batteryV', from: { path: 'battery.voltage' } },
    { reading: 'alarms.highWater', from: { byte: 2, format: 'uint8', bit: 0, fPort: 2 } },
  ],
};
const modbus = {
  ...head,
  transport: 'modbus',
  fields: [
    { reading: 'levelIn', from: { table: 'input', address: 4, format: 'float32', wordOrder: 'low-first' } },
    { reading: 'alarms.pump', from: { table: 'discrete', address: 0 }, invert: true },
  ],
};
const sdi12 = {
  ...head,
  transport: 'sdi12',
  fields: [{ reading: 'levelIn', from: { index: 2 }, scale: 12, offset: -1 }],
};

/** The paths of a profile's problems, as `a.b.0.c`. */
function paths(input: unknown): string[] {
  const r = profileSchema.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
}

describe('profile schema', () => {
  it('takes a good profile of each transport and fills in the defaults', () => {
    const l = profileSchema.parse(lorawan);
    expect(l.fields[0]).toEqual({
      reading: 'levelIn',
      from: { byte: 0, format: 'uint16', byteOrder: 'big' },
      scale: 0.0393701,
      offset: 0,
      derive: 'mount-minus',
      invert: false,
    });
    expect(l.fields[1]!.from).toEqual({ path: 'battery.voltage' });
    const m = profileSchema.parse(modbus);
    expect(m.fields[1]).toMatchObject({
      from: { table: 'discrete', address: 0, format: 'uint16', wordOrder: 'high-first' },
      invert: true,
      scale: 1,
    });
    const s = profileSchema.parse(sdi12);
    expect(s).toMatchObject({
      transport: 'sdi12',
      command: 'M',
      fields: [{ from: { index: 2 }, offset: -1 }],
    });
  });

  it('refuses an unknown transport at its path', () => {
    expect(paths({ ...sdi12, transport: 'zigbee' })).toEqual(['transport']);
  });

  it('refuses a bad name, no kinds, an unknown kind and no fields', () => {
    expect(paths({ ...sdi12, name: 'Big Sensor' })).toEqual(['name']);
    expect(paths({ ...sdi12, kinds: [] })).toEqual(['kinds']);
    expect(paths({ ...sdi12, kinds: ['weir'] })).toEqual(['kinds.0']);
    expect(paths({ ...sdi12, fields: [] })).toEqual(['fields']);
  });

  it('refuses a reading the gateway does not know, an unknown derivation and a key it does not take', () => {
    const f = sdi12.fields[0]!;
    expect(paths({ ...sdi12, fields: [{ ...f, reading: 'flowGpm' }] })).toEqual(['fields.0.reading']);
    expect(paths({ ...sdi12, fields: [{ ...f, reading: 'alarms.door' }] })).toEqual(['fields.0.reading']);
    expect(paths({ ...sdi12, fields: [{ ...f, derive: 'mount-plus' }] })).toEqual(['fields.0.derive']);
    expect(paths({ ...sdi12, fields: [{ ...f, scale: Number.POSITIVE_INFINITY }] })).toEqual([
      'fields.0.scale',
    ]);
    expect(paths({ ...sdi12, fields: [{ ...f, colour: 'red' }] })).toEqual(['fields.0']);
    expect(paths({ ...sdi12, command: 'R0' })).toEqual(['command']);
  });

  it('refuses a source of another transport, or out of its range', () => {
    const field = (from: object) => [{ reading: 'levelIn', from }];
    // A Modbus register in a LoRaWAN profile, an SDI-12 index in a Modbus one.
    expect(paths({ ...lorawan, fields: field({ table: 'holding', address: 0 }) })).toEqual(['fields.0.from']);
    expect(paths({ ...modbus, fields: field({ index: 1 }) })).toContain('fields.0.from.table');
    expect(paths({ ...sdi12, fields: field({ index: 0 }) })).toEqual(['fields.0.from.index']);
    // A single byte is not a register format; a register bit is 0 to 15.
    expect(paths({ ...modbus, fields: field({ table: 'holding', address: 0, format: 'uint8' }) })).toEqual([
      'fields.0.from.format',
    ]);
    expect(paths({ ...modbus, fields: field({ table: 'holding', address: 0, bit: 16 }) })).toEqual([
      'fields.0.from.bit',
    ]);
    expect(paths({ ...modbus, fields: field({ table: 'holding', address: 65_536 }) })).toEqual([
      'fields.0.from.address',
    ]);
    expect(
      paths({ ...modbus, fields: field({ table: 'holding', address: 0, wordOrder: 'middle' }) }),
    ).toEqual(['fields.0.from.wordOrder']);
  });

  it('refuses a LoRaWAN byte past the largest frame, a bad port and a path that is not a dot path', () => {
    const field = (from: object) => [{ reading: 'levelIn', from }];
    // Of the two sources, the one the object is meant as is named (by its keys).
    expect(paths({ ...lorawan, fields: field({ byte: 242, format: 'uint8' }) })).toEqual([
      'fields.0.from.byte',
    ]);
    expect(paths({ ...lorawan, fields: field({ byte: 0, format: 'uint8', fPort: 224 }) })).toEqual([
      'fields.0.from.fPort',
    ]);
    expect(paths({ ...lorawan, fields: field({ path: 'a..b' }) })).toEqual(['fields.0.from.path']);
    expect(paths({ ...lorawan, fields: field({ path: 'battery.voltage' }) })).toEqual([]);
  });
});
