import { describe, expect, it } from 'vitest';
import {
  alertChangeToLine,
  escapeKey,
  escapeMeasurement,
  readingToLine,
  stringField,
} from '../../../gateway/src/outputs/influx/lineProtocol.ts';
import type { Reading } from '../../../shared/src/telemetry.ts';

const base: Reading = {
  siteId: 'maple-ridge',
  deviceId: 'rg-1',
  deviceKind: 'rain-gauge',
  ts: 1_795_000_000_123,
  receivedAt: 1_795_000_000_500,
  transport: 'mqtt',
  values: {},
};

describe('readingToLine', () => {
  it('writes measurement, sorted tags, float fields and a ms timestamp', () => {
    const line = readingToLine({ ...base, values: { rainTips: 12, batteryV: 3.7 }, seq: 42 });
    expect(line).toBe(
      'telemetry,device=rg-1,kind=rain-gauge,site=maple-ridge rainTips=12,batteryV=3.7,seq=42i 1795000000123',
    );
  });

  it('keeps every reading a float: integral values get no i suffix', () => {
    const line = readingToLine({ ...base, values: { rainTips: 0, rssi: -70 } });
    expect(line).toContain(' rainTips=0,rssi=-70 ');
    expect(line).not.toMatch(/rainTips=\d+i/);
  });

  it('writes alarms as boolean fields named alarm_<input>', () => {
    const line = readingToLine({
      ...base,
      deviceId: 'panel-1',
      deviceKind: 'septic-panel',
      values: { levelIn: 40.5 },
      alarms: { highWater: true, pump: false },
    });
    expect(line).toBe(
      'telemetry,device=panel-1,kind=septic-panel,site=maple-ridge levelIn=40.5,alarm_highWater=true,alarm_pump=false 1795000000123',
    );
  });

  it('truncates a fractional timestamp to whole milliseconds', () => {
    expect(readingToLine({ ...base, ts: 1_795_000_000_123.9, values: { rainIn: 0.01 } })).toMatch(
      / 1795000000123$/,
    );
  });

  it('skips values line protocol cannot carry and returns an empty line when nothing is left', () => {
    expect(readingToLine({ ...base, values: { rainIn: Number.NaN, batteryV: 3 } })).toBe(
      'telemetry,device=rg-1,kind=rain-gauge,site=maple-ridge batteryV=3 1795000000123',
    );
    expect(readingToLine({ ...base, values: {} })).toBe('');
  });

  it('escapes commas, spaces and equals signs in tag values', () => {
    const line = readingToLine({ ...base, siteId: 'a b,c=d', deviceId: 'x', values: { rainIn: 1 } });
    expect(line).toBe('telemetry,device=x,kind=rain-gauge,site=a\\ b\\,c\\=d rainIn=1 1795000000123');
  });
});

describe('escaping', () => {
  it('escapes tag keys and values', () => {
    expect(escapeKey('a,b c=d')).toBe('a\\,b\\ c\\=d');
    expect(escapeKey('plain-id_1.2')).toBe('plain-id_1.2');
  });
  it('turns control characters into visible escapes so a line never breaks', () => {
    expect(escapeKey('a\nb\tc')).toBe('a\\nb\\tc');
    expect(escapeKey('a\nb')).not.toContain('\n');
  });
  it('doubles a backslash only where it would escape the next separator', () => {
    expect(escapeKey('a\\b')).toBe('a\\b');
    expect(escapeKey('a\\')).toBe('a\\\\');
    expect(escapeKey('a\\ b')).toBe('a\\\\\\ b');
  });
  it('escapes measurement names (commas and spaces, not equals signs)', () => {
    expect(escapeMeasurement('my measurement,x=1')).toBe('my\\ measurement\\,x=1');
  });
  it('quotes string fields, escaping quotes and backslashes', () => {
    expect(stringField('say "hi" \\o/')).toBe('"say \\"hi\\" \\\\o/"');
  });
});

describe('alertChangeToLine', () => {
  it('writes the alerts measurement with typed fields', () => {
    const line = alertChangeToLine({
      siteId: 'maple-ridge',
      rule: 'storm-inspection',
      alertId: 'a-17',
      deviceId: 'rg-1',
      status: 'open',
      overdue: false,
      at: 1_795_000_000_000,
      dueAt: 1_795_086_400_000,
      action: 'raise',
    });
    expect(line).toBe(
      'alerts,device=rg-1,rule=storm-inspection,site=maple-ridge status="open",overdue=false,action="raise",alert_id="a-17",due_at=1795086400000i 1795000000000',
    );
  });

  it('omits the device tag and due_at when absent, and quotes free text', () => {
    const line = alertChangeToLine({
      siteId: '12-oak-lane',
      rule: 'annual-inspection',
      alertId: 'a "1"',
      status: 'acknowledged',
      overdue: true,
      at: 1_795_000_000_000,
      action: 'ack',
      by: 'J. Smith, inspector',
    });
    expect(line).toBe(
      'alerts,rule=annual-inspection,site=12-oak-lane status="acknowledged",overdue=true,action="ack",alert_id="a \\"1\\"",by="J. Smith, inspector" 1795000000000',
    );
    expect(line).not.toContain('device=');
    expect(line).not.toContain('due_at');
  });
});
