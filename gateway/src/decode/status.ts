/**
 * Device status payloads (`sites/{siteId}/devices/{deviceId}/status`, retained, and the last will): the
 * plain text `online` / `offline`, or JSON (`"online"`, `{"status":"offline","ts":...}`). Pure: the
 * arrival time is an argument. Every path that reads a status payload reads it here: the ingest stage
 * records a bad one as a rejection (statusRejection), the external broker input hands a good one to its
 * status handler (parseDeviceStatus).
 */
import type { z } from 'zod';
import { deviceStatusSchema, type RejectReason } from '../../../shared/src/telemetry.ts';

export type DeviceStatus = Extract<z.infer<typeof deviceStatusSchema>, string>;

/** Why a payload is not a device status. */
export type StatusProblem = 'empty' | 'too_long' | 'malformed_json' | 'not_a_status';

export type DecodedStatus =
  | { ok: true; status: DeviceStatus; at: number }
  /** `message`: the JSON parser's, for malformed JSON. */
  | { ok: false; problem: StatusProblem; message?: string };

/**
 * Reads a status payload. `at` is the payload's `ts` when it has a valid one, otherwise `receivedAt`.
 * The empty payload (which clears a retained status) is not a status. `maxLength` bounds the trimmed text.
 */
export function decodeDeviceStatus(
  payload: Buffer | string,
  receivedAt: number,
  maxLength = Number.POSITIVE_INFINITY,
): DecodedStatus {
  const raw = typeof payload === 'string' ? payload : payload.toString('utf8');
  const text = raw.trim();
  if (text === '') return { ok: false, problem: 'empty' };
  if (text.length > maxLength) return { ok: false, problem: 'too_long' };
  let value: unknown = text;
  if (text.startsWith('{') || text.startsWith('"')) {
    try {
      value = JSON.parse(raw);
    } catch (e) {
      return { ok: false, problem: 'malformed_json', message: (e as Error).message };
    }
  }
  const parsed = deviceStatusSchema.safeParse(value);
  if (!parsed.success) return { ok: false, problem: 'not_a_status' };
  if (typeof parsed.data === 'string') return { ok: true, status: parsed.data, at: receivedAt };
  const ts = parsed.data.ts;
  const at = ts === undefined ? receivedAt : typeof ts === 'number' ? ts : Date.parse(ts);
  return { ok: true, status: parsed.data.status, at: Number.isFinite(at) ? at : receivedAt };
}

/** The rejection recorded for a payload on a status topic that is not a status. */
export function statusRejection(s: { problem: StatusProblem; message?: string }): {
  reason: RejectReason;
  detail: string;
} {
  return s.problem === 'malformed_json'
    ? { reason: 'malformed_json', detail: `malformed status: ${s.message}` }
    : { reason: 'wrong_type', detail: 'status must be "online", "offline" or {"status": ...}' };
}

const PROBLEM_TEXT: Record<StatusProblem, string> = {
  empty: 'empty payload',
  too_long: 'payload too long',
  malformed_json: 'malformed JSON',
  not_a_status: 'not online/offline or {status, ts}',
};

export type ParsedDeviceStatus =
  | { ok: true; status: DeviceStatus; at: number }
  | { ok: false; reason: string };

/** A status payload of at most 1024 characters, or the reason it is not one, in words. */
export function parseDeviceStatus(payload: Buffer | string, receivedAt: number): ParsedDeviceStatus {
  const s = decodeDeviceStatus(payload, receivedAt, 1024);
  if (s.ok) return s;
  const text = PROBLEM_TEXT[s.problem];
  return { ok: false, reason: s.message === undefined ? text : `${text}: ${s.message}` };
}
