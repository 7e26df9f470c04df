/**
 * A notice of violation as the document served on the landowner and developer (town law 001,
 * Enforcement, A): the elements the law requires (`ENFORCEMENT_LAWS`), each under its heading, then the issuing officer,
 * the date of service, the inspection it rests on (with its findings) and the notice's evidence-log entry.
 * Times are in the site's time zone. Its look is the report's stylesheet (GET /report.css), or inline in
 * the page Chromium prints to PDF; no `style` attribute and no script (the gateway's CSP).
 */

import { appealSentence, elementHeadings, NOTICE_LAW } from '../../../shared/src/api/enforcementLaws.ts';
import { FINDING_STATUS_LABELS, VIOLATION_STATUS_LABELS } from '../../../shared/src/api/enforcementWords.ts';
import type { Party, ViolationDto } from '../../../shared/src/api/violations.ts';
import type { InspectionDto } from '../../../shared/src/api.ts';
import { formatLong } from '../../../shared/src/time.ts';
import { escapeXml as esc } from './stormChart.ts';
import { REPORT_CSS } from './style.ts';
import { INSPECTION_KIND_WORDS, wordFor } from './words.ts';

/** Each step after a notice, in words. */
export const VIOLATION_STEP_WORDS: Record<ViolationDto['events'][number]['kind'], string> = {
  appealed: 'Appealed',
  corrected: 'Correction reported',
  approved: 'Correction approved by the officer',
};

export interface ViolationDocOptions {
  style: { href: string } | { inline: true };
  siteName: string;
  tz: string;
  /** The inspection the notice rests on, if it names one. */
  inspection?: InspectionDto | undefined;
  /** Practice labels by id (the site's), for the findings. */
  practiceLabel(id: string): string;
}

const party = (role: string, p: Party | undefined) =>
  p
    ? `<tr><th>${esc(role)}</th><td>${esc(p.name)}<br>${esc(p.address)}${p.email ? `<br>${esc(p.email)}` : ''}</td></tr>`
    : `<tr><th>${esc(role)}</th><td>none on record</td></tr>`;

const para = (text: string) =>
  text
    .split(/\n{2,}/)
    .map((p) => `<p>${esc(p).replace(/\n/g, '<br>')}</p>`)
    .join('');

/** The statement of the appeal element, with the last day to appeal. */
export function appealStatement(v: Pick<ViolationDto, 'appealBy'>, tz: string): string {
  return appealSentence(NOTICE_LAW, formatLong(Date.parse(v.appealBy), tz));
}

const HEADINGS = elementHeadings(NOTICE_LAW);

function inspectionPart(o: ViolationDocOptions, v: ViolationDto): string {
  if (!v.inspectionId) return '<p>The notice names no inspection.</p>';
  const i = o.inspection;
  if (!i) return `<p>Inspection ${esc(v.inspectionId)} (not found on record).</p>`;
  const head = `<p>${esc(wordFor(INSPECTION_KIND_WORDS, i.kind))} by ${esc(i.inspector)} on ${esc(formatLong(Date.parse(i.at), o.tz))}.${i.notes ? ` ${esc(i.notes)}` : ''}</p>`;
  if (!i.findings?.length) return head;
  const rows = i.findings
    .map(
      (f) =>
        `<tr><td>${esc(o.practiceLabel(f.practice))}</td><td>${esc(FINDING_STATUS_LABELS[f.status])}</td><td>${esc(f.note)}</td><td class="n">${f.photos.length}</td></tr>`,
    )
    .join('');
  return `${head}<table><thead><tr><th>Practice</th><th>Finding</th><th>Note</th><th>Photos</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function eventsPart(v: ViolationDto, tz: string): string {
  if (v.events.length === 0) return '';
  const rows = v.events
    .map(
      (e) =>
        `<tr><td>${esc(wordFor(VIOLATION_STEP_WORDS, e.kind))}</td><td>${esc(formatLong(Date.parse(e.at), tz))}</td><td>${esc(e.by)}</td><td>${esc(e.text)}${e.photos.length ? ` (${e.photos.length} photo${e.photos.length === 1 ? '' : 's'})` : ''}</td></tr>`,
    )
    .join('');
  return `<h2>Since it was served</h2><table><thead><tr><th>Step</th><th>When</th><th>By</th><th>Note</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function violationToHtml(v: ViolationDto, o: ViolationDocOptions): string {
  const tz = o.tz;
  const t = (iso: string) => esc(formatLong(Date.parse(iso), tz));
  const style =
    'inline' in o.style
      ? `<style>${REPORT_CSS}</style>`
      : `<link rel="stylesheet" href="${esc(o.style.href)}">`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>Notice of violation: ${esc(o.siteName)}</title>${style}</head>
<body>
<header class="report-head"><h1>Notice of violation</h1><p class="site">${esc(o.siteName)}: Town of Chester, ${esc(NOTICE_LAW.title)}, ${esc(NOTICE_LAW.part)}</p></header>
<table class="facts">
<tr><th>Issued by</th><td>${esc(v.issuedBy)}, for the Stormwater Management Officer</td></tr>
<tr><th>Date of service</th><td>${t(v.issuedAt)}</td></tr>
<tr><th>Status</th><td>${esc(VIOLATION_STATUS_LABELS[v.status])}</td></tr>
</table>
<h2>${esc(HEADINGS.parties)}</h2>
<table class="facts">${party('Landowner', v.landowner)}${party('Developer or applicant', v.developer)}</table>
<h2>${esc(HEADINGS.land)}</h2>
<p>${esc(v.siteAddress ?? o.siteName)}</p>
<h2>${esc(HEADINGS.nature)}</h2>
${para(v.nature)}
<h2>${esc(HEADINGS.remedy)}</h2>
${para(v.remedy)}
<p>To be completed by <strong>${t(v.remedyDueAt)}</strong>.</p>
<h2>${esc(HEADINGS.penalties)}</h2>
${para(v.penalties)}
<h2>${esc(HEADINGS.appeal)}</h2>
<p>${esc(appealStatement(v, tz))}</p>
<h2>The inspection it rests on</h2>
${inspectionPart(o, v)}
${eventsPart(v, tz)}
<h2>Evidence</h2>
<table class="facts">
<tr><th>Notice</th><td>${esc(v.id)}</td></tr>
<tr><th>Evidence log entry</th><td>${v.logIndex ?? 'unknown'}</td></tr>
<tr><th>Leaf hash</th><td>${esc(v.leafHash ?? 'unknown')}</td></tr>
</table>
</body></html>
`;
}
