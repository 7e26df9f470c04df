/** The external MQTT input's pure parts: device status payloads, and broker URLs without their credentials. */
import { describe, expect, it } from 'vitest';
import { parseDeviceStatus } from '../../../gateway/src/decode/status.ts';
import { redactUrl } from '../../../gateway/src/ingest/mqtt/redact.ts';

describe('parseDeviceStatus and redactUrl', () => {
  it('reads plain and JSON status payloads and rejects others', () => {
    expect(parseDeviceStatus('online', 5)).toEqual({ ok: true, status: 'online', at: 5 });
    expect(parseDeviceStatus(Buffer.from(' offline\n'), 5)).toEqual({ ok: true, status: 'offline', at: 5 });
    expect(parseDeviceStatus('"offline"', 5)).toEqual({ ok: true, status: 'offline', at: 5 });
    expect(parseDeviceStatus('{"status":"online","ts":"2024-05-01T12:00:00Z"}', 5)).toEqual({
      ok: true,
      status: 'online',
      at: Date.parse('2024-05-01T12:00:00Z'),
    });
    expect(parseDeviceStatus('{"status":"offline","ts":1714564800000}', 5)).toMatchObject({
      at: 1714564800000,
    });
    expect(parseDeviceStatus('', 5)).toEqual({ ok: false, reason: 'empty payload' });
    expect(parseDeviceStatus('{"status":"asleep"}', 5).ok).toBe(false);
    expect(parseDeviceStatus('{bad json', 5)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^malformed JSON/),
    });
    expect(parseDeviceStatus('{"status":"online","extra":1}', 5).ok).toBe(false);
  });

  it('removes credentials from the broker url', () => {
    expect(redactUrl('mqtts://gw:s3cret@broker.example:8883')).toBe('mqtts://broker.example:8883');
    expect(redactUrl('mqtt://127.0.0.1:1883')).toBe('mqtt://127.0.0.1:1883');
    expect(redactUrl('mqtt://gw:p%40ss@h:1')).toBe('mqtt://h:1');
    expect(redactUrl('not a url')).toBe('(unparsable url)');
  });
});
