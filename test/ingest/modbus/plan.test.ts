import { describe, expect, it } from 'vitest';
import { modbusProfileSchema } from '../../../gateway/src/decode/profiles/schema.ts';
import { planReads, pollJson } from '../../../gateway/src/ingest/modbus/plan.ts';

const profile = (fields: unknown[]) =>
  modbusProfileSchema.parse({
    name: 'pp',
    label: 'p',
    source: 's',
    kinds: ['holding-tank'],
    transport: 'modbus',
    fields,
  });

describe('planReads', () => {
  it('reads touching addresses in one request per table, never a gap', () => {
    const p = profile([
      { reading: 'levelIn', from: { table: 'holding', address: 1, format: 'int32' } },
      { reading: 'batteryV', from: { table: 'holding', address: 3 }, scale: 0.01 },
      { reading: 'rssi', from: { table: 'holding', address: 9 } },
      { reading: 'alarms.pump', from: { table: 'coil', address: 0 } },
      { reading: 'alarms.highWater', from: { table: 'coil', address: 1 } },
      { reading: 'alarms.panel', from: { table: 'holding', address: 3, bit: 2 } },
    ]);
    expect(planReads(p)).toEqual([
      { table: 'holding', start: 1, count: 3 },
      { table: 'holding', start: 9, count: 1 },
      { table: 'coil', start: 0, count: 2 },
    ]);
  });

  it('splits a run longer than one request may read', () => {
    const fields = Array.from({ length: 32 }, (_, i) => ({
      reading: 'levelIn',
      from: { table: 'input', address: i * 4, format: 'uint32' },
    }));
    // Only 2 of every 4 registers are wanted: 32 runs of 2.
    expect(planReads(profile(fields))).toHaveLength(32);
  });

  it('builds the poll from the answers, by address', () => {
    const reqs = planReads(
      profile([
        { reading: 'levelIn', from: { table: 'input', address: 5, format: 'uint32' } },
        { reading: 'alarms.pump', from: { table: 'discrete', address: 2 } },
      ]),
    );
    expect(pollJson(1000, 7, reqs, [[1, 2], [true]])).toEqual({
      polledAt: 1000,
      unitId: 7,
      holding: {},
      input: { '5': 1, '6': 2 },
      coils: {},
      discrete: { '2': true },
    });
  });
});
