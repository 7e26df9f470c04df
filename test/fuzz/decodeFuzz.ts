/**
 * Fuzzing of the decoders: random and mutated payloads must each give a reading or a rejection with a
 * known reason, never an exception, and a valid message after any garbage still decodes.
 * Used by the test suite (2,000 inputs) and by `npm run fuzz -- 100000`.
 */

import { isDeepStrictEqual } from 'node:util';
import { parseConfig } from '../../gateway/src/config/load.ts';
import { buildRegistry } from '../../gateway/src/config/registry.ts';
import { decodeMqttTelemetry, decodeSerialLine } from '../../gateway/src/decode/decode.ts';
import { quickTelemetry } from '../../gateway/src/decode/quick.ts';
import { frameWithCrc } from '../../shared/src/crc16.ts';
import {
  READING_BOUNDS,
  READING_NAMES,
  REJECT_REASONS,
  type ReadingName,
  telemetryPayloadSchema,
} from '../../shared/src/telemetry.ts';
import { testConfigInput } from '../helpers/gateway.ts';

/** sfc32: a small seeded generator, so a failing input can be replayed from its seed. */
export function rng(seed: number) {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const next = () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (a + b + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

const KEYS = [
  'ts',
  'seq',
  'rainTips',
  'rainIn',
  'levelIn',
  'sludgeIn',
  'scumIn',
  'sedimentIn',
  'turbidityNtu',
  'batteryV',
  'rssi',
  'alarms',
  'siteId',
  'deviceId',
  'colour',
  '__proto__',
  'constructor',
];
const ALARMS = ['highWater', 'pump', 'blower', 'panel', 'field', 'smoke'];

function randomValue(r: () => number, depth = 0): unknown {
  const k = Math.floor(r() * 12);
  switch (k) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return Math.floor(r() * 2000) - 1000;
    case 3:
      return (r() - 0.5) * 10 ** Math.floor(r() * 20);
    case 4:
      return Date.now() + Math.floor((r() - 0.5) * 1e12);
    case 5:
      return new Date(Date.now() + (r() - 0.7) * 1e11).toISOString();
    case 6:
      return 'x'.repeat(Math.floor(r() * 50));
    case 7:
      return depth < 3 ? Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1)) : [];
    case 8:
      return depth < 3
        ? Object.fromEntries(ALARMS.filter(() => r() < 0.4).map((a) => [a, randomValue(r, depth + 1)]))
        : {};
    case 9:
      return Number.MAX_SAFE_INTEGER * (r() < 0.5 ? 1 : -1);
    case 10:
      return '2026-13-45T99:99:99Z';
    default:
      return Math.round(r() * 100) / 10;
  }
}

export function randomPayload(r: () => number): string {
  const mode = Math.floor(r() * 6);
  if (mode === 0)
    return String.fromCharCode(...Array.from({ length: Math.floor(r() * 60) }, () => Math.floor(r() * 256)));
  const obj: Record<string, unknown> = {};
  for (const key of KEYS) if (r() < 0.25) obj[key] = randomValue(r);
  let text = JSON.stringify(obj);
  if (mode === 1 && text.length > 2) {
    const chars = [...text];
    for (let i = 0; i < 1 + Math.floor(r() * 3); i++)
      chars[Math.floor(r() * chars.length)] = String.fromCharCode(Math.floor(r() * 128));
    text = chars.join('');
  }
  if (mode === 2) text = '['.repeat(Math.floor(r() * 5000)) + text;
  if (mode === 3) text = `${text}${' '.repeat(Math.floor(r() * 5000))}`;
  return text;
}

/** A payload near the valid ones: known fields, values at, inside and just past their bounds. */
export function nearValidPayload(r: () => number): Record<string, unknown> {
  const obj: Record<string, unknown> = {};
  for (const name of READING_NAMES) {
    if (r() < 0.6) continue;
    const b = READING_BOUNDS[name];
    const pick = Math.floor(r() * 8);
    obj[name] =
      pick === 0
        ? b.min
        : pick === 1
          ? b.max
          : pick === 2
            ? b.max + 1e-9 * Math.max(1, Math.abs(b.max))
            : pick === 3
              ? b.min - 0.5
              : pick === 4
                ? Math.round(b.min + r() * (b.max - b.min))
                : b.min + r() * (b.max - b.min);
  }
  if (r() < 0.7) obj.seq = r() < 0.95 ? Math.floor(r() * 1e6) : r() < 0.5 ? -1 : 1.5;
  if (r() < 0.7)
    obj.ts =
      r() < 0.8 ? Date.now() - Math.floor(r() * 1e9) : r() < 0.5 ? 946684799999 : new Date().toISOString();
  if (r() < 0.2)
    obj.alarms = Object.fromEntries(
      ALARMS.filter(() => r() < 0.4).map((a) => [a, r() < 0.9 ? r() < 0.5 : 1]),
    );
  if (r() < 0.05) obj[r() < 0.5 ? 'colour' : '__proto__'] = 1;
  return obj;
}

