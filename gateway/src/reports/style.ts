/**
 * The compliance report's stylesheet, served as GET /report.css (the gateway's Content-Security-Policy
 * allows the gateway's own stylesheets, not inline ones), and written into the page that Chromium prints
 * to PDF. On screen: a readable document with bordered tables. In print: US Letter pages with the site
 * and period at the top of every page and "Page N of M" at the bottom (CSS page margin boxes), sections
 * following on (no forced page break, so no near-empty page), headings and labels kept with what
 * follows, tables rows, charts and boxes not cut in two.
 *
 * The running header names the report's site and period, and the footer the document ("Compliance
 * report", or a notice's or order's own title), so they are the page's own small rules (`pageHeaderCss`,
 * `pageFooterCss`): inline in the PDF's page, and allowed by the response's CSP nonce on the served one.
 * In print, long ids, hashes and addresses wrap anywhere and the body keeps a hair's breadth inside the
 * page's margins, so no bordered table or box loses its right side at the page's edge.
 */
import { createHash } from 'node:crypto';
import { escapeXml } from './stormChart.ts';

export const REPORT_CSS = `
:root{--ink:#1d1d1f;--muted:#5f6368;--line:#9aa0a6;--soft:#f1f3f4;--red:#b00020}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);margin:0 auto;padding:2em;max-width:1000px;background:#fff}
header.report-head{border-bottom:3px solid var(--ink);margin-bottom:1.2em;padding-bottom:.6em}
header.report-head h1{margin:0 0 .2em;font-size:26px}
header.report-head .site{font-size:18px;margin:0}
h2{font-size:19px;margin:1.6em 0 .5em;border-bottom:1px solid var(--line);padding-bottom:.2em}
h3{font-size:15px;margin:1.2em 0 .4em}
table{border-collapse:collapse;width:100%;margin:.4em 0 1.2em}
th,td{border:1px solid var(--line);padding:4px 7px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
thead th,table.facts th{background:var(--soft)}
table.facts th{width:13em;font-weight:600}
table.summary th{background:var(--soft);font-weight:600}
table.summary td.n{width:4em;text-align:right;font-variant-numeric:tabular-nums}
.st{display:inline-block;padding:0 6px;border-radius:3px;font-weight:600;white-space:nowrap}
.st-on-time,.st-resolved{background:#d8f3dc}
.st-late,.st-overdue,.st-missing{background:#ffd6d6}
.st-open,.st-pending{background:#fff3c4}
.st-not-required{background:#eee}
.none{color:var(--muted)}
small,.small{color:var(--muted);font-size:12px}
code{font-size:12px;word-break:break-all}
pre{white-space:pre-wrap;word-break:break-all;font-size:11px;background:var(--soft);padding:.5em;border:1px solid var(--line)}
.warn{border:2px solid var(--red);background:#ffe8e8;padding:.6em .8em;font-size:15px}
.stop-work{border:2px solid var(--red);background:#ffe8e8;padding:.5em .8em;margin:.6em 0 0;font-size:16px}
.enforcement-counts{margin:-.6em 0 1.2em}
div.nov{margin:1em 0 1.6em}
div.nov h3{margin-bottom:.3em}
h4{font-size:14px;margin:.8em 0 .3em}
figure.storm{margin:1em 0 1.6em;break-inside:avoid;page-break-inside:avoid}
figure.storm figcaption{font-weight:600;margin-bottom:.3em}
svg.storm-chart{display:block;width:100%;max-width:640px;height:auto;border:1px solid var(--line);background:#fff}
section.certification .cert{border:1px solid var(--line);padding:.6em 1em;margin:.6em 0 1.2em;break-inside:avoid;page-break-inside:avoid}
section.certification .statement{font-size:15px;font-style:italic;margin:.3em 0 .8em}
table.sign{border:0;margin:.2em 0}
table.sign th,table.sign td{border:0;padding:14px 8px 2px 0;vertical-align:bottom}
table.sign th{width:9em;font-weight:600;background:none}
table.sign td.line{border-bottom:1px solid var(--ink);min-width:16em}
.inspection-signature{margin-top:.5em;padding-top:.3em;border-top:1px dotted var(--line);break-inside:avoid;page-break-inside:avoid}
.inspection-signature small{display:block}
svg.signature-drawing{display:block;width:15em;max-width:100%;height:5em;margin:.2em 0}
svg.signature-drawing path{fill:none;stroke:var(--ink);stroke-width:4;stroke-linecap:round;stroke-linejoin:round}
.signature-typed{display:block;font:italic 26px/1.3 "Brush Script MT","Segoe Script","Snell Roundhand","URW Chancery L","Z003",cursive;margin:.2em 0}
.verify{border-left:4px solid var(--line);padding:.4em .8em;background:var(--soft)}
tr.findings>td{padding:2px 7px 6px 24px;border-top:0}
table.findings{margin:.2em 0;font-size:13px}
table.findings td.photos{width:45%}
figure.photo{display:inline-block;vertical-align:top;width:96px;margin:0 6px 6px 0}
figure.photo img{display:block;width:96px;height:72px;object-fit:cover;border:1px solid var(--line)}
figure.photo figcaption{font-size:10px;overflow-wrap:anywhere}
figure.photo.left{display:block;width:auto;max-width:100%}
a{color:#174ea6}
@page{size:Letter;margin:20mm 16mm 18mm;
  @bottom-right{content:"Page " counter(page) " of " counter(pages);font:9pt system-ui,sans-serif;color:#5f6368}}
@media print{
  body{padding:0 1.5pt;max-width:none;font-size:10.5pt}
  p,li,dd{overflow-wrap:anywhere}
  table,pre,figure,.cert,.warn,.stop-work,.verify,svg{max-width:100%}
  table{font-size:9.5pt}
  table.findings{font-size:8.5pt}
  th,td{padding:3px 5px}
  header.report-head h1{font-size:20pt}
  h2{break-after:avoid;page-break-after:avoid}
  thead{display:table-header-group}
  tr,figure,.cert,.warn,.stop-work,.keep,pre{break-inside:avoid;page-break-inside:avoid}
  h3,h4{break-after:avoid;page-break-after:avoid}
  th,.st,.warn,.stop-work,svg{-webkit-print-color-adjust:exact;print-color-adjust:exact}
  a{color:inherit;text-decoration:none}
  a.url::after{content:" (" attr(href) ")";font-size:9pt;word-break:break-all}
  svg.storm-chart{max-width:100%}
}
`.trim();

