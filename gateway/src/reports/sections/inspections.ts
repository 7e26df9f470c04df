/**
 * The inspections recorded in the period: a table on the page (a town inspection and a partial one say
 * so under their kind), an `inspection` row each in the CSV.
 */

import { coverageWords, INSPECTION_SIDE_LABELS } from '../../../../shared/src/api/findings.ts';
import { escapeXml as esc } from '../stormChart.ts';
import { INSPECTION_KIND_WORDS, wordFor } from '../words.ts';
import { detailSentences, pumpOutWord } from './inspectionDetails.ts';

/**
 * Under an inspection's kind: a town inspection says so (it meets none of the developer's duties), and
 * one covering fewer than every practice is partial ("partial: 1 of 5 practices").
 */
function whose(x: { side?: 'developer' | 'town'; coverage?: { covered: number; of: number } }): string {
  const words = [
    ...(x.side === 'town' ? [INSPECTION_SIDE_LABELS.town] : []),
    ...(x.coverage && x.coverage.covered < x.coverage.of ? [`partial: ${coverageWords(x.coverage)}`] : []),
  ];
  return words.length ? `<br><small>${esc(words.join(' · '))}</small>` : '';
}

import { listTable, type ReportSection } from './section.ts';

export const inspections: ReportSection<'inspections'> = {
  id: 'inspections',
  collect: (i) => ({ fields: { inspections: i.inspections }, counts: { inspections: i.inspections.length } }),
  html: {
    region: 'duties',
    render: (r, { t }) =>
      listTable(
        'Inspections recorded',
        ['When', 'Kind', 'Inspector', 'Notes', 'Recorded'],
        r.inspections.map(
          (x) =>
            `<tr><td>${t(x.at)}</td><td>${esc(pumpOutWord(x.kind, r.site.kind) ?? wordFor(INSPECTION_KIND_WORDS, x.kind))}${whose(x)}</td><td>${esc(x.inspector)}</td><td>${[x.notes, ...detailSentences(x, r.site.kind)].filter(Boolean).map(esc).join('<br>')}</td><td>${t(x.recordedAt)}<br><small>by ${esc(x.recordedBy)}</small></td></tr>`,
        ),
      ),
  },
  csv: (r) =>
    r.inspections.map((x) => [
      'inspection',
      x.id,
      x.kind,
      '',
      x.at,
      '',
      x.recordedAt,
      'recorded',
      [`${x.inspector}: ${x.notes}`, ...detailSentences(x, r.site.kind)].join(' '),
    ]),
};
