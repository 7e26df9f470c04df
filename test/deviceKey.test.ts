import { describe, expect, it } from 'vitest';
import { DeviceKeys, deviceKey } from '../gateway/src/deviceKey.ts';

describe('device keys', () => {
  it('builds site/device as one flat string, with another separator when asked', () => {
    expect(deviceKey('site-a', 'gauge-1')).toBe('site-a/gauge-1');
    expect(deviceKey('site-a', 'gauge-1', '\u0000')).toBe('site-a\u0000gauge-1');
  });

  it('gives each device one key, the same at every call, and tells devices apart', () => {
    const keys = new DeviceKeys();
    const first = keys.of('site-a', 'gauge-1');
    expect(first).toBe('site-a/gauge-1');
    expect(keys.of(['site', 'a'].join('-'), ['gauge', '1'].join('-'))).toBe(first);
    expect(keys.of('site-a', 'gauge-2')).toBe('site-a/gauge-2');
    expect(keys.of('site-b', 'gauge-1')).toBe('site-b/gauge-1');
    // Ids hold no "/" (they appear in MQTT topics), so no two devices share a key.
    expect(keys.of('site-a', 'gauge-1')).toBe(first);
  });
});
