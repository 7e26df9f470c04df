/**
 * What the quarantine keeps of a message: its JSON object as compact JSON, never the bytes as sent. A
 * payload padded with whitespace (before, after or inside the JSON) is kept at the size of its content,
 * so padding cannot make one kept message cost more than its readings; a serial line's checked CRC suffix
 * (`*XXXX`) is dropped with it (the CRC was verified before, and a line without one decodes the same).
 * A payload that is not a JSON object is refused (it could never be released as a reading). Pure.
 */
import type { RejectReason } from '../../../shared/src/telemetry.ts';

const CRC_SUFFIX = /\*[0-9A-Fa-f]{4}$/;

export type Canonical = { ok: true; text: string } | { ok: false; reason: RejectReason; detail: string };

/** The compact JSON of a message's object, or why it cannot be kept; `maxChars`: the most kept. */
export function canonicalPayload(transport: string, payload: Buffer | string, maxChars: number): Canonical {
  let text = (typeof payload === 'string' ? payload : payload.toString('utf8')).trim();
  if (transport === 'serial') text = text.replace(CRC_SUFFIX, '');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, reason: 'malformed_json', detail: `malformed JSON: ${(e as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, reason: 'not_an_object', detail: 'payload must be a JSON object' };
  const compact = JSON.stringify(value);
  if (compact.length > maxChars)
    return {
      ok: false,
      reason: 'oversize',
      detail: `payload of ${compact.length} characters (without whitespace) is more than the quarantine keeps (${maxChars})`,
    };
  return { ok: true, text: compact };
}
