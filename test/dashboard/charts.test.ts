/**
 * The charts in a real Chromium against a real gateway with a demo storm and a sediment trap: the rain
 * chart's threshold line is drawn where the plot's scale puts the site's threshold (its pixels are the
 * threshold's colour), the storm is a band, the crossing a marker; the sediment chart has its 50 % line;
 * the words are the site's zone and a clerk's (no field ids); the range picker, zoom and dark mode work;
 * the Storms page lists every site's storms newest first, each with its chart. No console error, nothing
 * the Content-Security-Policy blocked. Screenshots: chart-rain-*, chart-sediment-desktop, storms-*.
 */
import { join } from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StormDto } from '../../shared/src/api.ts';
import { asViewer, launchChromium, SCREENSHOTS, screenshot, watchCsp } from '../helpers/browser.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const TZ = 'America/New_York';

/** What the chart recorded of its guides (dashboard/src/charts/guides.ts), canvas pixels. */
interface Guides {
  lines: Array<{ label: string; value: number; y: number; x0: number; x1: number; color: string }>;
  bands: Array<{ kind: string; x0: number; x1: number }>;
  markers: Array<{ label: string; x: number }>;
  bbox: { left: number; top: number; width: number; height: number };
  scales: Record<string, { min: number; max: number }>;
}

const rgb = (hex: string) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));

