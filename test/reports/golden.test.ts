/**
 * The compliance report's JSON, CSV and page, byte for byte, for a fixed store (`helpers/reportFixture.ts`):
 * every section populated, and the same site and period with nothing in it. The JSON is what verifiers
 * read and certifications rest on, so a change to any of the three texts shows here as a diff of its file
 * under test/fixtures/reports/.
 */
import { describe, expect, it } from 'vitest';
import { buildComplianceReport } from '../../gateway/src/reports/compliance.ts';
import { reportToCsv } from '../../gateway/src/reports/csv.ts';
import { reportToHtml } from '../../gateway/src/reports/html.ts';
import { reportToJson } from '../../gateway/src/reports/json.ts';
import type { ReportPhoto } from '../../gateway/src/reports/photos.ts';
import { ordersInEffect } from '../../gateway/src/reports/sections/stopWork.ts';
import { violationsInForce } from '../../gateway/src/reports/sections/violations.ts';
import {
  EMPTY,
  FULL,
  NOW,
  PERIOD,
  PHOTO_A,
  PHOTO_B,
  type ReportRecords,
  SITE,
  TZ,
} from '../helpers/reportFixture.ts';

function report(r: ReportRecords, now = NOW) {
  return buildComplianceReport({
    site: SITE,
    timezone: TZ,
    period: PERIOD,
    now,
    generatedBy: 'Ida Inspector',
    alerts: r.alerts,
    storms: r.storms,
    inspections: r.inspections,
    notices: r.notices,
    violations: violationsInForce({ violations: r.violations, period: PERIOD, tz: TZ, now }),
    stopWork: ordersInEffect({ stopWork: r.stopWork, period: PERIOD, tz: TZ }),
    extensions: r.extensions,
    certifications: r.certifications,
    records: r.records,
    changes: r.changes,
    evidence: r.evidence,
  });
}

const FILES = '../fixtures/reports';

describe('the compliance report, byte for byte', () => {
  it('as JSON: the fields in their order, the same as JSON.stringify gives', async () => {
    const r = report(FULL);
    const json = await reportToJson(r);
    expect(json).toBe(JSON.stringify(r));
    await expect(json).toMatchFileSnapshot(`${FILES}/full.json.txt`);
    await expect(await reportToJson(report(EMPTY))).toMatchFileSnapshot(`${FILES}/empty.json.txt`);
  });

  it('as CSV', async () => {
    await expect(reportToCsv(report(FULL))).toMatchFileSnapshot(`${FILES}/full.csv`);
    await expect(reportToCsv(report(EMPTY))).toMatchFileSnapshot(`${FILES}/empty.csv`);
  });

  it('as the page served (stylesheet linked, charts) and as the page printed (all inline)', async () => {
    const full = report(FULL);
    const served = reportToHtml(full, {
      style: { href: '/report.css?v=abc', nonce: 'n0nce' },
      charts: new Map([['s-1', '<svg class="chart"><title>s-1</title></svg>']]),
      chartsLeftOut: 1,
      deviceName: (id) => (id === 'rg-1' ? 'Rain gauge "East"' : id),
      links: {
        json: 'https://gw.example/api/reports/compliance?siteId=hill-farm&format=json',
        verify: 'https://gw.example/verify.html',
        photo: 'https://gw.example/api/photos/',
      },
      // One photo carried in the page, the other past the report's budget.
      photos: new Map<string, ReportPhoto>([
        [PHOTO_A, { shown: true, src: 'data:image/png;base64,iVBORw0KGgo=' }],
        [PHOTO_B, { shown: false, why: 'budget', more: 1 }],
      ]),
    });
    await expect(served).toMatchFileSnapshot(`${FILES}/full.html`);
    await expect(reportToHtml(report(EMPTY))).toMatchFileSnapshot(`${FILES}/empty.html`);
  });

  it('made during the period: notices and orders as they stand then', async () => {
    const during = report(FULL, Date.parse('2026-11-20T12:00:00.000Z'));
    await expect(reportToCsv(during)).toMatchFileSnapshot(`${FILES}/during.csv`);
    await expect(await reportToJson(during)).toMatchFileSnapshot(`${FILES}/during.json.txt`);
  });
});
