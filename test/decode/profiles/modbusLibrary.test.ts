import { describe, expect, it } from 'vitest';
import { crc16Modbus } from '../../../firmware-sim/src/transports/modbusSlave.ts';
import type { DecodeDevice } from '../../../gateway/src/decode/decode.ts';
import type { NativeDevice } from '../../../gateway/src/decode/native/types.ts';
import { decodeNative } from '../../../gateway/src/decode/native.ts';
import { profileByName } from '../../../gateway/src/decode/profiles/library/index.ts';
import { profileSchema } from '../../../gateway/src/decode/profiles/schema.ts';
import { type Answer, planReads, pollJson } from '../../../gateway/src/ingest/modbus/plan.ts';

const T = Date.UTC(2026, 5, 1, 12);

/** An RTU answer frame as a hex dump (unit, function, byte count, data, CRC) → its registers or bits. */
function answerOf(hex: string, count: number): Answer {
  const b = Buffer.from(hex.replace(/\s+/g, ''), 'hex');
  expect(crc16Modbus(b.subarray(0, -2))).toBe(b.readUInt16LE(b.length - 2));
  const data = b.subarray(3, 3 + b[2]!);
  if (b[1] === 1 || b[1] === 2)
    return Array.from({ length: count }, (_, i) => ((data[i >> 3]! >> (i & 7)) & 1) === 1);
  return Array.from({ length: data.length / 2 }, (_, i) => data.readUInt16BE(i * 2));
}

function read(name: string, kind: DecodeDevice['kind'], frames: string[]) {
  const profile = profileByName(name)!;
  expect(profile.transport).toBe('modbus');
  if (profile.transport !== 'modbus') throw new Error('not modbus');
  const requests = planReads(profile);
  const poll = pollJson(
    T,
    1,
    requests,
    frames.map((f, i) => answerOf(f, requests[i]!.count)),
  );
  const d: NativeDevice = {
    siteId: 's',
    deviceId: 'd',
    kind,
    device: { transport: 'modbus', profile: name } as never,
  };
  const res = decodeNative(
    { transport: 'modbus', topic: 'modbus:s/d', payload: JSON.stringify(poll), receivedAt: T },
    { lookup: () => d, byDevEui: () => undefined },
    { profileOf: () => profile, mapping: () => ({}) },
    { maxPayloadBytes: 65536, maxFutureMs: 60_000 },
  );
  return { requests, res };
}

describe('the Modbus profiles of the library', () => {
  it('every one is a valid profile naming its maker’s document', () => {
    for (const name of ['aquaread-leveline-ctd', 'icpdas-alm-04-mrtu']) {
      const p = profileByName(name)!;
      expect(profileSchema.parse(p)).toEqual(p);
      expect(p.source).toMatch(/https:\/\//);
    }
  });

  it('Aquaread LeveLine-CTD: input registers 1-2, 396.0 mbar above the probe = 159.0 in of water', () => {
    // 6.15: input registers 0x0001-0x0002 are the pressure in mbar x 10, upper word first: 0x0000_0F78 = 3960.
    const { requests, res } = read('aquaread-leveline-ctd', 'holding-tank', ['01 04 04 00 00 0F 78 FE 56']);
    expect(requests).toEqual([{ table: 'input', start: 1, count: 2 }]);
    expect(res.ok && res.reading.values.levelIn).toBeCloseTo(158.979, 3);
    expect(res.ok && res.reading.ts).toBe(T);
  });

  it('ICP DAS ALM-04-MRTU: discrete inputs 0-3, input 1 (pump) and 4 (panel) closed', () => {
    // Table 4-6: FC02 discrete inputs 0-3; one data byte, bit 0 = channel 1: 0b1001.
    const { requests, res } = read('icpdas-alm-04-mrtu', 'septic-panel', ['01 02 01 09 61 8E']);
    expect(requests).toEqual([{ table: 'discrete', start: 0, count: 4 }]);
    expect(res.ok && res.reading.alarms).toEqual({
      pump: true,
      highWater: false,
      blower: false,
      panel: true,
    });
  });
});
