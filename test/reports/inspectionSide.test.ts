/**
 * The report's inspections say whose each is and whether it covered every practice: on the page a town
 * inspection is marked "the town's inspection", a partial one "partial (1 of 5 practices)", a complete
 * one of the developer's side neither; the CSV's `inspection` column says it of each in words.
 */
import { describe, expect, it } from 'vitest';
import { CSV_HEADER } from '../../gateway/src/reports/csv.ts';
import type { ComplianceReport } from '../../gateway/src/reports/report.ts';
import { inspections } from '../../gateway/src/reports/sections/inspections.ts';
import type { HtmlContext } from '../../gateway/src/reports/sections/section.ts';
import { stopWork } from '../../gateway/src/reports/sections/stopWork.ts';

const base = {
  siteId: 'elm',
  at: '2026-11-05T16:00:00.000Z',
  inspector: 'Ida',
  kind: 'routine' as const,
  notes: 'Walked it.',
  recordedAt: '2026-11-05T16:10:00.000Z',
  recordedBy: 'Ida',
  hash: 'aa',
};
const ctx = { t: (x: string) => x } as unknown as HtmlContext;
const render = (list: unknown[]) =>
  inspections.html!.render(
    { inspections: list, site: { kind: 'construction' } } as unknown as ComplianceReport,
    ctx,
  );

describe('report: inspections, whose and how complete', () => {
  it('marks the town inspection and the partial one, not the complete developer one', () => {
    const html = render([
      { ...base, id: 'i-dev', side: 'developer', coverage: { covered: 5, of: 5 } },
      { ...base, id: 'i-town', side: 'town', coverage: { covered: 5, of: 5 } },
      { ...base, id: 'i-part', side: 'developer', coverage: { covered: 1, of: 5 } },
    ]);
    const rows = html.split('<tr>').filter((r) => r.includes('Walked it.'));
    expect(rows).toHaveLength(3);
    expect(rows[0]).not.toMatch(/town's inspection|partial/);
    expect(rows[1]).toContain('<small>the town&#39;s inspection</small>');
    expect(rows[2]).toContain('<small>partial (1 of 5 practices)</small>');
  });

  it('says in the CSV column whose each is and whether it covered every practice', () => {
    const report = {
      inspections: [
        { ...base, id: 'i-dev', side: 'developer', coverage: { covered: 5, of: 5 } },
        { ...base, id: 'i-town', side: 'town', coverage: { covered: 5, of: 5 } },
        { ...base, id: 'i-part', side: 'developer', coverage: { covered: 3, of: 5 } },
        { ...base, id: 'i-town-part', side: 'town', coverage: { covered: 1, of: 5 } },
      ],
      site: { kind: 'construction' },
    } as unknown as ComplianceReport;
    expect(inspections.csv(report).map((row) => row[CSV_HEADER.indexOf('inspection')])).toEqual([
      "the developer's",
      "the town's inspection",
      "the developer's, partial (3 of 5 practices)",
      "the town's inspection, partial (1 of 5 practices)",
    ]);
  });

  it("says work is halted except stabilization while a violation's notice is not approved", () => {
    const found = {
      ...base,
      id: 'i-v',
      side: 'developer',
      findings: [{ practice: 'fence', status: 'violation', note: '', photos: [] }],
    };
    const header = (status: string) =>
      stopWork.html!.header!(
        {
          inspections: [found],
          violations: [{ id: 'v', inspectionId: 'i-v', status }],
          stopWork: [],
        } as unknown as ComplianceReport,
        ctx,
      );
    expect(header('corrected')).toContain(
      'Work halted except site stabilization since 2026-11-05T16:00:00.000Z:</b> a violation found at fence was not corrected',
    );
    expect(header('approved')).toBe('');
  });
});
