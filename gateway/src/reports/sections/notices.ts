/**
 * The milestone notices whose milestone falls in the period (town law 001, A(1)), each with its standing
 * in words (filed 48 hours before or not): a table on the page, a `notice` row each in the CSV.
 */
import { noticeStanding } from '../../../../shared/src/api/notices.ts';
import { escapeXml as esc } from '../stormChart.ts';
import { listTable, type ReportSection } from './section.ts';

export const notices: ReportSection<'notices'> = {
  id: 'notices',
  collect: (i) => ({
    fields: { notices: i.notices.map((n) => ({ ...n, standing: noticeStanding(n) })) },
    counts: {
      noticesOnTime: i.notices.filter((n) => !n.late).length,
      noticesLate: i.notices.filter((n) => n.late).length,
    },
  }),
  html: {
    region: 'duties',
    render: (r, { t }) =>
      listTable(
        'Milestone notices (48 hours before)',
        ['Milestone', 'Milestone time', 'Filed', 'Standing'],
        r.notices.map(
          (n) =>
            `<tr><td>${esc(n.label)}</td><td>${t(n.at)}</td><td>${t(n.filedAt)}<br><small>by ${esc(n.filedBy)}</small></td><td>${esc(n.standing)}</td></tr>`,
        ),
      ),
  },
  csv: (r) =>
    r.notices.map((n) => [
      'notice',
      n.id,
      n.milestone,
      '',
      n.at,
      '',
      n.filedAt,
      n.late ? 'late' : 'on-time',
      `${n.label}, filed by ${n.filedBy}: ${n.standing}`,
    ]),
};
