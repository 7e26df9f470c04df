/**
 * The engineer's extensions of the period's duties (whenever the letter was recorded): a table on the
 * page under each duty's rule name, an `extension` row each in the CSV.
 */
import { ruleLabel } from '../../rules/index.ts';
import { escapeXml as esc } from '../stormChart.ts';
import { listTable, type ReportSection } from './section.ts';

export const extensions: ReportSection<'extensions'> = {
  id: 'extensions',
  collect: (i) => ({ fields: { extensions: i.extensions }, counts: { extensions: i.extensions.length } }),
  html: {
    region: 'duties',
    render: (r, { t }) =>
      listTable(
        "Extensions (engineer's letters)",
        ['Duty', 'Due before', 'Due after', 'Engineer', 'Letter', 'Recorded'],
        r.extensions.map(
          (e) =>
            `<tr><td>${esc(ruleLabel(e.rule))}</td><td>${t(e.oldDueAt)}</td><td>${t(e.newDueAt)}</td><td>${esc(e.engineer)}</td><td>${esc(e.letterRef)}</td><td>${t(e.at)}<br><small>by ${esc(e.by)}</small></td></tr>`,
        ),
      ),
  },
  csv: (r) =>
    r.extensions.map((e) => [
      'extension',
      e.alertId,
      e.rule,
      '',
      e.oldDueAt,
      e.newDueAt,
      e.at,
      'extended',
      `${e.engineer}, letter ${e.letterRef}`,
    ]),
};
