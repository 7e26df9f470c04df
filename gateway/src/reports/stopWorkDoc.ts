/**
 * A stop-work order as the document served on its parties, under the law of its site (town law 001,
 * Enforcement, B: "Persons receiving a stop-work order shall be required to halt all land development
 * activities …"; town law 000, Section 5.030 A 7: "order all further work stopped … by written notice"):
 * the law's title, section and words (`ENFORCEMENT_LAWS[law].stopWork`), the parties on file, the land,
 * why it was issued, the notices it names, how long it stays in effect, each service, its lifting, and its
 * evidence-log entries. Times are in the site's time zone. Its look is the report's stylesheet (GET
 * /report.css), or inline in the page Chromium prints to PDF and the e-mail attaches; no `style`
 * attribute and no script (the gateway's CSP).
 */
import { lawOf } from '../../../shared/src/api/enforcementLaws.ts';
import { serviceWords } from '../../../shared/src/api/serviceWords.ts';
import type { StopWorkDto, StopWorkServed, ViolationDto } from '../../../shared/src/api/violations.ts';
import { formatLong } from '../../../shared/src/time.ts';
import type { SiteConfig } from '../config/schema.ts';
import { escapeXml as esc } from './stormChart.ts';
import { type DocumentStyle, documentStyle } from './style.ts';
import { party } from './violationDoc.ts';

export interface StopWorkDocOptions {
  style: DocumentStyle;
  siteName: string;
  tz: string;
  /** The parties on file (as the order was served on them, or the site's now). */
  parties: Pick<StopWorkServed, 'landowner' | 'developer' | 'siteAddress'>;
  /** The notices of violation the order names, as found (a name not found is shown by its id). */
  notices: readonly Pick<ViolationDto, 'id' | 'siteSeq' | 'issuedAt' | 'nature'>[];
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** "A stop-work order …" or "… lifted": the document's title for the order as it stands. */
export const stopWorkTitle = (o: Pick<StopWorkDto, 'law' | 'liftedAt'>): string => {
  const title = lawOf(o.law).stopWork.title;
  return o.liftedAt === undefined ? title : `${title}: lifted`;
};

function noticesPart(o: StopWorkDto, opt: StopWorkDocOptions): string {
  if (o.violationIds.length === 0) return '<p>The order names no notice of violation.</p>';
  const items = o.violationIds.map((id) => {
    const v = opt.notices.find((n) => n.id === id);
    if (!v) return `<li>Notice ${esc(id)} (not found on record)</li>`;
    const no = v.siteSeq !== undefined ? ` no. ${v.siteSeq}` : '';
    return `<li>Notice of violation${no}, issued ${esc(formatLong(Date.parse(v.issuedAt), opt.tz))}: ${esc(v.nature)}</li>`;
  });
  return `<ul>${items.join('')}</ul>`;
}

function servicesPart(o: StopWorkDto, tz: string): string {
  const services = o.services ?? [];
  if (services.length === 0) return '<p>Not yet served on any party.</p>';
  const rows = services
    .map(
      (s) =>
        `<tr><td>${esc(capital(serviceWords(s, tz)))}</td><td>${s.logIndex !== undefined ? s.logIndex : 'unknown'}</td></tr>`,
    )
    .join('');
  return `<table><thead><tr><th>Served</th><th>Evidence log entry</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function liftPart(o: StopWorkDto, tz: string): string {
  if (o.liftedAt === undefined) return '';
  return `<h2>Lifted</h2>
<table class="facts">
<tr><th>Lifted</th><td>${esc(formatLong(Date.parse(o.liftedAt), tz))}, by ${esc(o.liftedBy ?? 'the officer')}</td></tr>
<tr><th>Note</th><td>${esc(o.liftNote ?? '')}</td></tr>
<tr><th>Override</th><td>${o.override ? 'Yes: lifted before every notice it names was approved' : 'No'}</td></tr>
<tr><th>Evidence log entry</th><td>${o.liftLogIndex ?? 'unknown'}</td></tr>
</table>`;
}

export function stopWorkToHtml(o: StopWorkDto, opt: StopWorkDocOptions): string {
  const tz = opt.tz;
  const t = (iso: string) => esc(formatLong(Date.parse(iso), tz));
  const law = lawOf(o.law);
  const title = stopWorkTitle(o);
  const style = documentStyle(opt.style, title);
  const p = opt.parties;
  const standing = o.liftedAt === undefined ? `In effect since ${t(o.since)}` : `Lifted ${t(o.liftedAt)}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>${esc(title)}: ${esc(opt.siteName)}</title>${style}</head>
<body>
<header class="report-head"><h1>${esc(title)}</h1><p class="site">${esc(opt.siteName)}: Town of Chester, ${esc(law.title)}, ${esc(law.stopWork.section)}</p></header>
<table class="facts">
<tr><th>Issued by</th><td>${esc(o.issuedBy)}, for ${esc(law.officer)}, on ${t(o.since)}</td></tr>
<tr><th>Date of service</th><td>${o.servedAt ? t(o.servedAt) : 'Not yet served'}</td></tr>
<tr><th>Standing</th><td>${standing}</td></tr>
</table>
<h2>To whom it is directed</h2>
<table class="facts">${party(law.partyLabels.landowner, p.landowner)}${party(law.partyLabels.developer, p.developer)}</table>
<h2>The land</h2>
<p>${esc(p.siteAddress ?? opt.siteName)}</p>
<h2>The order</h2>
<p>${esc(law.stopWork.order)}</p>
<p>${esc(law.stopWork.until)}</p>
<h2>Why it was issued</h2>
<p>${esc(o.reason).replace(/\n/g, '<br>')}</p>
<h2>The notices of violation it names</h2>
${noticesPart(o, opt)}
<h2>Service</h2>
${servicesPart(o, tz)}
${liftPart(o, tz)}
<h2>Evidence</h2>
<table class="facts">
<tr><th>Order</th><td>${esc(o.id)}</td></tr>
<tr><th>Evidence log entry</th><td>${o.logIndex ?? 'unknown'}</td></tr>
<tr><th>Leaf hash</th><td>${esc(o.leafHash ?? 'unknown')}</td></tr>
</table>
</body></html>
`;
}

/** The file name of an order's document (without its extension). */
export const stopWorkDocumentName = (o: Pick<StopWorkDto, 'siteId' | 'since' | 'liftedAt'>): string =>
  `stop-work-order-${o.siteId}-${o.since.slice(0, 10)}${o.liftedAt ? '-lifted' : ''}`;

/**
 * An order's printable document as its e-mail attaches it (the style inline, as for the PDF): the parties
 * as the order was served on them, the site from the live catalogue, the notices it names.
 */
export function stopWorkDocuments(d: {
  siteOf(id: string): Pick<SiteConfig, 'name' | 'timezone'> | undefined;
  noticeOf(id: string): ViolationDto | undefined;
  timezone: string;
}): (o: StopWorkServed) => { filename: string; html: string } {
  return (o) => {
    const site = d.siteOf(o.siteId);
    const notices = o.violationIds.flatMap((id) => d.noticeOf(id) ?? []);
    return {
      filename: `${stopWorkDocumentName(o)}.html`,
      html: stopWorkToHtml(o, {
        style: { inline: true },
        siteName: site?.name ?? o.siteId,
        tz: site?.timezone ?? d.timezone,
        parties: o,
        notices,
      }),
    };
  };
}
