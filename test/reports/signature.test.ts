/**
 * The report shows each inspection's signature under its details: the statement, the drawing as an SVG
 * built around its strokes (or the typed name in a script hand), and "Signed by NAME, at TIME"; the CSV's
 * `signed by` column names the signer and how they signed. An unsigned inspection shows none, and a
 * drawing that is not of the pad's form is never put in the page.
 */
import { describe, expect, it } from 'vitest';
import { CSV_HEADER } from '../../gateway/src/reports/csv.ts';
import type { ComplianceReport } from '../../gateway/src/reports/report.ts';
import { inspections } from '../../gateway/src/reports/sections/inspections.ts';
import type { HtmlContext } from '../../gateway/src/reports/sections/section.ts';
import { SIGNATURE_STATEMENT } from '../../shared/src/api/signatureWords.ts';

const base = {
  siteId: 'elm',
  at: '2026-11-05T16:00:00.000Z',
  inspector: 'Ida',
  kind: 'routine' as const,
  notes: 'Walked it.',
  side: 'developer' as const,
  recordedAt: '2026-11-05T16:10:00.000Z',
  recordedBy: 'Ida',
  hash: 'aa',
};
const ctx = { t: (x: string) => `[${x} in the site's zone]` } as unknown as HtmlContext;
const list = [
  { ...base, id: 'i-drawn', signature: { name: 'Ida Inspector', method: 'drawn', drawing: 'M10 20 L30 40' } },
  { ...base, id: 'i-typed', signature: { name: 'Pat <Engineer>', method: 'typed' } },
  { ...base, id: 'i-none' },
  // Not of the pad's form (a store edited by hand): the page shows the name, never the text as markup.
  {
    ...base,
    id: 'i-forged',
    signature: { name: 'Eve', method: 'drawn', drawing: '"/><script>x()</script>' },
  },
];
const rowsOf = (html: string) => html.split('<tr>').filter((r) => r.includes('Walked it.'));

describe('report: the inspection signature', () => {
  it('shows the statement, the drawing or the typed name, and who signed when', () => {
    const html = inspections.html!.render(
      { inspections: list, site: { kind: 'construction' } } as unknown as ComplianceReport,
      ctx,
    );
    const [drawn, typed, none, forged] = rowsOf(html);
    expect(drawn).toContain(SIGNATURE_STATEMENT);
    expect(drawn).toMatch(
      /<svg class="signature-drawing" viewBox="0 0 600 200" role="img" aria-label="Signature of Ida Inspector"><path d="M10 20 L30 40"\/><\/svg>/,
    );
    expect(drawn).toContain("Signed by Ida Inspector, at [2026-11-05T16:00:00.000Z in the site's zone]");
    expect(typed).toContain('<span class="signature-typed">Pat &lt;Engineer&gt;</span>');
    expect(typed).toContain('Signed by Pat &lt;Engineer&gt;, at');
    expect(typed).not.toContain('<svg');
    expect(none).not.toContain('inspection-signature');
    expect(forged).not.toContain('<script>');
    expect(forged).not.toContain('<svg');
    expect(forged).toContain('<span class="signature-typed">Eve</span>');
  });

  it("names the signer in the CSV's signed-by column, the last", () => {
    const rows = inspections.csv({
      inspections: list,
      site: { kind: 'construction' },
    } as unknown as ComplianceReport);
    const cell = (id: string) => rows.find((r) => r[1] === id)!;
    expect(CSV_HEADER.indexOf('signed by')).toBe(cell('i-drawn').length - 1);
    expect(cell('i-drawn').at(-1)).toBe('Ida Inspector (drawn)');
    expect(cell('i-typed').at(-1)).toBe('Pat <Engineer> (typed name)');
    expect(cell('i-none').at(-1)).toBe('');
  });
});
