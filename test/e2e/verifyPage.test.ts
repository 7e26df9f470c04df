/**
 * verify.html as a clerk uses it: the page written to a folder and opened from the file (file://) in real
 * Chromium with the network off, the report's JSON given through the file input, the town's key pasted.
 * A real report (made by a real gateway) says "Verified" with what it proved and the pasted key's
 * fingerprint; a copy with a storm total changed, one with a finding changed, one with a reading removed, one checked with another key and one with its signature
 * changed each say "Not verified" and name the field. No console error, no request but the page's own,
 * nothing the page's Content-Security-Policy blocked. Screenshots verify-ok-*, verify-words-desktop and verify-tampered-*
 * at a desktop (1366x900) and a phone (390x844) size.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildVerifyPage } from '../../gateway/src/api/verifyPage.ts';
import { verifierKeyFingerprint } from '../../gateway/src/ledger/checkpoint.ts';
import { launchChromium, screenshot, watchCsp } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import {
  makeRealReport,
  type RealReport,
  type ReportTampering,
  tamperedReport,
} from '../helpers/verifiedReport.ts';

const SIZES = [
  { name: 'desktop', width: 1366, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/** Each tampered copy, the field the page must name, and words of its sentence. */
const TAMPERED: Array<[ReportTampering, string, RegExp]> = [
  ['storm-total', 'storms[0].inches', /the report gives its total as 0\.71 in, its logged record 0\.6 in/],
  [
    'removed-reading',
    'evidence.entries',
    /which the report does not carry: a record was taken out of the report/,
  ],
  ['wrong-key', 'evidence.checkpoint.note', /The signature does not match the public key you pasted/],
  ['changed-signature', 'evidence.checkpoint.note', /the checkpoint or its signature was changed/],
  [
    'changed-finding',
    'inspections[0].findings',
    /at maple-ridge by Ian Inspector: the finding at 'Silt fence, north boundary' reads 'Needs maintenance' in the report but 'In order' in the log\./,
  ],
];

