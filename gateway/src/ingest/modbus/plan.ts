/**
 * What a poll of a device reads: the registers, coils and discrete inputs its profile needs, grouped per
 * table into contiguous ranges so a device is read in as few requests as possible (only addresses the
 * profile names, and those between them when they touch: a gap is never read, as a device may answer an
 * address it does not have with an exception). And the poll's JSON built from the answers. Pure.
 */
import type { ModbusPollInput } from '../../decode/native/modbus.ts';
import { sourceAddresses } from '../../decode/native/modbus.ts';
import type { ModbusProfile, ModbusSource } from '../../decode/profiles/schema.ts';

export type ModbusTable = ModbusSource['table'];

/** One read request: function 1 (coil), 2 (discrete), 3 (holding) or 4 (input). */
export interface ReadRequest {
  table: ModbusTable;
  start: number;
  count: number;
}

/** The most one request may read (Modbus application protocol v1.1b3, 6.1-6.4). */
export const MAX_PER_REQUEST: Record<ModbusTable, number> = {
  coil: 2000,
  discrete: 2000,
  holding: 125,
  input: 125,
};

const TABLES: readonly ModbusTable[] = ['holding', 'input', 'coil', 'discrete'];

/** The requests that read everything the profile's fields need. */
export function planReads(profile: ModbusProfile): ReadRequest[] {
  const wanted = new Map<ModbusTable, Set<number>>();
  for (const f of profile.fields) {
    const { table, addresses } = sourceAddresses(f.from);
    const set = wanted.get(table) ?? new Set<number>();
    wanted.set(table, set);
    for (const a of addresses) set.add(a);
  }
  const out: ReadRequest[] = [];
  for (const table of TABLES) {
    const addresses = [...(wanted.get(table) ?? [])].sort((a, b) => a - b);
    let cur: ReadRequest | undefined;
    for (const a of addresses) {
      if (cur && a === cur.start + cur.count && cur.count < MAX_PER_REQUEST[table]) cur.count++;
      else {
        cur = { table, start: a, count: 1 };
        out.push(cur);
      }
    }
  }
  return out;
}

/** The answers of one poll's requests, in the order of the requests. */
export type Answer = readonly number[] | readonly boolean[];

/** The poll's JSON from the requests and their answers. */
export function pollJson(
  polledAt: number,
  unitId: number,
  requests: readonly ReadRequest[],
  answers: readonly Answer[],
): ModbusPollInput {
  const poll = {
    polledAt,
    unitId,
    holding: {} as Record<string, number>,
    input: {} as Record<string, number>,
    coils: {} as Record<string, boolean>,
    discrete: {} as Record<string, boolean>,
  };
  requests.forEach((r, i) => {
    const answer = answers[i] ?? [];
    for (let k = 0; k < r.count; k++) {
      const v = answer[k];
      if (v === undefined) continue;
      const key = String(r.start + k);
      if (r.table === 'coil') poll.coils[key] = Boolean(v);
      else if (r.table === 'discrete') poll.discrete[key] = Boolean(v);
      else (r.table === 'holding' ? poll.holding : poll.input)[key] = Number(v);
    }
  });
  return poll;
}
