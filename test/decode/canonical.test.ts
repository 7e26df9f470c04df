/** What the quarantine keeps of a payload (decode/canonical.ts): compact JSON, or a reason it is refused. */
import { describe, expect, it } from 'vitest';
import { canonicalPayload } from '../../gateway/src/decode/canonical.ts';
import { frameWithCrc } from '../../shared/src/crc16.ts';

describe('canonicalPayload', () => {
  it('keeps a padded MQTT payload as compact JSON, whitespace before, after and inside dropped', () => {
    const padded = Buffer.from(`${' '.repeat(2000)}{\n\t"seq" : 1 ,  "rainTips":  2 }${' '.repeat(2000)}`);
    expect(canonicalPayload('mqtt', padded, 16_384)).toEqual({ ok: true, text: '{"seq":1,"rainTips":2}' });
  });

  it("drops a serial line's CRC suffix with its whitespace; keeps the text of strings as they are", () => {
    const line = `  ${frameWithCrc('{ "siteId": "a b", "deviceId": "d", "seq": 3 }')}  `;
    expect(canonicalPayload('serial', line, 16_384)).toEqual({
      ok: true,
      text: '{"siteId":"a b","deviceId":"d","seq":3}',
    });
    // On MQTT a `*XXXX` tail is no CRC: not JSON.
    expect(canonicalPayload('mqtt', frameWithCrc('{"seq":3}'), 16_384)).toMatchObject({
      ok: false,
      reason: 'malformed_json',
    });
  });

  it('refuses what is not a JSON object, and what is too long even without whitespace', () => {
    expect(canonicalPayload('mqtt', '   rainTips=1   ', 100)).toMatchObject({
      ok: false,
      reason: 'malformed_json',
    });
    expect(canonicalPayload('mqtt', ' [1, 2] ', 100)).toMatchObject({ ok: false, reason: 'not_an_object' });
    expect(canonicalPayload('mqtt', 'null', 100)).toMatchObject({ ok: false, reason: 'not_an_object' });
    const long = JSON.stringify({ note: 'x'.repeat(200) });
    expect(canonicalPayload('mqtt', long, 100)).toMatchObject({ ok: false, reason: 'oversize' });
  });
});
