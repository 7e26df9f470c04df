/**
 * Reports with bounded memory, against the real gateway process (`npm start`'s heap: 128 MB old space):
 * a months-long drizzle of one gauge (tens of thousands of readings, generated here and imported as
 * logger downloads, each a storm of more readings than a report carries here), then reports of it: a 5-day and a 2-year report stay a few megabytes and verify
 * (the long storm by its record, said so in the verdict's notes); three 2-year reports at once each
 * complete or are refused with 503 and Retry-After, the process lives and /api/health keeps answering,
 * without a stall while two are built (target p99 under 100 ms; asserted under 500 ms, or four times its
 * p99 alone, so that a loaded machine does not fail it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReportJson, verifyReport } from '../../gateway/src/verifier/verify.ts';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import {
  drizzleConfig,
  drizzleHobo,
  getReport,
  importDrizzle,
  sampleHealth,
  samplePeak,
} from '../helpers/reports.ts';

/** About 5 months of a tip every 10 minutes, in four logger downloads (a storm each). */
const READINGS = 20_000;
/** What a report carries at most, here: each storm has more readings. */
const MAX_CITED = 2_000;
const MB = 1 << 20;

describe('reports of a months-long storm under a 128 MB heap', () => {
  let gw: GatewayChild;
  let key: string;
  let baselineP99: number;
  const now = Date.now();
  const day = (ago: number) => new Date(now - ago * 86_400_000).toISOString().slice(0, 10);
  const twoYears = () => `from=${day(730)}&to=${day(0)}`;

  beforeAll(async () => {
    gw = await startGatewayChild(drizzleConfig({ reports: { maxCitedReadings: MAX_CITED } }));
    const { stored } = await importDrizzle(gw.httpUrl, drizzleHobo(READINGS, 10, now), 5_000);
    // Nearly all are stored (the importer may set the odd row aside).
    expect(stored).toBeGreaterThan(READINGS * 0.99);
    key = ((await (await fetch(`${gw.httpUrl}/api/evidence/key`)).json()) as { verifierKey: string })
      .verifierKey;
    // /api/health alone, while the rules finish with the import: what "keeps answering" is measured against.
    const alone = sampleHealth(gw.httpUrl);
    // The baseline's sampling window.
    await new Promise((r) => setTimeout(r, 5_000));
    baselineP99 = (await alone.stop()).p99;
  }, 600_000);
  afterAll(async () => gw?.cleanup());

  it('a 5-day and a 2-year report stay a few megabytes and verify, the long storm by its record', async () => {
    for (const q of [`from=${day(5)}&to=${day(0)}`, twoYears()]) {
      const r = await getReport(gw.httpUrl, q);
      expect(r.status, r.body.slice(0, 300)).toBe(200);
      expect(r.bytes).toBeLessThan(8 * MB);
      const report = JSON.parse(r.body) as ReportJson & {
        evidence: { longStorms: Array<{ readings: number }> };
      };
      expect(report.storms.length).toBeGreaterThan(0);
      const v = await verifyReport(report, key);
      expect(v.problems).toEqual([]);
      // More readings than a report carries: some storm is proven by its record, and the verdict says so.
      expect(report.evidence.longStorms.length).toBeGreaterThan(0);
      expect(v.notes.join('\n')).toMatch(/readings are not all in the report/);
    }
    expect(gw.alive()).toBe(true);
  }, 300_000);

  it('three 2-year reports at once: each completes or gets 503 with Retry-After, the gateway lives', async () => {
    const health = sampleHealth(gw.httpUrl);
    const peak = samplePeak(() => gw.rssMb());
    const three = await Promise.all([1, 2, 3].map(() => getReport(gw.httpUrl, twoYears())));
    // And a burst of ten: one is built, two wait their turn, the others are told to come back.
    const burst = await Promise.all(Array.from({ length: 10 }, () => getReport(gw.httpUrl, twoYears())));
    const h = await health.stop();
    const rss = peak.stop();
    for (const r of [...three, ...burst]) {
      expect([200, 503], r.body.slice(0, 300)).toContain(r.status);
      if (r.status === 503) {
        expect(Number(r.retryAfter)).toBeGreaterThan(0);
        expect(JSON.parse(r.body).message).toMatch(/building other reports/);
      }
    }
    expect(three.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    expect(burst.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    expect(burst.filter((r) => r.status === 503).length).toBeGreaterThanOrEqual(1);
    expect(gw.alive()).toBe(true);
    expect(h.failed).toBe(0);
    expect(h.samples).toBeGreaterThan(0);
    // Memory bounded: the 128 MB heap plus SQLite's cache and the runtime, far from a report's worth each.
    expect(rss).toBeLessThan(400);
    expect(gw.output()).not.toMatch(/heap out of memory/i);
  }, 300_000);

  it('/api/health answers quickly while two 2-year reports are built', async () => {
    const health = sampleHealth(gw.httpUrl, 20);
    // Two at a time, again and again for ten seconds: health is asked all the while.
    const statuses: number[] = [];
    const until = Date.now() + 10_000;
    while (Date.now() < until) {
      const rs = await Promise.all([getReport(gw.httpUrl, twoYears()), getReport(gw.httpUrl, twoYears())]);
      statuses.push(...rs.map((r) => r.status));
    }
    const h = await health.stop();
    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(h.failed).toBe(0);
    expect(h.samples).toBeGreaterThan(10);
    // No stall: the target is under 100 ms; on a machine other work loads, a bound that still fails on the
    // seconds-long stall a report built in one piece causes.
    expect(h.p99, JSON.stringify({ during: h, baselineP99 })).toBeLessThan(Math.max(500, 4 * baselineP99));
  }, 300_000);
});
