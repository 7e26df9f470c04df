import { describe, expect, it } from 'vitest';
import { decodeDeviceStatus, parseDeviceStatus, statusRejection } from '../../gateway/src/decode/status.ts';

describe('device status payloads', () => {
  it('reads the plain and the JSON forms, with the payload time when it has a valid one', () => {
    expect(decodeDeviceStatus(' online\r\n', 5)).toEqual({ ok: true, status: 'online', at: 5 });
    expect(decodeDeviceStatus(Buffer.from('"offline"'), 5)).toEqual({ ok: true, status: 'offline', at: 5 });
    expect(decodeDeviceStatus('{"status":"online","ts":1714564800000}', 5)).toEqual({
      ok: true,
      status: 'online',
      at: 1714564800000,
    });
    expect(decodeDeviceStatus('{"status":"offline"}', 5)).toEqual({ ok: true, status: 'offline', at: 5 });
  });

  it('says why a payload is not a status', () => {
    expect(decodeDeviceStatus('  ', 5)).toEqual({ ok: false, problem: 'empty' });
    expect(decodeDeviceStatus('asleep', 5)).toEqual({ ok: false, problem: 'not_a_status' });
    expect(decodeDeviceStatus('{"status":"online","extra":1}', 5)).toEqual({
      ok: false,
      problem: 'not_a_status',
    });
    expect(decodeDeviceStatus('{"status":', 5)).toMatchObject({ ok: false, problem: 'malformed_json' });
    expect(decodeDeviceStatus(`"online"${' '.repeat(2000)}`, 5).ok).toBe(true);
    expect(decodeDeviceStatus(`{"status":${' '.repeat(2000)}"online"}`, 5, 1024)).toEqual({
      ok: false,
      problem: 'too_long',
    });
  });

  it('gives the ingest stage a rejection and the external input a reason in words', () => {
    const malformed = decodeDeviceStatus('{"status":', 5);
    expect(malformed.ok).toBe(false);
    if (malformed.ok) return;
    expect(statusRejection(malformed)).toEqual({
      reason: 'malformed_json',
      detail: `malformed status: ${malformed.message}`,
    });
    expect(statusRejection({ problem: 'empty' })).toEqual({
      reason: 'wrong_type',
      detail: 'status must be "online", "offline" or {"status": ...}',
    });
    expect(parseDeviceStatus('{"status":', 5)).toEqual({
      ok: false,
      reason: `malformed JSON: ${malformed.message}`,
    });
    expect(parseDeviceStatus(`{"status":${' '.repeat(2000)}"online"}`, 5)).toEqual({
      ok: false,
      reason: 'payload too long',
    });
  });
});
