/**
 * The site form takes a site's history on record (real Chromium, real gateway): an admin whose browser
 * is in another time zone enters the last routine inspection in the site's zone; the site keeps that time,
 * its routine duty is due 7 x 24 h after it, and the edit form shows the time on record in words.
 */
import { createHash } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withinDays } from '../../shared/src/days.ts';
import { formatLong, zonedTime } from '../../shared/src/time.ts';
import { asViewer, launchChromium, screenshot, watchCsp } from '../helpers/browser.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { completeInspection } from '../helpers/inspections.ts';

const TOKEN = 'site-history-admin-token';
const ADMIN = { name: 'Ada Admin', email: 'ada@town.example', password: 'correct horse battery' };
const ZONE = 'America/New_York';

describe.skipIf(!haveBinary('chromium'))('dashboard: a site added with its history on record', () => {
  let gw: TestGateway;
  let browser: Browser;
  const csp: string[] = [];
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${gw.httpUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  };

  beforeAll(async () => {
    gw = await startTestGateway({
      auth: {
        tokens: [
          { name: 'Setup', role: 'admin', tokenSha256: createHash('sha256').update(TOKEN).digest('hex') },
        ],
      },
    });
    await api('POST', '/api/users', { ...ADMIN, role: 'admin' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  it('the last routine inspection, entered in the site zone from a browser in Los Angeles', async () => {
    const ctx = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      timezoneId: 'America/Los_Angeles',
    });
    const page = await ctx.newPage();
    watchCsp(page, csp);
    await page.goto(`${gw.httpUrl}/#/signin`);
    await page.fill('#signin-email', ADMIN.email);
    await page.fill('#signin-password', ADMIN.password);
    await page.click('#signin-form button[type="submit"]');
    await page.waitForSelector('#who-name:has-text("Ada Admin")');
    await page.click('nav.tabs a:has-text("Sites and devices")');
    await page.waitForSelector('[data-manage-site="maple-ridge"]');
    await page.click('#site-add-box summary');
    // Three days ago at 9:30 in New York, as the site's logbook says.
    const day = new Date(Date.now() - 3 * 86_400_000 - 5 * 3_600_000);
    const [y, m, d] = day.toISOString().slice(0, 10).split('-').map(Number) as [number, number, number];
    const wall = `${day.toISOString().slice(0, 10)}T09:30`;
    const expected = zonedTime(y, m, d, ZONE, 9, 30);
    await page.fill('#site-add-id', 'elm-st');
    await page.fill('#site-add-name', 'Elm Street lots');
    await page.selectOption('#site-add-kind', 'construction');
    await page.fill('#site-add-timezone', ZONE);
    await page.click('#site-add details[data-group^="History on record"] summary');
    await page.fill('#site-add-history-lastRoutineInspection', wall);
    await screenshot(page, 'admin-add-site-history');
    await page.click('#site-add button[type="submit"]');
    await page.waitForSelector('#site-add-msg.msg-ok');

    const site = (
      await api<Array<{ id: string; history?: Record<string, string> }>>('GET', '/api/sites')
    ).find((s) => s.id === 'elm-st');
    expect(site?.history).toEqual({ lastRoutineInspection: new Date(expected).toISOString() });
    const routine = await waitFor(
      async () =>
        (
          await api<Array<{ rule: string; raisedAt: string; dueAt: string }>>(
            'GET',
            '/api/alerts?siteId=elm-st',
          )
        ).find((a) => a.rule === 'routine-inspection'),
      10_000,
      'the routine duty',
    );
    expect(Date.parse(routine.raisedAt)).toBe(expected);
    // Due by the end of the 7th local day after the inspection's day (its last instant).
    expect(Date.parse(routine.dueAt)).toBe(withinDays(expected, 7, ZONE) - 1);

    // The edit form says what is on record, in words and in the site's zone; its field stays empty.
    await page.click('[data-manage-site="elm-st"] button:has-text("Edit")');
    await page.waitForSelector('#site-edit');
    await page.click('#site-edit details[data-group^="History on record"] summary');
    const hint = await page.locator('#site-edit-history-lastRoutineInspection-hint').textContent();
    expect(hint).toContain(`On record: ${formatLong(expected, ZONE)}`);
    expect(await page.inputValue('#site-edit-history-lastRoutineInspection')).toBe('');
    await screenshot(page, 'admin-edit-site-history', false);
    expect(csp).toEqual([]);
    await ctx.close();
  });

  it('shows a period the record superseded as such, neither met nor missed', async () => {
    // Maple Ridge's clock started at the first tick; an inspection from its logbook, two days ago, supersedes it.
    const first = await waitFor(
      async () =>
        (await api<Array<{ id: string; rule: string }>>('GET', '/api/alerts?siteId=maple-ridge')).find(
          (a) => a.rule === 'routine-inspection',
        ),
      10_000,
      'the first routine period',
    );
    await api(
      'POST',
      '/api/inspections',
      completeInspection({
        siteId: 'maple-ridge',
        at: new Date(Date.now() - 2 * 86_400_000).toISOString(),
        inspector: 'Ida Inspector',
        kind: 'routine',
        notes: 'entered from the site logbook',
      }),
    );
    const page = await asViewer(await browser.newPage({ viewport: { width: 1280, height: 900 } }));
    watchCsp(page, csp);
    await page.goto(`${gw.httpUrl}/#/alerts/${first.id}`);
    await page.waitForSelector('#alert-dialog[open] .badge:has-text("superseded by the record")');
    expect(csp).toEqual([]);
    await page.close();
  });
});
