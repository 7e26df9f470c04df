/** The inspections recorded in the period: a table on the page, an `inspection` row each in the CSV. */
import { escapeXml as esc } from '../stormChart.ts';
import { INSPECTION_KIND_WORDS, wordFor } from '../words.ts';
import { detailSentences, pumpOutWord } from './inspectionDetails.ts';
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
            `<tr><td>${t(x.at)}</td><td>${esc(pumpOutWord(x.kind, r.site.kind) ?? wordFor(INSPECTION_KIND_WORDS, x.kind))}</td><td>${esc(x.inspector)}</td><td>${[x.notes, ...detailSentences(x, r.site.kind)].filter(Boolean).map(esc).join('<br>')}</td><td>${t(x.recordedAt)}<br><small>by ${esc(x.recordedBy)}</small></td></tr>`,
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