describe.skipIf(!haveBinary('chromium'))('charts that show the law', () => {
  let gw: TestGateway;
  let browser: Browser;
  const clients: MqttClient[] = [];
  const problems: string[] = [];
  let storm: StormDto;

  async function publish(deviceId: string, points: Array<[number, Record<string, number>]>) {
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: `maple-ridge/${deviceId}`,
      username: `maple-ridge/${deviceId}`,
      password: `pw-${deviceId}`,
      reconnectPeriod: 0,
    });
    clients.push(c);
    let seq = 0;
    for (const [ts, values] of points)
      await c.publishAsync(
        `sites/maple-ridge/devices/${deviceId}/telemetry`,
        JSON.stringify({ ts, seq: ++seq, ...values }),
        { qos: 1 },
      );
  }

  async function open(width: number, height: number, hash: string): Promise<Page> {
    const page = await asViewer(
      await browser.newPage({ viewport: { width, height }, timezoneId: 'America/Chicago' }),
    );
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
    watchCsp(page, problems);
    await page.goto(`${gw.httpUrl}/${hash}`);
    return page;
  }

  const guidesOf = async (panel: Locator): Promise<Guides> =>
    JSON.parse((await panel.getAttribute('data-guides')) ?? '{}') as Guides;

  /** The colours of the chart's canvas at canvas pixels. */
  const pixels = (panel: Locator, points: Array<[number, number]>) =>
    panel.locator('canvas').evaluate((c, pts) => {
      const ctx = (c as HTMLCanvasElement).getContext('2d')!;
      return pts.map(([x, y]) => [...ctx.getImageData(x, y, 1, 1).data.slice(0, 3)]);
    }, points);

  /** Whether the drawn line is the threshold's colour along its row, and not a row away from it. */
  async function expectLineDrawn(panel: Locator, value: number, axis = 'y') {
    const g = await guidesOf(panel);
    const line = g.lines.find((l) => l.value === value);
    expect(line, JSON.stringify(g.lines)).toBeDefined();
    // Where the plot's own scale puts the value: the row the line was drawn on.
    const { min, max } = g.scales[axis]!;
    const expected = g.bbox.top + (1 - (value - min) / (max - min)) * g.bbox.height;
    expect(Math.abs(line!.y - expected)).toBeLessThanOrEqual(1.5);
    const xs = [0.1, 0.25, 0.4, 0.55, 0.7].map((f) => Math.round(g.bbox.left + f * g.bbox.width));
    const on = await pixels(
      panel,
      xs.map((x) => [x, line!.y]),
    );
    const want = rgb(line!.color);
    const near = (c: number[]) => c.every((v, i) => Math.abs(v - want[i]!) <= 40);
    expect(on.filter(near).length, JSON.stringify({ on, want })).toBeGreaterThanOrEqual(4);
    const off = await pixels(
      panel,
      xs.map((x) => [x, line!.y + 10]),
    );
    expect(off.filter(near).length).toBeLessThanOrEqual(1);
    return { g, line: line! };
  }

  beforeAll(async () => {
    gw = await startTestGateway();
    const now = Date.now();
    // rg-1: every half hour for a day (dry), then 0.64 in over an hour and a half ending three and a half
    // hours ago.
    const rain: Array<[number, number]> = [
      [5, 2],
      [4.5, 20],
      [4, 45],
      [3.5, 64],
    ];
    const rg1: Array<[number, Record<string, number>]> = [];
    for (let m = 24 * 60; m >= 10; m -= 30) {
      const hoursAgo = m / 60;
      const tips = [...rain].reverse().find(([hAgo]) => hAgo >= hoursAgo)?.[1] ?? 0;
      rg1.push([now - m * MIN, { rainTips: tips, ...(m % 120 === 0 ? { batteryV: 3.58, rssi: -73 } : {}) }]);
    }
    await publish('rg-1', rg1);
    // rg-2: an older storm, two days ago (the Storms page lists it after rg-1's).
    await publish('rg-2', [
      [now - 50 * HOUR, { rainTips: 0 }],
      [now - 49 * HOUR, { rainTips: 30 }],
      [now - 48.5 * HOUR, { rainTips: 60 }],
    ]);
    // trap-1: hourly over three days, sediment rising towards half the design depth, a ten-hour gap.
    await publish(
      'trap-1',
      Array.from({ length: 71 }, (_, i) => i)
        .filter((i) => i < 30 || i > 40)
        .map((i) => [now - (70 - i) * HOUR - 5 * MIN, { sedimentIn: Math.round((4 + i * 0.1) * 10) / 10 }]),
    );
    const qualified = await waitFor(
      async () => {
        const storms = (await (
          await fetch(`${gw.httpUrl}/api/storms?siteId=maple-ridge`)
        ).json()) as StormDto[];
        const s = storms.filter((x) => x.deviceId === 'rg-1' && x.qualified);
        return s.length && storms.length >= 2 ? s : undefined;
      },
      10_000,
      'the rg-1 storm',
    );
    storm = qualified[0]!;
    browser = await launchChromium();
  });

  afterAll(async () => {
    for (const c of clients) c.end(true);
    await browser?.close();
    await gw?.cleanup();
  });

  it("draws the rain chart with the site's threshold, the storm band and the crossing", async () => {
    const page = await open(1366, 900, '#/site/maple-ridge');
    const rain = page.locator('[data-panel="rg-1/rain"]');
    await rain.locator('canvas').waitFor();
    await page.waitForFunction(() =>
      document.querySelector('[data-panel="rg-1/rain"]')?.hasAttribute('data-guides'),
    );
    const { g } = await expectLineDrawn(rain, 0.5);
    expect(g.lines[0]!.label).toBe('Storm threshold 0.50 in');
    // The storm's band and its crossing, where the time scale puts them.
    const x = (t: number) =>
      g.bbox.left + ((t - g.scales.x!.min) / (g.scales.x!.max - g.scales.x!.min)) * g.bbox.width;
    const band = g.bands.find((b) => b.kind === 'storm');
    expect(band).toBeDefined();
    expect(Math.abs(band!.x0 - x(Date.parse(storm.start)))).toBeLessThanOrEqual(2);
    expect(Math.abs(band!.x1 - x(Date.parse(storm.end)))).toBeLessThanOrEqual(2);
    expect(g.markers).toEqual([
      { label: 'Threshold crossed', x: Math.round(x(Date.parse(storm.thresholdAt!))) },
    ]);
    // The words: the site's zone (New York), not the browser's (Chicago); no field ids.
    const crossed = new Intl.DateTimeFormat('en-US', {
      timeZone: TZ,
      hour: 'numeric',
      minute: '2-digit',
    }).format(Date.parse(storm.thresholdAt!));
    const summary = await rain.locator('.chart-summary').textContent();
    expect(summary).toContain('Storm threshold 0.50 in.');
    expect(summary).toMatch(/Storm [A-Z][a-z]{2} \d+ \d+:\d\d [AP]M to .*, 0\.64 in, threshold crossed at /);
    // The crossing names its day when it falls on another day than the storm's start (a storm at midnight).
    const day = (t: number) => new Date(t).toLocaleDateString('en-US', { timeZone: TZ });
    const crossedDay = new Intl.DateTimeFormat('en-US', {
      timeZone: TZ,
      month: 'short',
      day: 'numeric',
    }).format(Date.parse(storm.thresholdAt!));
    const sameDay = day(Date.parse(storm.start)) === day(Date.parse(storm.thresholdAt!));
    expect(summary).toContain(`threshold crossed at ${sameDay ? '' : `${crossedDay} `}${crossed}`);
    expect(summary).toContain('Rain in this period: 0.64 in');
    await rain.locator('.chart-data summary').click();
    const heads = await rain.locator('.chart-data th[scope="col"]').allTextContents();
    expect(heads).toEqual(['Time', 'Rain per hour (in)', 'Storm rain so far (in)']);
    const words = await page.locator('#view-site').textContent();
    expect(words).not.toMatch(/rainTips|sedimentIn|batteryV|rssi|alarms\.|undefined|NaN/);
    expect(await page.locator('[data-device="rg-1"] [data-field="rainTips"] th').textContent()).toBe(
      'Rain gauge count',
    );
    expect(await page.locator('[data-device="rg-1"] [data-field="batteryV"] td.num').textContent()).toBe(
      '3.58 V',
    );
    // The unit is the axis label, beside the ticks, not over them; the health chart has two axes.
    expect(await page.locator('[data-panel="rg-1/health"] .chart-title').textContent()).toBe(
      'Battery and signal at rg-1',
    );
    await rain.locator('.chart-data summary').click();
    await rain.screenshot({ path: join(SCREENSHOTS, 'chart-rain-desktop.png') });
    await page.close();
  });

  it('draws the sediment chart as a share of the capacity with the 50 % line and the gap', async () => {
    const page = await open(1366, 900, '#/site/maple-ridge');
    const sediment = page.locator('[data-panel="trap-1/sediment"]');
    await sediment.locator('canvas').waitFor();
    await page.waitForFunction(() =>
      document.querySelector('[data-panel="trap-1/sediment"]')?.hasAttribute('data-guides'),
    );
    const { g, line } = await expectLineDrawn(sediment, 50);
    expect(line.label).toBe('Cleanout at 50% of capacity');
    expect(g.bands.filter((b) => b.kind === 'gap').length).toBe(1);
    const summary = await sediment.locator('.chart-summary').textContent();
    expect(summary).toMatch(/Sediment: 46% of capacity at .*, highest 46% of capacity/);
    // The ten hours the trap was silent; before its first reading it was not yet in place: no gap.
    expect(summary).toMatch(/No data \(a gap in the evidence\) [A-Z][a-z]{2} \d+ /);
    expect(summary).toMatch(/Not yet installed [A-Z][a-z]{2} \d+ /);
    await sediment.screenshot({ path: join(SCREENSHOTS, 'chart-sediment-desktop.png') });
    await page.close();
  });

  it('picks a range from a day to a year, zooms by dragging and resets by double-click', async () => {
    const page = await open(1366, 900, '#/site/maple-ridge');
    const rain = page.locator('[data-panel="rg-1/rain"]');
    await rain.locator('canvas').waitFor();
    expect(await page.locator('#site-range option').allTextContents()).toEqual([
      'Day',
      'Week',
      'Month',
      '3 months',
      'Year',
    ]);
    await page.selectOption('#site-range', 'year');
    await page.waitForFunction(() =>
      /buckets of 12 h/.test(
        document.querySelector('[data-panel="rg-1/rain"] .chart-data summary')?.textContent ?? '',
      ),
    );
    await expectLineDrawn(page.locator('[data-panel="rg-1/rain"]'), 0.5);
    await page.selectOption('#site-range', 'day');
    await page.waitForFunction(() =>
      /buckets of 2 min/.test(
        document.querySelector('[data-panel="rg-1/rain"] .chart-data summary')?.textContent ?? '',
      ),
    );
    const day = page.locator('[data-panel="rg-1/rain"]');
    const before = (await guidesOf(day)).scales.x!;
    // The mouse works in the viewport: the chart must be on screen before it is dragged across.
    await day.locator('.u-over').scrollIntoViewIfNeeded();
    const over = await day.locator('.u-over').boundingBox();
    await page.mouse.move(over!.x + over!.width * 0.3, over!.y + over!.height / 2);
    await page.mouse.down();
    await page.mouse.move(over!.x + over!.width * 0.6, over!.y + over!.height / 2, { steps: 5 });
    await page.mouse.up();
    await page.waitForFunction((w) => {
      const g = JSON.parse(
        document.querySelector('[data-panel="rg-1/rain"]')?.getAttribute('data-guides') ?? '{}',
      );
      return g.scales && g.scales.x.max - g.scales.x.min < w * 0.5;
    }, before.max - before.min);
    // A live reading refreshes the page: the zoomed chart stays as it is.
    await day.evaluate((el) => {
      (el as HTMLElement & { kept?: boolean }).kept = true;
    });
    await clients[0]!.publishAsync(
      'sites/maple-ridge/devices/rg-1/telemetry',
      JSON.stringify({ ts: Date.now(), seq: 10_000, rainTips: 64, batteryV: 3.51 }),
      { qos: 1 },
    );
    await page.waitForFunction(
      () =>
        document.querySelector('[data-device="rg-1"] [data-field="batteryV"] td.num')?.textContent ===
        '3.51 V',
      undefined,
      { timeout: 15_000 },
    );
    expect(await day.evaluate((el) => (el as HTMLElement & { kept?: boolean }).kept)).toBe(true);
    const zoomed = (await guidesOf(day)).scales.x!;
    expect(zoomed.max - zoomed.min).toBeLessThan((before.max - before.min) * 0.5);
    await page.mouse.dblclick(over!.x + over!.width / 2, over!.y + over!.height / 2);
    await page.waitForFunction((w) => {
      const g = JSON.parse(
        document.querySelector('[data-panel="rg-1/rain"]')?.getAttribute('data-guides') ?? '{}',
      );
      return g.scales && g.scales.x.max - g.scales.x.min >= w * 0.99;
    }, before.max - before.min);
    await page.close();
  });

  it('follows a dark colour scheme', async () => {
    const page = await open(1366, 900, '#/site/maple-ridge');
    const rain = page.locator('[data-panel="rg-1/rain"]');
    await rain.locator('canvas').waitFor();
    const light = (await expectLineDrawn(rain, 0.5)).line.color;
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForFunction(
      (c) =>
        JSON.parse(document.querySelector('[data-panel="rg-1/rain"]')?.getAttribute('data-guides') ?? '{}')
          .lines?.[0]?.color !== c,
      light,
    );
    const dark = (await expectLineDrawn(rain, 0.5)).line.color;
    expect(dark).not.toBe(light);
    await rain.screenshot({ path: join(SCREENSHOTS, 'chart-rain-dark.png') });
    await page.close();
  });

  it('fits a phone', async () => {
    const page = await open(390, 844, '#/site/maple-ridge');
    const rain = page.locator('[data-panel="rg-1/rain"]');
    await rain.locator('canvas').waitFor();
    await expectLineDrawn(rain, 0.5);
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(0);
    await rain.screenshot({ path: join(SCREENSHOTS, 'chart-rain-phone.png') });
    await page.close();
  });

  for (const size of [
    { name: 'desktop', width: 1366, height: 900 },
    { name: 'phone', width: 390, height: 844 },
  ])
    it(`lists every site's storms newest first, each with its chart (${size.name})`, async () => {
      const page = await open(size.width, size.height, '#/storms');
      await page.locator('#storms-list [data-storm] [data-panel] canvas').first().waitFor();
      // Opens on every site, not on the first site (which may have no storms at all).
      expect(await page.locator('#s-site').inputValue()).toBe('');
      const cards = page.locator('#storms-list [data-storm]');
      await page.waitForFunction(
        () => document.querySelectorAll('#storms-list [data-storm] [data-panel][data-guides]').length >= 2,
      );
      const ids = await cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-storm')));
      expect(ids[0]).toBe(storm.id);
      expect(ids.length).toBeGreaterThanOrEqual(2);
      const first = cards.first();
      expect(await first.textContent()).toMatch(/0\.64\sin/);
      expect(await first.textContent()).toMatch(/Inspection pending/);
      await expectLineDrawn(first.locator('[data-panel]'), 0.5);
      expect(await page.locator('#storms-status').textContent()).toMatch(
        /storm events at 1 site, newest first/,
      );
      // A site without storms says so when picked.
      await page.selectOption('#s-site', 'oak-lane');
      await page.waitForSelector('#storms-list .empty');
      expect(await page.locator('#storms-list').textContent()).toMatch(/No storm events recorded at/);
      await page.selectOption('#s-site', '');
      await page.locator('#storms-list [data-storm] [data-panel] canvas').first().waitFor();
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);
      await screenshot(page, `storms-${size.name}`);
      await page.close();
    });

  it('had no console error and nothing the Content-Security-Policy blocked', () => {
    expect(problems).toEqual([]);
  });
});
