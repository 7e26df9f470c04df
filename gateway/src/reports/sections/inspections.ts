/**
 * The inspections recorded in the period: a table on the page (a town inspection and a partial one say
 * so under their kind), each with its findings and photos under it (`inspectionFindings.ts`), and an
 * `inspection` row each in the CSV, whose it is and how complete in its column `inspection` ("the town's
 * inspection", "the developer's, partial (3 of 5 practices)"), followed by its `finding` rows.
 */

import { coverageWords } from '../../../../shared/src/api/findings.ts';
import { escapeXml as esc } from '../stormChart.ts';
import { INSPECTION_KIND_WORDS, wordFor } from '../words.ts';
import { detailSentences, pumpOutWord } from './inspectionDetails.ts';
import { findingRows, findingsHtml } from './inspectionFindings.ts';
import { listTable, type ReportSection } from './section.ts';
import { signatureBlock, signedByCell } from './signatureBlock.ts';

type Whose = { side?: 'developer' | 'town'; coverage?: { covered: number; of: number } };

/**
 * A town inspection says so (it meets none of the developer's duties), and one covering fewer than
 * every practice is partial ("partial (1 of 5 practices)"); a complete one of the developer's side is
 * neither.
 */
export function whoseWords(x: Whose): string[] {
  return [
    ...(x.side === 'town' ? ["the town's inspection"] : []),
    ...(x.coverage && x.coverage.covered < x.coverage.of ? [`partial (${coverageWords(x.coverage)})`] : []),
  ];
}

/** Under an inspection's kind on the page: whose it is and how complete, when it is not simply the developer's. */
function whose(x: Whose): string {
  const words = whoseWords(x);
  return words.length ? `<br><small>${esc(words.join(' · '))}</small>` : '';
}

/** The CSV's column in words: whose it is, and whether it covered every practice. */
export function whoseColumn(x: Whose): string {
  const words = whoseWords(x);
  return [...(x.side === 'town' ? [] : ["the developer's"]), ...words].join(', ');
}

export const inspections: ReportSection<'inspections'> = {
  id: 'inspections',
  collect: (i) => ({
    fields: { inspections: i.inspections },
    counts: { inspections: i.inspections.length },
  }),
  html: {
    region: 'duties',
    render: (r, c) =>
      listTable(
        'Inspections recorded',
        ['When', 'Kind', 'Inspector', 'Notes', 'Recorded'],
        r.inspections.map((x) => {
          const { t } = c;
          const findings = findingsHtml(x, r, c);
          return `<tr><td>${t(x.at)}</td><td>${esc(pumpOutWord(x.kind, r.site.kind) ?? wordFor(INSPECTION_KIND_WORDS, x.kind))}${whose(x)}</td><td>${esc(x.inspector)}</td><td>${[x.notes, ...detailSentences(x, r.site.kind)].filter(Boolean).map(esc).join('<br>')}${signatureBlock(x, t)}</td><td>${t(x.recordedAt)}<br><small>by ${esc(x.recordedBy)}</small></td></tr>${findings ? `<tr class="findings"><td colspan="5">${findings}</td></tr>` : ''}`;
        }),
      ),
  },
  csv: (r) =>
    r.inspections.flatMap((x) => [
      [
        'inspection',
        x.id,
        x.kind,
        '',
        x.at,
        '',
        x.recordedAt,
        'recorded',
        [`${x.inspector}: ${x.notes}`, ...detailSentences(x, r.site.kind)].join(' '),
        whoseColumn(x),
        '',
        '',
        signedByCell(x),
      ],
      ...findingRows(x, r),
    ]),
};
