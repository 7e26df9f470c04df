/**
 * The report page (reports/html.ts) in words a clerk reads: each duty under its rule module's label,
 * statuses in words and changes as sentences (no ids, no JSON), the blank certification block when nobody has
 * certified, and every text escaped, including the site's name in the page's running header (a CSS
 * string inside a <style>, where `</style>` must not end the element).
 */
import { describe, expect, it } from 'vitest';
import { verifierKeyFingerprint } from '../../gateway/src/ledger/checkpoint.ts';
import { reportToHtml } from '../../gateway/src/reports/html.ts';
import type { ComplianceReport, DutyRow } from '../../gateway/src/reports/report.ts';
import { PAPER_STATEMENT } from '../../gateway/src/reports/sections/certifications.ts';
import { cssString, pageHeaderCss } from '../../gateway/src/reports/style.ts';
import { ruleCatalogue } from '../../gateway/src/rules/index.ts';

const routine = ruleCatalogue().find((r) => r.section === 'routine')!;
const duty: DutyRow = {
  alertId: 'a-1',
  rule: routine.id,
  deviceId: null,
  began: '2026-11-20T15:00:00.000Z',
  dueAt: '2026-11-27T15:00:00.000Z',
  originalDueAt: null,
  resolvedAt: '2026-11-25T15:00:00.000Z',
  resolvedBy: 'Ida Inspector',
  status: 'on-time',
  message: 'Routine inspection met.',
  duty: true,
  pastDue: 'missing',
  historyIndexes: [],
};
const HOSTILE = '</style><script>alert("x")</script> "Hill" \\ Farm';

function report(over: Partial<ComplianceReport> = {}): ComplianceReport {
  return {
    warnings: [],
    site: { id: 'hill-farm', name: HOSTILE, kind: 'construction', timezone: 'America/New_York' },
    period: {
      from: '2026-11-01T04:00:00.000Z',
      to: '2026-12-01T05:00:00.000Z',
      firstDay: '2026-11-01',
      lastDay: '2026-11-30',
    },
    generatedAt: '2026-12-01T12:00:00.000Z',
    generatedBy: 'Public copy',
    summary: {} as ComplianceReport['summary'],
    storms: [],
    violations: [],
    stopWork: [],
    inspections: [],
    notices: [],
    routine: [duty],
    cleanouts: [],
    remedies: [],
    other: [],
    gaps: [],
    deadlineReadings: [],
    extensions: [],
    certifications: [],
    records: [],
    changes: [
      {
        id: 1,
        at: '2026-11-10T15:00:00.000Z',
        effectiveAt: '2026-11-10T15:00:00.000Z',
        by: 'Ada Admin',
        entity: 'device',
        action: 'update',
        siteId: 'hill-farm',
        deviceId: 'rg-1',
        ref: null,
        old: { inchesPerTip: 0.01 },
        new: { inchesPerTip: 0.007874 },
        logIndex: 12,
        leafHash: '',
      },
    ],
    evidence: {
      checkpoint: { origin: 'gw/evidence', size: 13, root: 'cm9vdA==', note: 'gw/evidence\n13\nroot\n' },
      verifierKey: 'gw/evidence+0011aabb+KEY',
      entries: [],
      proof: [] as unknown as ComplianceReport['evidence']['proof'],
      longStorms: [],
      audit: { ok: true },
    },
    ...over,
  };
}

