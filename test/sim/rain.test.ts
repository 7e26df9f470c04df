import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MM_TIP_IN } from '../../firmware-sim/src/devices/rainGauge.ts';
import { RainCurve, tipsToCurve, typeIIIStorm, uniformRain } from '../../firmware-sim/src/rain/curve.ts';
import { hoboTipTimes, parseHobo, replayHobo } from '../../firmware-sim/src/rain/hobo.ts';
import { TYPE_III_24H, typeIIIFraction } from '../../firmware-sim/src/rain/typeIII.ts';
import { REPO_ROOT } from '../../firmware-sim/src/scenario/load.ts';
import { T0 } from './helpers.ts';

const HOUR = 3_600_000;

describe('NRCS Type III 24-hour distribution', () => {
  it('starts at 0, is 0.500 at 12 h, ends at 1.000 and never decreases', () => {
    expect(TYPE_III_24H[0]).toEqual([0, 0]);
    expect(typeIIIFraction(12)).toBe(0.5);
    expect(TYPE_III_24H[TYPE_III_24H.length - 1]).toEqual([24, 1]);
    for (let i = 1; i < TYPE_III_24H.length; i++) {
      expect(TYPE_III_24H[i]![0]).toBeGreaterThan(TYPE_III_24H[i - 1]![0]);
      expect(TYPE_III_24H[i]![1]).toBeGreaterThanOrEqual(TYPE_III_24H[i - 1]![1]);
    }
  });

  it('matches the tabulated cross-checks: about 0.3 at 11.5 h and 0.7 at 12.5 h, symmetric about 12 h', () => {
    expect(typeIIIFraction(11.5)).toBeCloseTo(0.298, 3);
    expect(typeIIIFraction(12.5)).toBeCloseTo(0.702, 3);
    expect(typeIIIFraction(14)).toBeCloseTo(0.811, 3);
    expect(typeIIIFraction(20)).toBeCloseTo(0.957, 3);
    for (let h = 0; h <= 12; h += 0.25)
      expect(typeIIIFraction(24 - h)).toBeCloseTo(1 - typeIIIFraction(h), 9);
  });

  it('scaled to a depth, turns into exactly the right number of tips', () => {
    expect(typeIIIStorm(T0, 0.62).tipTimes(0.01)).toHaveLength(62);
    expect(typeIIIStorm(T0, 0.45).tipTimes(0.01)).toHaveLength(45);
    expect(typeIIIStorm(T0, 0.5).tipTimes(MM_TIP_IN)).toHaveLength(63);
    expect(typeIIIStorm(T0, 64 * MM_TIP_IN).tipTimes(MM_TIP_IN)).toHaveLength(64);
    const tips = typeIIIStorm(T0, 1.2, 12 * HOUR).tipTimes(0.01);
    expect(tips).toHaveLength(120);
    expect(tips[tips.length - 1]).toBe(T0 + 12 * HOUR);
    expect([...tips].sort((a, b) => a - b)).toEqual(tips);
  });

  it('puts the storm peak near the middle: half the tips fall by 12 h', () => {
    const tips = typeIIIStorm(T0, 1).tipTimes(0.01);
    const byNoon = tips.filter((t) => t <= T0 + 12 * HOUR).length;
    expect(byNoon).toBe(50);
    const peakHour = tips.filter((t) => t > T0 + 11.5 * HOUR && t <= T0 + 12.5 * HOUR).length;
    // tips 30 (0.298 in at 11.5 h exceeded) through 70 (0.702 in at 12.5 h)
    expect(peakHour).toBe(41);
  });

  it('sums sources and keeps uniform rain evenly spaced', () => {
    const u = uniformRain(T0, 0.3, HOUR).tipTimes(0.01);
    expect(u).toHaveLength(30);
    expect(u[0]).toBe(T0 + 120_000);
    const sum = RainCurve.sum([uniformRain(T0, 0.3, HOUR), uniformRain(T0 + 3 * HOUR, 0.3, HOUR)]);
    expect(sum.total).toBeCloseTo(0.6, 9);
    expect(sum.tipTimes(0.01)).toHaveLength(60);
  });
});

describe('HOBO logger replay', () => {
  const file = resolve(REPO_ROOT, 'test/fixtures/rain/hobo_quincemil_2017.csv');

  it('parses counts and logger events and recovers every tip of the real record', () => {
    const rows = parseHobo(
      '02/14/2017 16:00:00,0\n02/14/2017 22:07:19,1\n02/17/2017 14:10:30,\n02/17/2017 14:10:49,3\n',
    );
    expect(rows[2]!.count).toBeUndefined();
    expect(hoboTipTimes(rows)).toEqual([
      Date.UTC(2017, 1, 14, 22, 7, 19),
      Date.UTC(2017, 1, 17, 14, 10, 49),
      Date.UTC(2017, 1, 17, 14, 10, 49),
    ]);
    expect(() => parseHobo('garbage')).toThrow(/not a HOBO row/);
  });

  it('treats a counter drop as a logger restart, not negative rain', () => {
    const rows = parseHobo(
      '01/01/2020 00:00:00,5\n01/01/2020 00:01:00,7\n01/01/2020 00:02:00,0\n01/01/2020 00:03:00,2\n',
    );
    expect(hoboTipTimes(rows)).toHaveLength(4);
  });

  it('replays the quincemil record shifted to the scenario start', () => {
    const all = hoboTipTimes(parseHobo(readFileSync(file, 'utf8')));
    expect(all).toHaveLength(13_911);
    const tips = replayHobo(file, { at: T0, from: Date.UTC(2017, 1, 14, 16), to: Date.UTC(2017, 1, 16, 0) });
    expect(tips.length).toBeGreaterThan(100);
    expect(tips[0]).toBe(T0 + (Date.UTC(2017, 1, 14, 22, 7, 19) - Date.UTC(2017, 1, 14, 16)));
    const curve = tipsToCurve(tips, MM_TIP_IN);
    expect(curve.tipTimes(MM_TIP_IN)).toEqual(tips);
  });
});
