/**
 * The compliance report's enforcement sections as a person reads them (town law 001, Enforcement): the
 * line in the site's header while a stop-work order is in effect, the summary's counts in a sentence, each
 * notice of violation in force in the period (its number on the site, its schedule, the appeal's last day,
 * the inspection it follows, every step after it and its standing), and the stop-work orders in effect in
 * it (since when, why, the notices they name, lifted when and by whom, with an override or not). Each
 * record is cited by its evidence-log entry, as the report's other sections cite theirs. Photos of a
 * correction are named by the start of their SHA-256 (the report's JSON carries them whole).
 */
import { NOTICE_LAW } from '../../../shared/src/api/enforcementLaws.ts';
import type { ComplianceReport } from './compliance.ts';
import type { ReportStopWork, ReportViolation } from './enforcement.ts';
import type { Time } from './htmlSign.ts';
import { escapeXml as esc } from './stormChart.ts';
import { VIOLATION_STEP_WORDS } from './violationDoc.ts';
import { INSPECTION_KIND_WORDS, wordFor } from './words.ts';

/** How many hex digits of a photo's SHA-256 the page shows. */
const SHORT_HASH = 12;

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const entry = (i: number | undefined) => (i === undefined ? 'not yet logged' : `log entry ${i}`);

/** "Notice no. 2": a notice by its number on the site. */
export const noticeName = (v: Pick<ReportViolation, 'siteSeq'>) =>
  v.siteSeq === undefined ? 'Notice of violation' : `Notice of violation no. ${v.siteSeq}`;

/** The prominent line of the site's header while an order is in effect at the period's end (or ''). */
export function stopWorkHeaderLine(r: ComplianceReport, t: Time): string {
  const o = r.stopWorkInEffect;
  if (!o) return '';
  return `<p class="stop-work" role="status"><b>Under a stop-work order since ${t(o.since)}:</b> ${esc(o.reason)}</p>`;
}

/** "3 notices of violation issued; 1 remedied on time, 1 late, 1 open; 1 stop-work order." */
export function enforcementCountsSentence(s: ComplianceReport['summary']): string {
  return `${plural(s.violationsIssued, 'notice of violation', 'notices of violation')} issued; ${s.violationsOnTime} remedied on time, ${s.violationsLate} late, ${s.violationsOpen} open; ${plural(s.stopWorkOrders, 'stop-work order', 'stop-work orders')} in effect during the period.`;
}

function photosWords(photos: readonly string[]): string {
  if (!photos.length) return '';
  const list = photos.map((p) => `<code>${esc(p.slice(0, SHORT_HASH))}…</code>`).join(', ');
  return `<br><small>${photos.length === 1 ? 'Photo' : 'Photos'} (SHA-256): ${list}</small>`;
}

function inspectionWords(r: ComplianceReport, v: ReportViolation, t: Time): string {
  if (v.inspectionId === undefined) return 'None named';
  const i = r.inspections.find((x) => x.id === v.inspectionId);
  if (!i) return 'An inspection recorded before this period';
  return `${esc(wordFor(INSPECTION_KIND_WORDS, i.kind))} of ${t(i.at)}, by ${esc(i.inspector)}`;
}

function stepsTable(v: ReportViolation, t: Time): string {
  if (!v.events.length) return '<p class="none">No appeal, correction or approval yet.</p>';
  const rows = v.events.map(
    (e) =>
      `<tr><td>${esc(wordFor(VIOLATION_STEP_WORDS, e.kind))}</td><td>${t(e.at)}</td><td>${esc(e.by)}</td><td>${esc(e.text) || '—'}${photosWords(e.photos)}</td><td><small>${entry(e.logIndex)}</small></td></tr>`,
  );
  return `<table><thead><tr><th>Step</th><th>When</th><th>By</th><th>What was said</th><th>Cited</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function violationBlock(r: ComplianceReport, v: ReportViolation, t: Time): string {
  const row = (label: string, value: string) => `<tr><th>${esc(label)}</th><td>${value}</td></tr>`;
  return `<div class="nov"><h3>${esc(noticeName(v))}</h3>
<table class="facts"><tbody>
${row('Issued', `${t(v.issuedAt)}, by ${esc(v.issuedBy)}`)}
${row('Nature of the violation', esc(v.nature))}
${row('Remedy required', esc(v.remedy))}
${row('Remedy due', t(v.remedyDueAt))}
${row('Penalties', `<small>${esc(v.penalties)}</small>`)}
${row('Appeal', `May be appealed until ${t(v.appealBy)} (${NOTICE_LAW.appealDays} days from service)`)}
${row('Follows the inspection', inspectionWords(r, v, t))}
${row('Standing', `<b>${esc(capital(v.standing))}</b>`)}
${row('Cited', `<small>${entry(v.logIndex)}</small>`)}
</tbody></table>
<h4>Since it was served</h4>${stepsTable(v, t)}</div>`;
}

function namedNotices(r: ComplianceReport, o: ReportStopWork): string {
  if (!o.violationIds.length) return 'None named';
  return o.violationIds
    .map((id) => {
      const v = r.violations.find((x) => x.id === id);
      return v ? esc(noticeName(v)) : 'A notice no longer in force in this period';
    })
    .join('<br>');
}

function stopWorkRow(r: ComplianceReport, o: ReportStopWork, t: Time): string {
  const lifted =
    o.liftedAt === undefined
      ? 'Not lifted'
      : `${t(o.liftedAt)}, by ${esc(o.liftedBy ?? 'the officer')}${o.liftNote ? `<br><small>${esc(o.liftNote)}</small>` : ''}`;
  const override = o.liftedAt === undefined ? '—' : o.override ? 'Yes' : 'No';
  const cited = [
    entry(o.logIndex),
    ...(o.liftLogIndex === undefined ? [] : [`its lifting: ${entry(o.liftLogIndex)}`]),
  ];
  return `<tr><td>${t(o.since)}</td><td>${esc(o.reason)}</td><td>${namedNotices(r, o)}</td><td>${esc(o.issuedBy)}</td><td>${lifted}</td><td>${override}</td><td>${esc(capital(o.standing))}</td><td><small>${cited.join('<br>')}</small></td></tr>`;
}

/** The two sections: notices of violation, then stop-work orders. */
export function enforcementHtml(r: ComplianceReport, t: Time): string {
  const notices = r.violations.length
    ? r.violations.map((v) => violationBlock(r, v, t)).join('\n')
    : '<p class="none">No notice of violation was in force in this period.</p>';
  const head = ['Since', 'Why', 'Notices it names', 'Issued by', 'Lifted', 'Override', 'Standing', 'Cited'];
  const orders = r.stopWork.length
    ? `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${r.stopWork
        .map((o) => stopWorkRow(r, o, t))
        .join('')}</tbody></table>`
    : '<p class="none">No stop-work order was in effect in this period.</p>';
  return `<h2>Notices of violation</h2>
<p class="small">Town law 001, Enforcement: each notice in force at some time in the period, with what followed it up to the period's end.</p>
${notices}
<h2>Stop-work orders</h2>${orders}`;
}