export interface FuzzResult {
  inputs: number;
  accepted: number;
  rejectedByReason: Record<string, number>;
  /** Payloads the fast path accepted, and those the schema accepted (the fast path must be a subset). */
  quick: { accepted: number; schemaAccepted: number };
  failures: string[];
}

/** Whatever the fast path accepts, the schema must accept, with identical data. */
function compareQuickPath(value: unknown, out: FuzzResult, payload: string): void {
  const quick = quickTelemetry(value);
  const schema = telemetryPayloadSchema.safeParse(value);
  if (schema.success) out.quick.schemaAccepted++;
  if (quick === undefined) return;
  out.quick.accepted++;
  if (!schema.success)
    out.failures.push(`fast path accepted what the schema rejects: ${payload.slice(0, 160)}`);
  else if (!isDeepStrictEqual({ ...schema.data }, { ...quick }))
    out.failures.push(`fast path and schema disagree on the data of ${payload.slice(0, 160)}`);
}

export function fuzzDecoders(inputs: number, seed = 1): FuzzResult {
  const registry = buildRegistry(parseConfig(testConfigInput()));
  const opts = { maxPayloadBytes: 4096, maxFutureMs: 300_000 };
  const now = Date.now();
  const r = rng(seed);
  const out: FuzzResult = {
    inputs,
    accepted: 0,
    rejectedByReason: {},
    quick: { accepted: 0, schemaAccepted: 0 },
    failures: [],
  };
  const valid = JSON.stringify({ seq: 1, rainTips: 5 });
  const check = (kind: string, payload: string, fn: () => ReturnType<typeof decodeSerialLine>) => {
    let res: ReturnType<typeof decodeSerialLine>;
    try {
      res = fn();
    } catch (e) {
      out.failures.push(`${kind} threw ${(e as Error).message} for ${JSON.stringify(payload.slice(0, 120))}`);
      return;
    }
    if (res.ok) {
      out.accepted++;
      for (const [k, v] of Object.entries(res.reading.values)) {
        const b = READING_BOUNDS[k as ReadingName];
        if (!b || typeof v !== 'number' || v < b.min || v > b.max || !Number.isFinite(v))
          out.failures.push(`${kind} accepted ${k}=${v} from ${JSON.stringify(payload.slice(0, 120))}`);
      }
      if (!Number.isFinite(res.reading.ts) || res.reading.ts > now + opts.maxFutureMs)
        out.failures.push(`${kind} accepted ts ${res.reading.ts}`);
    } else {
      if (!(REJECT_REASONS as readonly string[]).includes(res.reason) || res.detail.length === 0)
        out.failures.push(`${kind} gave an unknown reason ${res.reason}`);
      out.rejectedByReason[res.reason] = (out.rejectedByReason[res.reason] ?? 0) + 1;
    }
  };
  for (let i = 0; i < inputs; i++) {
    const near = JSON.stringify(nearValidPayload(r));
    compareQuickPath(JSON.parse(near), out, near);
    const payload = randomPayload(r);
    try {
      compareQuickPath(JSON.parse(payload), out, payload);
    } catch {
      // Not JSON: neither path sees it.
    }
    if (i % 2 === 0) {
      check('mqtt', payload, () =>
        decodeMqttTelemetry('sites/maple-ridge/devices/rg-1/telemetry', payload, now, registry, opts),
      );
      const after = decodeMqttTelemetry(
        'sites/maple-ridge/devices/rg-1/telemetry',
        valid,
        now,
        registry,
        opts,
      );
      if (!after.ok) out.failures.push('a valid message was rejected after garbage');
    } else {
      let line = payload;
      if (r() < 0.5 && line.startsWith('{'))
        line = frameWithCrc(line.replace('{', '{"siteId":"maple-ridge","deviceId":"rg-1",'));
      check('serial', line, () => decodeSerialLine(line, now, registry, opts));
    }
  }
  return out;
}
