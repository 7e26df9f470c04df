import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../gateway/src/config/load.ts';
import { derivedFields } from '../../../gateway/src/outputs/influx/derived.ts';
import { readingToLine } from '../../../gateway/src/outputs/influx/lineProtocol.ts';
import { stormToLine } from '../../../gateway/src/outputs/influx/storms.ts';
import type { StormDto } from '../../../shared/src/api/alerts.ts';
import type { Reading } from '../../../shared/src/telemetry.ts';

const config = parseConfig({
  gatewayId: 'gw',
  sites: [
    {
      id: 'maple',
      kind: 'construction',
      storm: { thresholdIn: 0.75 },
      lawOverrides: { 'storm-threshold': 'A threshold above the law, with its reason.' },
      sedimentCleanoutFraction: 0.4,
      devices: [
        {
          id: 'rg-1',
          kind: 'rain-gauge',
          inchesPerTip: 0.01,
          calibrations: [{ until: '2026-06-01T00:00:00Z', inchesPerTip: 0.02 }],
        },
        {
          id: 'trap-1',
          kind: 'sediment-trap',
          stageStorage: [
            [0, 0],
            [12, 40],
            [24, 100],
          ],
        },
        { id: 'tank-1', kind: 'holding-tank', liquidDepthIn: 72, highLevelIn: 60 },
        { id: 'tank-2', kind: 'holding-tank', liquidDepthIn: 72 },
      ],
    },
  ],
});
const site = config.sites[0]!;
const of = (id: string) => ({ site, device: site.devices.find((d) => d.id === id)! });
const reading = (
  deviceId: string,
  kind: Reading['deviceKind'],
  ts: number,
  values: Reading['values'],
): Reading => ({
  siteId: 'maple',
  deviceId,
  deviceKind: kind,
  ts,
  receivedAt: ts + 500,
  transport: 'mqtt',
  values,
});
const JUNE = Date.parse('2026-06-15T12:00:00Z');
const MAY = Date.parse('2026-05-15T12:00:00Z');

describe('the fields derived from the configuration', () => {
  it("writes a gauge's counter in inches at the calibration of its time, and the site's threshold", () => {
    expect(derivedFields(reading('rg-1', 'rain-gauge', JUNE, { rainTips: 150 }), of('rg-1'))).toBe(
      `,receivedAtMs=${JUNE + 500}i,rainTotalIn=1.5,thresholdIn=0.75`,
    );
    expect(derivedFields(reading('rg-1', 'rain-gauge', MAY, { rainTips: 150 }), of('rg-1'))).toContain(
      ',rainTotalIn=3,',
    );
  });

  it("writes a trap's fill by volume and the site's cleanout line", () => {
    // 6 in of a 0-12-24 in table with 40 and 100 volume: 20 of 100.
    expect(derivedFields(reading('trap-1', 'sediment-trap', JUNE, { sedimentIn: 6 }), of('trap-1'))).toBe(
      `,receivedAtMs=${JUNE + 500}i,sedimentPct=20,cleanoutPct=40`,
    );
  });

  it("writes a tank's high level only when it has one, and nothing but the arrival for an unknown device", () => {
    expect(derivedFields(reading('tank-1', 'holding-tank', JUNE, { levelIn: 50 }), of('tank-1'))).toBe(
      `,receivedAtMs=${JUNE + 500}i,highLevelIn=60`,
    );
    expect(derivedFields(reading('tank-2', 'holding-tank', JUNE, { levelIn: 50 }), of('tank-2'))).toBe(
      `,receivedAtMs=${JUNE + 500}i`,
    );
    expect(derivedFields(reading('x', 'holding-tank', JUNE, { levelIn: 50 }), undefined)).toBe(
      `,receivedAtMs=${JUNE + 500}i`,
    );
  });

  it("appends them to the reading's own fields", () => {
    const r = reading('tank-1', 'holding-tank', JUNE, { levelIn: 50 });
    expect(readingToLine(r, derivedFields(r, of('tank-1')))).toBe(
      `telemetry,device=tank-1,kind=holding-tank,site=maple levelIn=50,receivedAtMs=${JUNE + 500}i,highLevelIn=60 ${JUNE}`,
    );
  });
});

describe('the storms measurement', () => {
  it('writes one point per storm at its start, with its threshold', () => {
    const storm = {
      id: 'maple:rg 1:1',
      siteId: 'maple',
      deviceId: 'rg 1',
      start: '2026-06-15T10:00:00.000Z',
      end: '2026-06-15T11:00:00.000Z',
      tips: 62,
      inches: 0.62,
      qualified: true,
      closed: false,
      inspection: { status: 'pending' },
    } as StormDto;
    expect(stormToLine(storm, 0.5)).toBe(
      `storms,device=rg\\ 1,site=maple inches=0.62,tips=62,thresholdIn=0.5,qualified=true,closed=false,event_id="maple:rg 1:1" ${Date.parse(storm.start)}`,
    );
    expect(stormToLine(storm, undefined)).not.toContain('thresholdIn');
  });
});