describe.skipIf(!haveBinary('chromium'))('verify.html opened from a file, offline', () => {
  let dir: string;
  let real: RealReport;
  let browser: Browser;
  let context: BrowserContext;
  let pageUrl: string;
  const errors: string[] = [];
  const blocked: string[] = [];
  const requests: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'verify-page-'));
    real = await makeRealReport();
    const file = join(dir, 'verify.html');
    writeFileSync(file, (await buildVerifyPage()).html);
    pageUrl = pathToFileURL(file).href;
    writeFileSync(join(dir, 'report.json'), real.text);
    browser = await launchChromium();
    context = await browser.newContext({ offline: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The page, fresh, at a size, with every error, blocked load and request it makes recorded. */
  async function open(size: (typeof SIZES)[number]): Promise<Page> {
    const page = await context.newPage();
    await page.setViewportSize({ width: size.width, height: size.height });
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => requests.push(r.url()));
    watchCsp(page, blocked);
    await page.goto(pageUrl);
    return page;
  }

  /** Gives the page a report file and a key the way a person does, and waits for its verdict. */
  async function check(page: Page, reportFile: string, key: string): Promise<string> {
    await page.fill('#key', key);
    await page.setInputFiles('#file', reportFile);
    await page.click('button[type=submit]');
    await page.waitForSelector('#verdict.ok, #verdict.bad');
    return (await page.textContent('#verdict strong')) ?? '';
  }

  for (const size of SIZES)
    it(`says Verified for a real report, with what it checked (${size.name})`, async () => {
      const page = await open(size);
      expect(await page.title()).toBe('Check a compliance report');
      expect(await check(page, join(dir, 'report.json'), real.key)).toBe('Verified');
      expect(await page.textContent('#checked-title')).toBe('What it proved');
      const checked = await page.locator('#checked-list li').allTextContents();
      const fingerprint = verifierKeyFingerprint(real.key);
      expect(checked[0]).toMatch(/site 'maple-ridge', January 1, 2020 to /);
      expect(checked.slice(1)).toEqual([
        `The log's checkpoint of ${real.report.evidence.checkpoint.size} entries, signed by 'test-gw.gateway/evidence' (key id ${real.key.split('+')[1]}, fingerprint ${fingerprint}).`,
        expect.stringMatching(
          /^28 log entries, each against its fingerprint, and the one proof that they are all in the log; the newest is of /,
        ),
        '16 readings of 1 device, each as it was logged.',
        expect.stringMatching(/^1 storm with its totals, start and end, added up again from its readings/),
        expect.stringMatching(/^5 duties with their due time and status from their history/),
        '2 inspections with 4 findings and 0 photo fingerprints, each as logged.',
      ]);
      // The key pasted and its fingerprint, to compare with the town's.
      expect(await page.textContent('#key-print .key-line')).toBe(real.key);
      expect(await page.textContent('#key-print .fingerprint')).toBe(fingerprint);
      expect(await page.textContent('#key-print')).toMatch(
        /Compare this fingerprint with the one the town publishes/,
      );
      expect(await page.locator('#problems li').count()).toBe(0);
      await screenshot(page, `verify-ok-${size.name}`);
      if (size.name === 'desktop') {
        await page.locator('#checked').scrollIntoViewIfNeeded();
        await screenshot(page, 'verify-words-desktop');
      }
      // The same in the dark colour scheme: another background, the verdict still green.
      const light = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      await page.emulateMedia({ colorScheme: 'dark' });
      expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).not.toBe(light);
      await screenshot(page, `verify-ok-${size.name}-dark`);
      await page.close();
    });

  for (const [how, field, words] of TAMPERED)
    it(`says Not verified and names ${field} for a report with ${how}`, async () => {
      const page = await open(SIZES[0]);
      const { report, key } = tamperedReport(real, how);
      const file = join(dir, `${how}.json`);
      writeFileSync(file, JSON.stringify(report));
      expect(await check(page, file, key)).toBe('Not verified');
      const items = page.locator('#problems li');
      const fields = await items.locator('code.field').allTextContents();
      expect(fields).toContain(field);
      const sentences = await items.allTextContents();
      expect(sentences.join('\n')).toMatch(words);
      await page.close();
    });

  for (const size of SIZES)
    it(`shows each problem in words with its field beside it (${size.name})`, async () => {
      const page = await open(size);
      const { report } = tamperedReport(real, 'storm-total');
      report.summary.inspections = 3;
      const file = join(dir, 'two-problems.json');
      writeFileSync(file, JSON.stringify(report));
      expect(await check(page, file, real.key)).toBe('Not verified');
      expect(await page.textContent('#verdict')).toMatch(/2 things in this report do not match/);
      expect(await page.locator('#problems code.field').allTextContents()).toEqual([
        'storms[0].inches',
        'summary.inspections',
      ]);
      expect(await page.textContent('#problems')).toMatch(/The summary counts 3 inspections, its rows 2/);
      await screenshot(page, `verify-tampered-${size.name}`);
      await page.close();
    });

  it('tells a person what is missing, and refuses a file that is not a report', async () => {
    const page = await open(SIZES[1]);
    await page.click('button[type=submit]');
    expect(await page.textContent('#verdict')).toMatch(/Choose or drop the report's JSON file first/);
    const csv = join(dir, 'report.csv');
    writeFileSync(csv, 'site,storms\nmaple-ridge,1\n');
    expect(await check(page, csv, real.key)).toBe('Not verified');
    expect(await page.textContent('#verdict')).toMatch(
      /cannot be read as JSON.*not the printable page or the CSV/,
    );
    await page.close();
  });

  it('made no request but for the page itself, logged no error, and nothing was blocked', () => {
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((u) => u !== pageUrl)).toEqual([]);
    expect(errors).toEqual([]);
    expect(blocked).toEqual([]);
  });
});
