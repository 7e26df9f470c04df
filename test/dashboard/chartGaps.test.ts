/**
 * Gaps only where a device was expected to report, in a real Chromium against a real gateway: a sediment
 * trap added to its site three days into the week shown, reporting hourly from then on but for ten
 * silent hours. Its chart shades the days before it was added as "Not yet installed" (no gap there) and
 * shows the one gap; the compliance report for the same days counts the same gaps as the chart.
 * Screenshots: chart-gaps-desktop, chart-gaps-phone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mqtt from 'mqtt';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComplianceReport } from '../../gateway/src/reports/report.ts';
import type { ChartsAnswer } from '../../shared/src/api/charts.ts';
import { localDay } from '../../shared/src/time.ts';
import { asViewer, launchChromium, screenshot, watchPage } from '../helpers/browser.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testHash } from '../helpers/gateway.ts';
import { sha } from '../helpers/people.ts';
import { VIEWER_HEADERS } from '../helpers/viewerFetch.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const TZ = 'America/New_York';
const ADMIN = 'admin-token-chart-gaps';

interface Guides {
  bands: Array<{ kind: string; x0: number; x1: number }>;
  bbox: { left: number; top: number; width: number; height: number };
  scales: Record<string, { min: number; max: number }>;
}

describe.skipIf(!haveBinary('chromium'))('chart gaps only where a device was expected to report', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-gaps-'));
  const overrides = {
    sites: [
      {
        id: 'maple-ridge',
        kind: 'construction' as const,
        timezone: TZ,
        devices: ['trap-1', 'trap-2'].map((id) => ({
          id,
          kind: 'sediment-trap' as const,
          designDepthIn: 24,
          passwordHash: testHash(`pw-${id}`),
        })),
      },
    ],
    auth: { tokens: [{ name: 'Ada Admin', role: 'admin' as const, tokenSha256: sha(ADMIN) }] },
  };
  let gw: TestGateway;
  let browser: Browser;
  const now = Date.now();
  const added = now - 4 * DAY;
  // Hourly from an hour after it was added, but for ten silent hours two days ago.
  const silentFrom = now - 2 * DAY;
  const silentTo = silentFrom + 10 * HOUR;
  const times = Array.from({ length: 4 * 24 }, (_, i) => added + (i + 1) * HOUR - 5 * MIN).filter(
    (t) => t <= silentFrom || t >= silentTo,
  );

  beforeAll(async () => {
    // The store of a gateway whose trap was added to its site four days ago (three days into the week).
    const first = await startTestGateway(overrides, { dataDir, sitesAsGiven: true });
    await first.stop();
    const db = new Database(join(dataDir, 'gateway.db'));
    db.prepare("UPDATE devices SET created_at = ? WHERE site_id = 'maple-ridge' AND id = 'trap-1'").run(
      added,
    );
    db.close();
    gw = await startTestGateway(overrides, { dataDir, sitesAsGiven: true });
    await publish('trap-1', times);
    // trap-2 reports for three minutes, then is retired: charted up to then, "Retired" after.
    await publish('trap-2', [now - 3 * MIN, now - 2 * MIN, now - MIN]);
    const retire = await fetch(`${gw.httpUrl}/api/sites/maple-ridge/devices/trap-2`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ retired: true }),
    });
    expect(retire.status).toBe(200);
    // The rule records the ten silent hours once the reading after them arrives.
    await waitFor(async () => ((await report()).gaps.length > 0 ? true : undefined), 15_000, 'the gap');
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function publish(deviceId: string, at: readonly number[]) {
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: `maple-ridge/${deviceId}`,
      username: `maple-ridge/${deviceId}`,
      password: `pw-${deviceId}`,
      reconnectPeriod: 0,
    });
    let seq = 0;
    for (const ts of at)
      await c.publishAsync(
        `sites/maple-ridge/devices/${deviceId}/telemetry`,
        JSON.stringify({ ts, seq: ++seq, sedimentIn: 4 + seq * 0.05 }),
        { qos: 1 },
      );
    await c.endAsync();
  }

  /** The compliance report over the days of the chart's week, as JSON. */
  async function report(): Promise<ComplianceReport> {
    const q = new URLSearchParams({
      siteId: 'maple-ridge',
      from: localDay(now - 7 * DAY, TZ),
      to: localDay(now, TZ),
      format: 'json',
    });
    const res = await fetch(`${gw.httpUrl}/api/reports/compliance?${q}`);
    expect(res.status).toBe(200);
    return (await res.json()) as ComplianceReport;
  }

  async function open(
    width: number,
    height: number,
  ): Promise<{ page: Page; panel: Locator; watched: ReturnType<typeof watchPage> }> {
    const page = await asViewer(
      await browser.newPage({
        viewport: { width, height },
        timezoneId: 'America/Chicago',
        extraHTTPHeaders: VIEWER_HEADERS,
      }),
    );
    const watched = watchPage(page);
    await page.goto(`${gw.httpUrl}/#/site/maple-ridge`);
    const panel = page.locator('[data-panel="trap-1/sediment"]');
    await panel.locator('canvas').waitFor();
    await page.waitForFunction(() =>
      document.querySelector('[data-panel="trap-1/sediment"]')?.hasAttribute('data-guides'),
    );
    return { page, panel, watched };
  }

  for (const size of [
    { name: 'desktop', width: 1366, height: 900 },
    { name: 'phone', width: 390, height: 844 },
  ])
    it(`shades the days before the trap was added, no gap there; the report counts the chart's gaps (${size.name})`, async () => {
      const { page, panel, watched } = await open(size.width, size.height);
      const g = JSON.parse((await panel.getAttribute('data-guides')) ?? '{}') as Guides;
      const x = (t: number) =>
        g.bbox.left + ((t - g.scales.x!.min) / (g.scales.x!.max - g.scales.x!.min)) * g.bbox.width;
      // Before it was added: shaded as not yet installed, up to when it was added; no gap drawn there.
      const absent = g.bands.filter((b) => b.kind === 'absent');
      expect(absent).toHaveLength(1);
      expect(Math.abs(absent[0]!.x1 - x(added))).toBeLessThanOrEqual(2);
      const gaps = g.bands.filter((b) => b.kind === 'gap');
      expect(gaps).toHaveLength(1);
      expect(gaps[0]!.x0).toBeGreaterThan(x(added) + 2);
      // The one gap is the ten silent hours (from the reading before them to the one after).
      expect(Math.abs(gaps[0]!.x0 - x(times.filter((t) => t <= silentFrom).at(-1)!))).toBeLessThanOrEqual(3);
      // In words: not yet installed until it was added; one gap, no "gap" before it was added.
      const summary = (await panel.locator('.chart-summary').textContent()) ?? '';
      expect(summary).toMatch(/Not yet installed [A-Z][a-z]{2} \d+ \d+:\d\d [AP]M to [A-Z][a-z]{2} \d+ /);
      expect(summary).toMatch(/No data \(a gap in the evidence\) [A-Z][a-z]{2} \d+ /);
      expect(summary).not.toMatch(/\d+ gaps without data/);
      expect(await panel.locator('.chart-key').textContent()).toContain('shaded: Not yet installed');
      // The retired trap: its chart up to its retirement, "Retired" after, no gap.
      const retired = page.locator('[data-panel="trap-2/sediment"]');
      await retired.locator('canvas').waitFor();
      expect(await page.locator('[data-device="trap-2"] .card-head').textContent()).toContain('Retired');
      const answer = (await (
        await fetch(`${gw.httpUrl}/api/charts?siteId=maple-ridge&range=week`)
      ).json()) as ChartsAnswer;
      const bands = answer.panels.find((p) => p.id === 'trap-2/sediment')!.bands;
      expect(bands.map((b) => [b.kind, b.label])).toEqual([
        ['absent', 'Not yet installed'],
        ['absent', 'Retired'],
      ]);
      const rs = (await retired.locator('.chart-summary').textContent()) ?? '';
      expect(rs).toMatch(/Not yet installed .*\. Retired [A-Z][a-z]{2} \d+ \d+:\d\d [AP]M to /);
      expect(rs).not.toMatch(/gap/);
      // The report for the same days: the same number of gaps as the chart, in its summary and its list.
      const r = await report();
      expect(r.summary.gaps).toBe(gaps.length);
      expect(r.gaps.map((d) => d.deviceId)).toEqual(['trap-1']);
      const html = await page.request.get(
        `${gw.httpUrl}/api/reports/compliance?siteId=maple-ridge&from=${r.period.firstDay}&to=${r.period.lastDay}&format=html`,
      );
      expect(await html.text()).toMatch(/<th>Gaps in the evidence<\/th><td class="n">1<\/td>/);
      await panel.scrollIntoViewIfNeeded();
      await screenshot(page, `chart-gaps-${size.name}`);
      expect(watched.errors).toEqual([]);
      expect(watched.csp).toEqual([]);
      await page.close();
    });
});