describe('the report page', () => {
  it("names each duty by its rule's label and says its status and changes in words", () => {
    const html = reportToHtml(report(), { deviceName: (id) => (id === 'rg-1' ? 'North gauge' : id) });
    expect(html).toContain(`<td>${routine.label}</td>`);
    expect(html).not.toContain(`>${routine.id}<`);
    expect(html).toContain('>On time</span>');
    expect(html).toContain('Construction site');
    // Each change a sentence, as the dashboard's Changes page writes it: what, who and when, in the site's zone.
    expect(html).toContain('<td>Device North gauge (rg-1) at &#39;');
    expect(html).toContain(
      'rain per tip changed from 0.01 in to 0.008 in by Ada Admin, Nov 10, 2026, 10:00 AM EST</td>',
    );
    expect(html).not.toContain('{"inchesPerTip"');
    expect(html).toContain('Nov 25, 2026, 10:00 AM EST');
  });

  it("prints the town's public key and its fingerprint, to compare with the one the town publishes", () => {
    const html = reportToHtml(report());
    const evidence = html.slice(html.indexOf('<h2>Evidence</h2>'));
    const fingerprint = verifierKeyFingerprint('gw/evidence+0011aabb+KEY');
    expect(fingerprint).toMatch(/^[0-9a-f]{4} [0-9a-f]{4} [0-9a-f]{4} [0-9a-f]{4}$/);
    expect(evidence).toContain('<code>gw/evidence+0011aabb+KEY</code>');
    expect(evidence).toContain(
      `<tr><th>Key fingerprint</th><td><code class="key-fingerprint">${fingerprint}</code>`,
    );
    expect(evidence).toContain('Compare this fingerprint with the one the town publishes');
  });

  it("prints the town's reading of the annual deadline, and a submittal with the work's date beside it", () => {
    const annual: DutyRow = {
      ...duty,
      alertId: 'a-2',
      rule: 'annual-inspection',
      began: '2026-06-01T04:00:00.000Z',
      dueAt: '2026-08-01T03:59:59.999Z',
      resolvedAt: '2026-08-03T19:00:00.000Z',
      status: 'late',
      pastDue: 'overdue',
      workAt: '2026-07-25T13:00:00.000Z',
    };
    const text =
      "Deadline read as: the earlier of 60 days after the town's letter and August 31 (the town's choice)";
    const html = reportToHtml(
      report({
        remedies: [annual],
        deadlineReadings: [{ rule: 'annual-inspection', section: 'remedies', text }],
      }),
    );
    const remedies = html.slice(html.indexOf('Alarms, remedies, pumping and annual inspections'));
    expect(remedies).toContain(`<p class="reading">${text.replaceAll("'", '&#39;')}</p>`);
    expect(html.indexOf('class="reading"')).toBeGreaterThan(html.indexOf('Alarms, remedies'));
    expect(remedies).toContain(
      'submitted Aug 3, 2026, 3:00 PM EDT<br><small>work done Jul 25, 2026, 9:00 AM EDT</small>',
    );
    expect(remedies).toContain('Jul 31, 2026, 11:59 PM EDT');
  });

  it('offers a blank certification block when nobody has certified', () => {
    const html = reportToHtml(report());
    expect(html).toContain(PAPER_STATEMENT);
    expect(html).toMatch(/<th>Name<\/th><td class="line"><\/td>/);
    expect(html).toMatch(/<th>Signature<\/th><td class="line"><\/td>/);
    expect(html).toContain('Not yet certified through the gateway.');
  });

  it('escapes the site name everywhere, in the running header too, and has no style attribute', () => {
    for (const style of [{ inline: true as const }, { href: '/report.css', nonce: 'n0nce' }]) {
      const html = reportToHtml(report(), { style });
      expect(html).not.toContain('<script>');
      // The only </style> ends the page's own style elements.
      const styles = html.match(/<style[\s>]/g)?.length ?? 0;
      expect(html.match(/<\/style>/g)?.length).toBe(styles);
      expect(html).not.toMatch(/\sstyle=/);
    }
    const served = reportToHtml(report(), { style: { href: '/report.css', nonce: 'n0nce' } });
    expect(served).toContain('<link rel="stylesheet" href="/report.css"><style nonce="n0nce">@page{');
  });

  it('escapes what a notice of violation and a stop-work order say, in the header line too', () => {
    const v = {
      id: 'nov-1',
      siteId: 'hill-farm',
      siteSeq: 1,
      status: 'issued' as const,
      nature: HOSTILE,
      remedy: HOSTILE,
      remedyDueAt: '2026-11-20T15:00:00.000Z',
      penalties: HOSTILE,
      issuedAt: '2026-11-10T15:00:00.000Z',
      issuedBy: HOSTILE,
      appealBy: '2026-11-25T15:00:00.000Z',
      events: [
        { kind: 'appealed' as const, at: '2026-11-11T15:00:00.000Z', by: HOSTILE, text: HOSTILE, photos: [] },
      ],
      documentUrl: '/api/violations/nov-1/document',
      standing: HOSTILE,
    };
    const o = {
      id: 'sw-1',
      siteId: 'hill-farm',
      since: '2026-11-10T15:00:00.000Z',
      reason: HOSTILE,
      issuedBy: HOSTILE,
      violationIds: ['nov-1'],
      standing: HOSTILE,
    };
    const html = reportToHtml(
      report({
        violations: [v],
        stopWork: [o],
        stopWorkInEffect: { id: 'sw-1', since: o.since, reason: HOSTILE },
      }),
    );
    expect(html).not.toContain('<script>');
    expect(html).toContain('Under a stop-work order since Nov 10, 2026, 10:00 AM EST:</b> &lt;/style&gt;');
    expect(html).toContain('Notice of violation no. 1');
    expect(html).not.toContain('nov-1');
  });

  it('shows with a storm the inspections made while it still rained, which met nothing', () => {
    const storm = {
      id: 'hill-farm:rg-1:1',
      siteId: 'hill-farm',
      deviceId: 'rg-1',
      start: '2026-11-20T15:00:00.000Z',
      end: '2026-11-20T19:25:00.000Z',
      tips: 265,
      inches: 2.65,
      qualified: true,
      closed: true,
      thresholdAt: '2026-11-20T15:49:00.000Z',
      dueAt: '2026-11-21T19:25:00.000Z',
      inspection: { status: 'pending' as const },
      inspectedDuring: [{ inspectionId: 'insp-1', inspectedAt: '2026-11-20T16:05:30.000Z' }],
    };
    const html = reportToHtml(report({ storms: [storm] }));
    expect(html).toContain('Inspected during the storm (does not count): Nov 20, 2026, 11:05 AM EST');
    expect(reportToHtml(report({ storms: [{ ...storm, inspectedDuring: undefined }] }))).not.toContain(
      'Inspected during the storm',
    );
  });

  it('writes any text as a CSS string that cannot end its style element', () => {
    expect(cssString('a"b\\c</style>\nd')).toBe('"a\\22 b\\5c c\\3c /style\\3e \\a d"');
    expect(pageHeaderCss('Hill', 'November 2026')).toContain('@top-left{content:"Hill"');
    expect(pageHeaderCss('Hill', 'November 2026')).toContain('@top-right{content:"November 2026"');
  });
});