/** The stylesheet's version, for its URL and its ETag: it changes only with the gateway. */
export const REPORT_CSS_TAG = createHash('sha256').update(REPORT_CSS).digest('hex').slice(0, 16);

/** A CSS string literal of any text: quotes, backslashes, line ends and `<` escaped (no `</style>`). */
export function cssString(s: string): string {
  return `"${s.replace(/[\\"<>\n\r\f]/g, (c) => `\\${c.charCodeAt(0).toString(16)} `)}"`;
}

const MARGIN_FONT = 'font:9pt system-ui,sans-serif;color:#5f6368';

/** The running header of every printed page: the site and the period. */
export function pageHeaderCss(site: string, period: string): string {
  return `@page{@top-left{content:${cssString(site)};${MARGIN_FONT}}@top-right{content:${cssString(period)};${MARGIN_FONT}}}`;
}

/** The footer of every printed page: the document's own name ("Compliance report", the notice's title). */
export function pageFooterCss(document: string): string {
  return `@page{@bottom-left{content:${cssString(document)};${MARGIN_FONT}}}`;
}

/** A document's look: its stylesheet inline (the PDF's page, an e-mail's attachment) or linked. */
export type DocumentStyle = { href: string; nonce?: string } | { inline: true };

/**
 * The `<head>` tags of a notice's or order's look, with its own footer: inline, or linked with the
 * footer under the response's CSP nonce (without a nonce, the linked page prints with page numbers only).
 */
export function documentStyle(style: DocumentStyle, footer: string): string {
  if ('inline' in style) return `<style>${REPORT_CSS}\n${pageFooterCss(footer)}</style>`;
  const link = `<link rel="stylesheet" href="${escapeXml(style.href)}">`;
  return style.nonce === undefined
    ? link
    : `${link}<style nonce="${escapeXml(style.nonce)}">${pageFooterCss(footer)}</style>`;
}
