/**
 * A notice of violation as the document served on its parties, under the law of its site (town law 001,
 * Enforcement, A; town law 000, Section 5.100 B: the order to correct or to cease use, with what follows
 * when it is not met): the elements the law requires (`ENFORCEMENT_LAWS`), each under its heading, then the issuing officer,
 * the date of service, the inspection it rests on (with its findings) and the notice's evidence-log entry.
 * Times are in the site's time zone. Its look is the report's stylesheet (GET /report.css), or inline in
 * the page Chromium prints to PDF; no `style` attribute and no script (the gateway's CSP).
 */

import {
  appealSentence,
  elementHeadings,
  lawOfNotice,
  orderKindOf,
} from '../../../shared/src/api/enforcementLaws.ts';
import { VIOLATION_STATUS_LABELS } from '../../../shared/src/api/enforcementWords.ts';
import { FINDING_STATUS_LABELS } from '../../../shared/src/api/inspectionWords.ts';
import {
  endOfDay,
  NOT_SERVED,
  STEP_KIND_WORDS,
  stepDetailWords,
} from '../../../shared/src/api/serviceWords.ts';
import type { Party, ViolationDto } from '../../../shared/src/api/violations.ts';
import type { InspectionDto } from '../../../shared/src/api.ts';
import { formatLong } from '../../../shared/src/time.ts';
import type { SiteConfig } from '../config/schema.ts';
import { escapeXml as esc } from './stormChart.ts';
import { type DocumentStyle, documentStyle } from './style.ts';
import { INSPECTION_KIND_WORDS, wordFor } from './words.ts';

/** Each step after a notice, in words. */
export const VIOLATION_STEP_WORDS: Record<ViolationDto['events'][number]['kind'], string> = {
  served: STEP_KIND_WORDS.served!,
  appealed: STEP_KIND_WORDS.appealed!,
  heard: STEP_KIND_WORDS.heard!,
  corrected: STEP_KIND_WORDS.corrected!,
  approved: STEP_KIND_WORDS.approved!,
};

export interface ViolationDocOptions {
  style: DocumentStyle;
  siteName: string;
  tz: string;
  /** The inspection the notice rests on, if it names one. */
  inspection?: InspectionDto | undefined;
  /** Practice labels by id (the site's), for the findings. */
  practiceLabel(id: string): string;
}

export const party = (role: string, p: Party | undefined) =>
  p
    ? `<tr><th>${esc(role)}</th><td>${esc(p.name)}<br>${esc(p.address)}${p.email ? `<br>${esc(p.email)}` : ''}</td></tr>`
    : `<tr><th>${esc(role)}</th><td>none on record</td></tr>`;

const para = (text: string) =>
  text
    .split(/\n{2,}/)
    .map((p) => `<p>${esc(p).replace(/\n/g, '<br>')}</p>`)
    .join('');

/** The statement of the appeal element, with the last day to appeal (or that it has not started). */
export function appealStatement(
  v: Pick<ViolationDto, 'appealBy' | 'law' | 'appealDays'>,
  tz: string,
): string {
  const law = lawOfNotice(v);
  if (v.appealBy === undefined) return `${appealSentence(law, undefined)} ${NOT_SERVED}`;
  return appealSentence(law, endOfDay(v.appealBy, tz));
}

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
    .map((e) => {
      const said = [stepDetailWords(e, v.law, tz), e.text].filter(Boolean).join('. ');
      return `<tr><td>${esc(wordFor(VIOLATION_STEP_WORDS, e.kind))}</td><td>${esc(formatLong(Date.parse(e.at), tz))}</td><td>${esc(e.by)}</td><td>${esc(said)}${e.photos.length ? ` (${e.photos.length} photo${e.photos.length === 1 ? '' : 's'})` : ''}</td></tr>`;
    })
    .join('');
  return `<h2>Since it was issued</h2><table><thead><tr><th>Step</th><th>When</th><th>By</th><th>Note</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function violationToHtml(v: ViolationDto, o: ViolationDocOptions): string {
  const tz = o.tz;
  const t = (iso: string) => esc(formatLong(Date.parse(iso), tz));
  const law = lawOfNotice(v);
  const HEADINGS = elementHeadings(law);
  const order = orderKindOf(law, v.orderKind);
  const title = law.orderKinds.length > 1 ? `${law.noticeTitle}: ${order.label}` : law.noticeTitle;
  const style = documentStyle(o.style, title);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>${esc(title)}: ${esc(o.siteName)}</title>${style}</head>
<body>
<header class="report-head"><h1>${esc(title)}</h1><p class="site">${esc(o.siteName)}: Town of Chester, ${esc(law.title)}, ${esc(law.part)}</p></header>
<table class="facts">
<tr><th>Issued by</th><td>${esc(v.issuedBy)}, for ${esc(law.officer)}, on ${t(v.issuedAt)}</td></tr>
<tr><th>Date of service</th><td>${v.servedAt ? t(v.servedAt) : esc(NOT_SERVED)}</td></tr>
<tr><th>Status</th><td>${esc(VIOLATION_STATUS_LABELS[v.status])}</td></tr>
</table>
<h2>${esc(HEADINGS.parties)}</h2>
<table class="facts">${party(law.partyLabels.landowner, v.landowner)}${party(law.partyLabels.developer, v.developer)}</table>
<h2>${esc(HEADINGS.land)}</h2>
<p>${esc(v.siteAddress ?? o.siteName)}</p>
<h2>${esc(HEADINGS.nature)}</h2>
${para(v.nature)}
<h2>${esc(HEADINGS.remedy)}</h2>
<p>${esc(order.words)}</p>
${para(v.remedy)}
<p>To be completed by <strong>${t(v.remedyDueAt)}</strong>.</p>
<p>${esc(law.whenNotMet)}</p>
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

/**
 * A notice's printable document as its e-mail attaches it (the style inline, as for the PDF), from the
 * live catalogue's site and the inspection it names.
 */
export function noticeDocuments(d: {
  siteOf(id: string): Pick<SiteConfig, 'name' | 'timezone' | 'practices'> | undefined;
  inspectionsOf(siteId: string): InspectionDto[];
  timezone: string;
}): (v: ViolationDto) => { filename: string; html: string } {
  return (v) => {
    const site = d.siteOf(v.siteId);
    const labels = new Map((site?.practices ?? []).map((p) => [p.id, p.label]));
    const inspection = v.inspectionId
      ? d.inspectionsOf(v.siteId).find((i) => i.id === v.inspectionId)
      : undefined;
    return {
      filename: `notice-of-violation-${v.siteId}-${v.issuedAt.slice(0, 10)}.html`,
      html: violationToHtml(v, {
        style: { inline: true },
        siteName: site?.name ?? v.siteId,
        tz: site?.timezone ?? d.timezone,
        inspection,
        practiceLabel: (p) => labels.get(p) ?? p,
      }),
    };
  };
}
