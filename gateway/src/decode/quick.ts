/**
 * The common case of a telemetry payload, accepted without running the zod schema: a flat object of
 * known readings within READING_BOUNDS, an integer `seq`, an epoch-millisecond `ts`, and an `alarms`
 * object of booleans. It reads the same bounds and constants the schema is built from.
 *
 * It only ever says "certainly valid": anything else (an ISO `ts`, a value out of range, an unknown
 * key, a wrong type) returns undefined and goes through `telemetryPayloadSchema`, which gives the
 * precise rejection. The fuzz tests check that whatever this accepts, the schema accepts too, with
 * the same data.
 */
import {
  ALARM_NAMES,
  MIN_SOURCE_TS,
  READING_BOUNDS,
  type TelemetryPayload,
} from '../../../shared/src/telemetry.ts';

const MAX_TS = 8.64e15;
const BOUNDS = new Map<string, { min: number; max: number; int: boolean }>(Object.entries(READING_BOUNDS));
const ALARMS = new Set<string>(ALARM_NAMES);

function quickAlarms(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  for (const k in v) {
    if (!Object.hasOwn(v, k) || !ALARMS.has(k)) return false;
    if (typeof (v as Record<string, unknown>)[k] !== 'boolean') return false;
  }
  return true;
}

/** The payload itself, typed, when it is certainly valid; undefined when the schema must decide. */
export function quickTelemetry(v: unknown): TelemetryPayload | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  if (Object.getPrototypeOf(v) !== Object.prototype) return undefined;
  const o = v as Record<string, unknown>;
  for (const k in o) {
    if (!Object.hasOwn(o, k)) return undefined;
    const x = o[k];
    const b = BOUNDS.get(k);
    if (b !== undefined) {
      if (typeof x !== 'number' || !Number.isFinite(x) || x < b.min || x > b.max) return undefined;
      if (b.int && !Number.isInteger(x)) return undefined;
    } else if (k === 'ts') {
      if (typeof x !== 'number' || !Number.isInteger(x) || x < MIN_SOURCE_TS || x > MAX_TS) return undefined;
    } else if (k === 'seq') {
      if (typeof x !== 'number' || !Number.isInteger(x) || x < 0 || x > Number.MAX_SAFE_INTEGER)
        return undefined;
    } else if (k === 'alarms') {
      if (!quickAlarms(x)) return undefined;
    } else return undefined;
  }
  return o as TelemetryPayload;
}
