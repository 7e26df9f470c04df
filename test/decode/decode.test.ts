import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../gateway/src/config/load.ts';
import { buildRegistry } from '../../gateway/src/config/registry.ts';
import { decodeMqttTelemetry, decodeSerialLine } from '../../gateway/src/decode/decode.ts';
import { frameWithCrc } from '../../shared/src/crc16.ts';
import { testConfigInput } from '../helpers/gateway.ts';

const registry = buildRegistry(parseConfig(testConfigInput()));
const opts = { maxPayloadBytes: 512, maxFutureMs: 300_000 };
const NOW = Date.parse('2026-06-01T12:00:00Z');
const topic = 'sites/maple-ridge/devices/rg-1/telemetry';
const mqtt = (payload: string, t = topic) => decodeMqttTelemetry(t, payload, NOW, registry, opts);

describe('decoding MQTT telemetry', () => {
  it('accepts a valid reading, stamping the source time', () => {
    const r = mqtt('{"ts":"2026-06-01T11:59:00Z","seq":4,"rainTips":17,"batteryV":3.9}');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.reading).toMatchObject({
      siteId: 'maple-ridge',
      deviceId: 'rg-1',
      deviceKind: 'rain-gauge',
      seq: 4,
    });
    expect(r.reading.ts).toBe(Date.parse('2026-06-01T11:59:00Z'));
    expect(r.reading.values).toEqual({ rainTips: 17, batteryV: 3.9 });
  });

  it('uses the arrival time when ts is absent, and accepts epoch milliseconds', () => {
    const a = mqtt('{"rainTips":1}');
    expect(a.ok && a.reading.ts).toBe(NOW);
    const b = mqtt(`{"ts":${NOW - 5000},"rainTips":1}`);
    expect(b.ok && b.reading.ts).toBe(NOW - 5000);
  });

  const cases: Array<[string, string, string, string?]> = [
    ['malformed JSON', '{"rainTips":', 'malformed_json'],
    ['not an object', '[1,2]', 'not_an_object'],
    ['unknown field', '{"rainTips":1,"colour":"red"}', 'unknown_field'],
    ['wrong type', '{"rainTips":"12"}', 'wrong_type'],
    ['negative rain', '{"rainTips":-1}', 'out_of_range'],
    ['fractional tip counter', '{"rainTips":1.5}', 'wrong_type'],
    ['bad timestamp', '{"ts":"yesterday","rainTips":1}', 'wrong_type'],
    ['timestamp before 2000', '{"ts":5,"rainTips":1}', 'out_of_range'],
    ['timestamp far in the future', '{"ts":"2026-06-02T12:00:00Z","rainTips":1}', 'future_timestamp'],
    ['reading not for this kind', '{"levelIn":3}', 'field_not_for_kind'],
    ['payload names another device', '{"deviceId":"rg-2","rainTips":1}', 'topic_mismatch'],
  ];
  for (const [name, payload, reason] of cases)
    it(`rejects ${name} with reason ${reason}`, () => {
      const r = mqtt(payload);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.reason).toBe(reason);
        expect(r.detail.length).toBeGreaterThan(5);
      }
    });

  it('names the unknown field in the detail', () => {
    const r = mqtt('{"rainTips":1,"colour":"red"}');
    expect(!r.ok && r.detail).toContain('colour');
  });

  it('rejects an unregistered device, a non-telemetry topic and an oversize payload', () => {
    const u = mqtt('{"rainTips":1}', 'sites/maple-ridge/devices/ghost/telemetry');
    expect(!u.ok && u.reason).toBe('unregistered_device');
    const t = mqtt('{"rainTips":1}', 'sites/maple-ridge/telemetry');
    expect(!t.ok && t.reason).toBe('bad_topic');
    const big = mqtt(JSON.stringify({ rainTips: 1, pad: 'x'.repeat(600) }));
    expect(!big.ok && big.reason).toBe('oversize');
  });

  it('rejects a tank level deeper than the tank', () => {
    const r = decodeMqttTelemetry(
      'sites/oak-lane/devices/panel-1/telemetry',
      '{"levelIn":61}',
      NOW,
      registry,
      opts,
    );
    expect(!r.ok && r.reason).toBe('out_of_range');
    expect(!r.ok && r.detail).toContain('deeper than the tank');
    const ok = decodeMqttTelemetry(
      'sites/oak-lane/devices/panel-1/telemetry',
      '{"levelIn":59,"alarms":{"pump":true}}',
      NOW,
      registry,
      opts,
    );
    expect(ok.ok && ok.reading.alarms).toEqual({ pump: true });
    const alarm = decodeMqttTelemetry(
      'sites/oak-lane/devices/panel-1/telemetry',
      '{"alarms":{"smoke":true}}',
      NOW,
      registry,
      opts,
    );
    expect(!alarm.ok && alarm.reason).toBe('unknown_field');
    expect(!alarm.ok && alarm.detail).toContain('alarms.smoke');
  });
});

describe('decoding serial lines', () => {
  const line = JSON.stringify({ siteId: 'maple-ridge', deviceId: 'rg-1', rainTips: 3, seq: 9 });
  it('accepts a line with and without a CRC suffix', () => {
    const a = decodeSerialLine(frameWithCrc(line), NOW, registry, opts);
    expect(a.ok && a.reading.values.rainTips).toBe(3);
    expect(a.ok && a.reading.transport).toBe('serial');
    const b = decodeSerialLine(line, NOW, registry, opts);
    expect(b.ok).toBe(true);
  });
  it('rejects a CRC that does not match, naming both values', () => {
    const framed = frameWithCrc(line);
    const bad = `${framed.slice(0, -4)}${framed.slice(-4) === '0000' ? '0001' : '0000'}`;
    const r = decodeSerialLine(bad, NOW, registry, opts);
    expect(!r.ok && r.reason).toBe('bad_crc');
    const flipped = decodeSerialLine(
      frameWithCrc(line).replace('"rainTips":3', '"rainTips":4'),
      NOW,
      registry,
      opts,
    );
    expect(!flipped.ok && flipped.reason).toBe('bad_crc');
  });
  it('rejects broken JSON, a missing device and garbage bytes', () => {
    expect(decodeSerialLine('{"siteId":"maple-ridge"', NOW, registry, opts)).toMatchObject({
      ok: false,
      reason: 'malformed_json',
    });
    expect(decodeSerialLine('{"rainTips":1}', NOW, registry, opts)).toMatchObject({
      ok: false,
      reason: 'wrong_type',
    });
    expect(decodeSerialLine('\u0000\u00ff\ufffd~~', NOW, registry, opts)).toMatchObject({
      ok: false,
      reason: 'malformed_json',
    });
    expect(
      decodeSerialLine(JSON.stringify({ siteId: 'x', deviceId: 'y', rainTips: 1 }), NOW, registry, opts),
    ).toMatchObject({ ok: false, reason: 'unregistered_device' });
  });
});
