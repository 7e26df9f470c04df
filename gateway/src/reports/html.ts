/**
 * The compliance report as a document a town accepts: the site and period at the top (and on every
 * printed page, with the line of a stop-work order in effect), then each section of `sections/index.ts`
 * in its region of the page: the summary and the certification block on the first page, the storms with
 * their rain charts (`stormChart.ts`), the duties under their rules' names (the rule modules' words) with
 * the inspections, notices, extensions, the site's history and its changes, the notices of violation and
 * stop-work orders; and the evidence and how to verify it offline (`evidenceHtml.ts`). Times are in the
 * site's time zone.
 *
 * Its look is the served stylesheet (`style.ts`, GET /report.css) plus the page's own running header,
 * allowed by the response's CSP nonce; the page Chromium prints to PDF carries both inline instead.
 * No `style` attribute anywhere: the gateway's Content-Security-Policy would block it.
 */
import { formatDay, formatLong } from '../../../shared/src/time.ts';
import { evidenceSection } from './evidenceHtml.ts';
import type { ReportPhoto } from './photos.ts';
import type { ComplianceReport } from './report.ts';
import { SECTIONS } from './sections/index.ts';
import type { HtmlContext, HtmlRegion } from './sections/section.ts';
import { escapeXml as esc } from './stormChart.ts';
import { pageFooterCss, pageHeaderCss, REPORT_CSS } from './style.ts';
import { SITE_KIND_WORDS, wordFor } from './words.ts';

export interface HtmlOptions {
  /** The served stylesheet's URL and the nonce the response's CSP allows, or everything inline (PDF). */
  style: { href: string; nonce: string } | { inline: true };
  /** Each storm's chart (SVG), by storm id. */
  charts: ReadonlyMap<string, string>;
  /** Storms in the table whose chart was left out (too many to draw). */
  chartsLeftOut: number;
  /** A device as people know it: its name, else its id. */
  deviceName(id: string): string;
  /**
   * This report as JSON, the verifier page, and where its photos are opened (`photo`, followed by a
   * photo's hash): absolute URLs (they stay usable on paper and in a PDF).
   */
  links: { json: string; verify: string; photo?: string };
  /** The inspections' photos as read for the page (`photos.ts`); one not here is listed by its hash. */
  photos: ReadonlyMap<string, ReportPhoto>;
}

const DEFAULTS: HtmlOptions = {
  style: { inline: true },
  charts: new Map(),
  chartsLeftOut: 0,
  deviceName: (id) => id,
  links: { json: '?format=json', verify: '/verify.html' },
  photos: new Map(),
};

/** The period in words: "November 1, 2026 to November 30, 2026". */
export const periodWords = (r: ComplianceReport): string =>
  `${formatDay(r.period.firstDay)} to ${formatDay(r.period.lastDay)}`;

/** The page's regions in order, and the `<section>` class of each (the first page has none). */
const REGIONS: ReadonlyArray<[HtmlRegion, string | undefined]> = [
  ['front', undefined],
  ['storms', 'storms'],
  ['duties', 'duties page'],
  ['enforcement', 'enforcement page'],
];

const FOOTER = pageFooterCss('Compliance report');

export function reportToHtml(r: ComplianceReport, options: Partial<HtmlOptions> = {}): string {
  const o = { ...DEFAULTS, ...options };
  const c: HtmlContext = {
    t: (iso) => (iso ? esc(formatLong(Date.parse(iso), r.site.timezone)) : '—'),
    device: (id) => (id ? esc(o.deviceName(id)) : '—'),
    deviceName: o.deviceName,
    photos: o.photos,
    photoUrl: (sha) => `${o.links.photo ?? '/api/photos/'}${sha}`,
    charts: o.charts,
    chartsLeftOut: o.chartsLeftOut,
  };
  const { t } = c;
  const site = r.site.name === r.site.id ? r.site.name : `${r.site.name} (${r.site.id})`;
  const style =
    'inline' in o.style
      ? `<style>${REPORT_CSS}\n${pageHeaderCss(site, periodWords(r))}${FOOTER}</style>`
      : `<link rel="stylesheet" href="${esc(o.style.href)}"><style nonce="${esc(o.style.nonce)}">${pageHeaderCss(site, periodWords(r))}${FOOTER}</style>`;
  const headerLines = SECTIONS.map((s) => s.html.header?.(r, c) ?? '').join('');
  const regions = REGIONS.map(([region, cls]) => {
    const parts = SECTIONS.filter((s) => s.html.region === region)
      .map((s) => s.html.render(r, c))
      .join('\n');
    return cls ? `<section class="${cls}">${parts}</section>` : parts;
  }).join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">
<title>Compliance report: ${esc(r.site.name)}, ${esc(periodWords(r))}</title>
${style}</head><body>
<header class="report-head"><h1>Compliance report</h1><p class="site">${esc(site)}: ${esc(wordFor(SITE_KIND_WORDS, r.site.kind))}</p>${headerLines}</header>
${r.warnings.map((w) => `<p class="warn" role="alert"><b>Warning:</b> ${esc(w)}</p>`).join('\n')}
<table class="facts"><tbody>
<tr><th>Period</th><td>${esc(periodWords(r))}<br><small>Whole days in the site's time zone (${esc(r.site.timezone)})</small></td></tr>
<tr><th>Generated</th><td>${t(r.generatedAt)}</td></tr>
<tr><th>Generated by</th><td>${esc(r.generatedBy)}</td></tr>
<tr><th>This report as data</th><td><a class="url" href="${esc(o.links.json)}">JSON, with its evidence</a></td></tr>
</tbody></table>
${regions}
<section class="evidence page">${evidenceSection(r, t, o.links)}</section>
</body></html>`;
}
