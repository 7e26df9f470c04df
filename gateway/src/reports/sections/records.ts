/**
 * The developer's records of the site on file at the period's end (town law 001): contractors'
 * certifications, the SWPPP kept on site, expected milestones, the final acceptance and the one-year
 * inspection, each with what it says in words: a table on the enforcement page, a `record` row each in
 * the CSV. The duties these records meet (no certification on file, the one-year inspection, a milestone
 * with no notice) are the duties' lists (rules/developer-records/).
 */
import { SITE_RECORD_LABELS } from '../../../../shared/src/api/siteRecords.ts';
import { escapeXml as esc } from '../stormChart.ts';
import { listTable, type ReportSection } from './section.ts';

export const records: ReportSection<'records'> = {
  id: 'records',
  collect: (i) => ({ fields: { records: i.records ?? [] } }),
  html: {
    region: 'enforcement',
    render: (r, { t }) =>
      listTable(
        "The developer's records on file",
        ['Record', 'Time', 'Recorded', 'What it says'],
        r.records.map(
          (x) =>
            `<tr><td>${esc(SITE_RECORD_LABELS[x.kind])}</td><td>${t(x.at)}</td><td>${t(x.recordedAt)}<br><small>by ${esc(x.recordedBy)}</small></td><td>${esc(x.summary)}</td></tr>`,
        ),
      ),
  },
  csv: (r) =>
    r.records.map((x) => [
      'record',
      x.id,
      x.kind,
      '',
      x.at,
      '',
      x.recordedAt,
      'on-file',
      `${SITE_RECORD_LABELS[x.kind]}, recorded by ${x.recordedBy}: ${x.summary}`,
    ]),
};
