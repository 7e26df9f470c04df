/**
 * A storm's rain series (reports/rainSeries.ts) counts rain the way the storm rule does: a tip counter's
 * increase since the reading before (a drop is a reset, never negative rain), at the calibration in force
 * at each reading, interval readings as they are, a source time seen twice once; read in pages of the
 * store's rows, with at most `maxPoints` points and bars on the site's local hours.
 */
import { describe, expect, it } from 'vitest';
import {
  barLength,
  calibrationAt,
  type RainReadings,
  rainSeries,
} from '../../gateway/src/reports/rainSeries.ts';
import type { StoredReading } from '../../gateway/src/store/readings.ts';

const H = 3_600_000;
const from = Date.parse('2026-11-20T15:00:00Z');

/** An in-memory store of one gauge's readings, answering as ReadingStore does (and counting its pages). */
function store(values: Array<[ts: number, v: StoredReading['values']]>, before?: number) {
  const rows = values.map(
    ([ts, v], i): StoredReading => ({
      id: i + 1,
      siteId: 's',
      deviceId: 'g',
      deviceKind: 'rain-gauge',
      ts,
      receivedAt: ts,
      transport: 'mqtt',
      values: v,
      hash: '',
      logIdx: i,
    }),
  );
  const pages: number[] = [];
  const db: RainReadings = {
    query: (o) => {
      const page = rows.filter((r) => r.ts >= o.from && r.ts <= o.to).slice(0, o.limit);
      pages.push(page.length);
      return page;
    },
    counterBefore: () => (before === undefined ? undefined : { ts: from - H, tips: before }),
  };
  return { db, pages };
}

const input = { siteId: 's', deviceId: 'g', timezone: 'America/New_York', inchesPerTipAt: () => 0.01 };

describe('the rain series of a storm', () => {
  it("counts a counter's increases from the reading before the storm, a reset as new rain", async () => {
    const { db } = store(
      [
        [from, { rainTips: 101 }],
        [from + 60_000, { rainTips: 110 }],
        // The gauge rebooted: its counter starts again from 0; 4 tips since.
        [from + 120_000, { rainTips: 4 }],
        [from + 180_000, { rainTips: 10 }],
      ],
      100,
    );
    const s = await rainSeries(db, { ...input, from, to: from + 180_000 });
    expect(s.points[0]).toEqual([from, 0]);
    expect(s.points.at(-1)![1]).toBeCloseTo((1 + 9 + 4 + 6) * 0.01, 9);
    expect(s.points.every(([, v], i) => i === 0 || v >= s.points[i - 1]![1])).toBe(true);
  });

  it('counts each reading at the calibration in force at its time, and interval readings as they are', async () => {
    const { db } = store(
      [
        [from, { rainTips: 10 }],
        [from + H, { rainTips: 20 }],
        [from + 2 * H, { rainIn: 0.3 }],
      ],
      0,
    );
    const at = calibrationAt(0.02, [{ until: from + 30 * 60_000, inchesPerTip: 0.01 }]);
    const s = await rainSeries(db, { ...input, inchesPerTipAt: at, from, to: from + 2 * H });
    // 10 tips at 0.01 in, 10 at 0.02 in, and 0.3 in.
    expect(s.points.at(-1)![1]).toBeCloseTo(0.1 + 0.2 + 0.3, 9);
  });

  it('counts a source time seen twice once', async () => {
    const { db } = store(
      [
        [from, { rainTips: 1 }],
        [from, { rainTips: 1 }],
        [from + 60_000, { rainTips: 2 }],
      ],
      0,
    );
    const s = await rainSeries(db, { ...input, from, to: from + 60_000 });
    expect(s.points.at(-1)![1]).toBeCloseTo(0.02, 9);
  });

  it('reads a long storm in pages, keeps at most maxPoints points and puts bars on local hours', async () => {
    // 5,000 tips, one a minute: 83 hours.
    const n = 5000;
    const { db, pages } = store(
      Array.from({ length: n }, (_, i) => [from + i * 60_000, { rainTips: i + 1 }]),
      0,
    );
    const to = from + (n - 1) * 60_000;
    const s = await rainSeries(db, { ...input, from, to, maxPoints: 100 });
    expect(pages.length).toBeGreaterThan(2);
    expect(Math.max(...pages)).toBeLessThanOrEqual(2000);
    expect(s.points.length).toBeLessThanOrEqual(102);
    expect(s.points.at(-1)).toEqual([to, expect.closeTo(n * 0.01, 6)]);
    // 83 hours: bars of 2 hours, starting on even local hours (New York, EST: UTC-5).
    expect(s.barMs).toBe(2 * H);
    expect(s.bars.reduce((a, b) => a + b.inches, 0)).toBeCloseTo(n * 0.01, 6);
    for (const b of s.bars) expect(new Date(b.from - 5 * H).getUTCHours() % 2).toBe(0);
    expect(new Date(s.bars[0]!.from - 5 * H).getUTCHours()).toBe(10);
  });

  it('picks bars of an hour for a day-long storm, of a week for a season-long drizzle', () => {
    expect(barLength(24 * H)).toBe(H);
    expect(barLength(100 * H)).toBe(2 * H);
    expect(barLength(120 * 24 * H)).toBe(7 * 24 * H);
    expect(barLength(1000 * 24 * H) % (24 * H)).toBe(0);
  });
});
