/**
 * The report page (reports/html.ts) in words a clerk reads: each duty under its rule module's label,
 * statuses and changes in words (no ids, no JSON), the blank certification block when nobody has
 * certified, and every text escaped, including the site's name in the page's running header (a CSS
 * string inside a <style>, where `</style>` must not end the element).
 */
import { describe, expect, it } from 'vitest';
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
    expect(html).toContain('device update: North gauge');
    expect(html).toContain('<td>inches per tip 0.01</td><td>inches per tip 0.007874</td>');
    expect(html).not.toContain('{"inchesPerTip"');
    expect(html).toContain('Nov 25, 2026, 10:00 AM EST');
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

  it('writes any text as a CSS string that cannot end its style element', () => {
    expect(cssString('a"b\\c</style>\nd')).toBe('"a\\22 b\\5c c\\3c /style\\3e \\a d"');
    expect(pageHeaderCss('Hill', 'November 2026')).toContain('@top-left{content:"Hill"');
    expect(pageHeaderCss('Hill', 'November 2026')).toContain('@top-right{content:"November 2026"');
  });
});
