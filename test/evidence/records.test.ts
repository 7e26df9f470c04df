import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../gateway/src/ledger/canonical.ts';
import { readingBody, readingRecord } from '../../gateway/src/ledger/records.ts';
import type { Reading } from '../../shared/src/telemetry.ts';

describe('canonical record bodies', () => {
  it('a reading written out by hand is its canonical JSON, for every shape a reading takes', () => {
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const names = [
      'rainTips',
      'rainIn',
      'levelIn',
      'sludgeIn',
      'scumIn',
      'sedimentIn',
      'turbidityNtu',
      'batteryV',
      'rssi',
    ];
    const alarms = ['highWater', 'pump', 'blower', 'panel', 'field'];
    for (let i = 0; i < 2000; i++) {
      const values: Record<string, number> = {};
      for (const n of names)
        if (rnd() < 0.4)
          values[n] = Math.round(rnd() * 1e6) / (rnd() < 0.5 ? 1 : 1000) - (n === 'rssi' ? 100 : 0);
      const r: Reading = {
        siteId: rnd() < 0.1 ? 'site "quoted" \\ ü' : 'maple-ridge',
        deviceId: `d-${i}`,
        deviceKind: 'septic-panel',
        ts: 1_700_000_000_000 + i,
        receivedAt: 1_700_000_000_500 + i,
        transport: rnd() < 0.5 ? 'mqtt' : 'serial',
        values,
      };
      if (rnd() < 0.5) r.seq = i;
      if (rnd() < 0.3)
        r.alarms = Object.fromEntries(alarms.filter(() => rnd() < 0.5).map((a) => [a, rnd() < 0.5]));
      expect(readingBody(r)).toBe(canonicalJson(readingRecord(r)));
    }
  });
});
