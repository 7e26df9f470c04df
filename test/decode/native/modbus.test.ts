import { describe, expect, it } from 'vitest';
import type { DecodeDevice } from '../../../gateway/src/decode/decode.ts';
import { decodeModbus, type ModbusPollInput } from '../../../gateway/src/decode/native/modbus.ts';
import type { NativeDevice } from '../../../gateway/src/decode/native/types.ts';
import { type ModbusProfile, modbusProfileSchema } from '../../../gateway/src/decode/profiles/schema.ts';

const profile = (fields: unknown[]): ModbusProfile =>
  modbusProfileSchema.parse({
    name: 'test',
    label: 'test',
    source: 'test',
    kinds: ['holding-tank'],
    transport: 'modbus',
    fields,
  });

const device = (extra: Partial<NativeDevice['device']> = {}): NativeDevice => ({
  siteId: 'oak-lane',
  deviceId: 'tank-1',
  kind: 'holding-tank' as DecodeDevice['kind'],
  device: { transport: 'modbus', ...extra },
});

const T = Date.UTC(2026, 5, 1, 12);

function decode(
  p: ModbusProfile,
  poll: Partial<ModbusPollInput>,
  opts: { tips?: number; d?: NativeDevice } = {},
) {
  const d = opts.d ?? device();
  return decodeModbus(
    {
      transport: 'modbus',
      topic: 'modbus:oak-lane/tank-1',
      payload: JSON.stringify({ polledAt: T, unitId: 1, ...poll }),
      receivedAt: T + 5,
    },
    {
      lookup: (s, id) => (s === d.siteId && id === d.deviceId ? d : undefined),
      byDevEui: () => undefined,
    },
    {
      profileOf: () => p,
      mapping: () => (opts.tips === undefined ? {} : { previousTips: opts.tips }),
    },
  );
}

const telemetry = (r: ReturnType<typeof decode>) => {
  if (!r.ok) throw new Error(r.detail);
  return r.telemetry;
};

describe('decodeModbus', () => {
  it('stamps the reading with the poll time and scales a register', () => {
    const p = profile([
      { reading: 'levelIn', from: { table: 'holding', address: 4 }, scale: 0.1, offset: 2 },
    ]);
    expect(telemetry(decode(p, { holding: { '4': 305 } }))).toEqual({ ts: T, levelIn: 32.5 });
  });

  it('reads a 32-bit value from two registers in either word order', () => {
    const at = (format: string, wordOrder: string) =>
      profile([
        { reading: 'levelIn', from: { table: 'input', address: 10, format, wordOrder }, scale: 0.001 },
      ]);
    const regs = { input: { '10': 1, '11': 2 } };
    // 0x0001_0002 = 65538; low word first, the same registers are 0x0002_0001 = 131073.
    expect(telemetry(decode(at('uint32', 'high-first'), regs)).levelIn).toBe(65.538);
    expect(telemetry(decode(at('uint32', 'low-first'), regs)).levelIn).toBe(131.073);
    // Two's complement: 0xFFFF_FFFE = -2.
    expect(
      telemetry(decode(at('int32', 'high-first'), { input: { '10': 0xffff, '11': 0xfffe } })).levelIn,
    ).toBe(-0.002);
    // IEEE 754 40.25 = 0x4221_0000, and low word first.
    const f = (wordOrder: string) =>
      profile([{ reading: 'levelIn', from: { table: 'holding', address: 0, format: 'float32', wordOrder } }]);
    expect(telemetry(decode(f('high-first'), { holding: { '0': 0x4221, '1': 0 } })).levelIn).toBe(40.25);
    expect(telemetry(decode(f('low-first'), { holding: { '0': 0, '1': 0x4221 } })).levelIn).toBe(40.25);
  });

  it('reads one bit of a register, a coil and a discrete input as alarms, inverted when normally closed', () => {
    const p = profile([
      { reading: 'alarms.highWater', from: { table: 'holding', address: 7, bit: 3 } },
      { reading: 'alarms.pump', from: { table: 'coil', address: 0 } },
      { reading: 'alarms.panel', from: { table: 'discrete', address: 2 }, invert: true },
    ]);
    expect(
      telemetry(decode(p, { holding: { '7': 0b1000 }, coils: { '0': false }, discrete: { '2': true } })),
    ).toEqual({ ts: T, alarms: { highWater: true, pump: false, panel: false } });
    expect(
      telemetry(decode(p, { holding: { '7': 0b0111 }, coils: { '0': true }, discrete: { '2': false } }))
        .alarms,
    ).toEqual({ highWater: false, pump: true, panel: true });
  });

  it('adds a 16-bit tip counter that wrapped to the running count', () => {
    const p = profile([{ reading: 'rainTips', from: { table: 'input', address: 0 }, derive: 'counter-16' }]);
    // The last stored count is 65,530 (raw 65,530); the counter wrapped and now reads 4: ten tips later.
    expect(telemetry(decode(p, { input: { '0': 4 } }, { tips: 65_530 })).rainTips).toBe(65_540);
    expect(telemetry(decode(p, { input: { '0': 4 } }, { tips: 131_070 })).rainTips).toBe(131_076);
    expect(telemetry(decode(p, { input: { '0': 12 } })).rainTips).toBe(12);
  });

  it('derives a level from the mounting height', () => {
    const p = profile([
      { reading: 'levelIn', from: { table: 'holding', address: 0 }, derive: 'mount-minus' },
    ]);
    expect(telemetry(decode(p, { holding: { '0': 20 } }, { d: device({ mountHeightIn: 72 }) })).levelIn).toBe(
      52,
    );
  });

  it('refuses, with a reason, a poll that lacks a register, a bad topic, an unknown device or broken JSON', () => {
    const p = profile([{ reading: 'levelIn', from: { table: 'holding', address: 0, format: 'uint32' } }]);
    const missing = decode(p, { holding: { '0': 1 } });
    expect(missing).toMatchObject({ ok: false, detail: 'Tank level: holding register 1 was not read' });
    const reg = { lookup: () => undefined, byDevEui: () => undefined };
    const ctx = { profileOf: () => p, mapping: () => ({}) };
    const msg = { transport: 'modbus' as const, payload: '{}', receivedAt: T };
    expect(decodeModbus({ ...msg, topic: 'modbus:only-one' }, reg, ctx)).toMatchObject({
      reason: 'bad_topic',
    });
    expect(decodeModbus({ ...msg, topic: 'modbus:a/b' }, reg, ctx)).toMatchObject({
      reason: 'unregistered_device',
    });
    expect(decode(p, { holding: { x: 1 } as never })).toMatchObject({ ok: false, reason: 'wrong_type' });
  });
});
