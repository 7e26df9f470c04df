import { deviceStatusSchema } from '../../../../shared/src/telemetry.ts';

export type DeviceStatus = 'online' | 'offline';

export type ParsedDeviceStatus =
  | { ok: true; status: DeviceStatus; at: number }
  | { ok: false; reason: string };

/**
 * Reads a device status payload (`sites/{siteId}/devices/{deviceId}/status`): the plain text
 * `online` / `offline`, or JSON (`"online"`, `{"status":"offline","ts":...}`). Anything else,
 * including the empty payload that clears a retained status, is `ok: false` with the reason.
 * `at` is the payload's `ts` when it has a valid one, otherwise `receivedAt`.
 */
export function parseDeviceStatus(payload: Buffer | string, receivedAt: number): ParsedDeviceStatus {
  const text = (typeof payload === 'string' ? payload : payload.toString('utf8')).trim();
  if (text === '') return { ok: false, reason: 'empty payload' };
  if (text.length > 1024) return { ok: false, reason: 'payload too long' };
  let value: unknown = text;
  if (text.startsWith('{') || text.startsWith('"')) {
    try {
      value = JSON.parse(text);
    } catch (e) {
      return { ok: false, reason: `malformed JSON: ${(e as Error).message}` };
    }
  }
  const parsed = deviceStatusSchema.safeParse(value);
  if (!parsed.success) return { ok: false, reason: 'not online/offline or {status, ts}' };
  if (typeof parsed.data === 'string') return { ok: true, status: parsed.data, at: receivedAt };
  const ts = parsed.data.ts;
  const at = ts === undefined ? receivedAt : typeof ts === 'number' ? ts : Date.parse(ts);
  return { ok: true, status: parsed.data.status, at: Number.isFinite(at) ? at : receivedAt };
}
