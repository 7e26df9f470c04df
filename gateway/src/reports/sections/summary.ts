/**
 * The summary: the counts of the other sections, in the order of `SUMMARY_LABELS`, each with its label;
 * on the page in two columns (storms and inspections, then duties) with the enforcement counts in a
 * sentence, and in the CSV a row each.
 */
import { type ComplianceReport, SUMMARY_LABELS, type SummaryKey } from '../report.ts';
import { escapeXml as esc } from '../stormChart.ts';
import type { ReportSection } from './section.ts';

const KEYS = Object.keys(SUMMARY_LABELS) as SummaryKey[];

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "3 notices of violation issued; 1 remedied on time, 1 late, 1 open; 1 stop-work order." */
export function enforcementCountsSentence(s: ComplianceReport['summary']): string {
  return `${plural(s.violationsIssued, 'notice of violation', 'notices of violation')} issued; ${s.violationsOnTime} remedied on time, ${s.violationsLate} late, ${s.violationsOpen} open; ${plural(s.stopWorkOrders, 'stop-work order', 'stop-work orders')} in effect during the period.`;
}

/** The counts in two columns, a label and its number each. */
function summaryRows(r: ComplianceReport): string {
  const half = Math.ceil(KEYS.length / 2);
  const cell = (k: SummaryKey | undefined) =>
    k ? `<th>${esc(SUMMARY_LABELS[k])}</th><td class="n">${r.summary[k]}</td>` : '<th></th><td></td>';
  return KEYS.slice(0, half)
    .map((k, i) => `<tr>${cell(k)}${cell(KEYS[half + i])}</tr>`)
    .join('');
}

export const summary: ReportSection<'summary'> = {
  id: 'summary',
  countsOthers: true,
  collect(_i, counted) {
    const counts = {} as Record<SummaryKey, number>;
    for (const k of KEYS) {
      const n = counted[k];
      if (n === undefined) throw new Error(`no section of the report counts the summary's ${k}`);
      counts[k] = n;
    }
    return { fields: { summary: counts } };
  },
  html: {
    region: 'front',
    render: (r) =>
      `<h2>Summary</h2><table class="summary"><tbody>${summaryRows(r)}</tbody></table>
<p class="enforcement-counts">Enforcement: ${esc(enforcementCountsSentence(r.summary))}</p>`,
  },
  csv: (r) => KEYS.map((k) => ['summary', k, '', '', '', '', '', r.summary[k], SUMMARY_LABELS[k]]),
};
