/**
 * The compliance report as a document a town accepts: the site and period at the top (and on every
 * printed page), the summary and the certification block (`htmlSign.ts`) on the first page, each storm
 * with its rain chart (`stormChart.ts`), every duty under its rule's name (the rule modules' words), the
 * inspections, extensions, the site's history on record and its changes, the notices of violation and
 * stop-work orders (`enforcementHtml.ts`, and the header's line while an order is in effect), and the
 * evidence and how to verify it offline. Times are in the site's time zone.
 *
 * Its look is the served stylesheet (`style.ts`, GET /report.css) plus the page's own running header,
 * allowed by the response's CSP nonce; the page Chromium prints to PDF carries both inline instead.
 * No `style` attribute anywhere: the gateway's Content-Security-Policy would block it.
 */
import { formatDay, formatLong } from '../../../shared/src/time.ts';
import { ruleLabel } from '../rules/index.ts';
import { type ComplianceReport, type DutyRow, SUMMARY_LABELS, type SummaryKey } from './compliance.ts';
import { enforcementCountsSentence, enforcementHtml, stopWorkHeaderLine } from './enforcementHtml.ts';
import { certificationBlock, evidenceSection, type Time } from './htmlSign.ts';
import { escapeXml as esc } from './stormChart.ts';
import { pageHeaderCss, REPORT_CSS } from './style.ts';
import {
  HISTORY_WORDS,
  INSPECTION_KIND_WORDS,
  keyWords,
  SITE_KIND_WORDS,
  STATUS_WORDS,
  valueWords,
  wordFor,
} from './words.ts';

export interface HtmlOptions {
  /** The served stylesheet's URL and the nonce the response's CSP allows, or everything inline (PDF). */
  style: { href: string; nonce: string } | { inline: true };
  /** Each storm's chart (SVG), by storm id. */
  charts: ReadonlyMap<string, string>;
  /** Storms in the table whose chart was left out (too many to draw). */
  chartsLeftOut: number;
  /** A device as people know it: its name, else its id. */
  deviceName(id: string): string;
  /** This report as JSON, and the verifier page: absolute URLs (they stay usable on paper and in a PDF). */
  links: { json: string; verify: string };
}

const DEFAULTS: HtmlOptions = {
  style: { inline: true },
  charts: new Map(),
  chartsLeftOut: 0,
  deviceName: (id) => id,
  links: { json: '?format=json', verify: '/verify.html' },
};

/** The period in words: "November 1, 2026 to November 30, 2026". */
export const periodWords = (r: ComplianceReport): string =>
  `${formatDay(r.period.firstDay)} to ${formatDay(r.period.lastDay)}`;

/** The summary's counts in two columns (storms and inspections, then duties), a label and its number each. */
function summaryRows(r: ComplianceReport): string {
  const keys = Object.keys(SUMMARY_LABELS) as SummaryKey[];
  const half = Math.ceil(keys.length / 2);
  const cell = (k: SummaryKey | undefined) =>
    k ? `<th>${esc(SUMMARY_LABELS[k])}</th><td class="n">${r.summary[k]}</td>` : '<th></th><td></td>';
  return keys
    .slice(0, half)
    .map((k, i) => `<tr>${cell(k)}${cell(keys[half + i])}</tr>`)
    .join('');
}

export function reportToHtml(r: ComplianceReport, options: Partial<HtmlOptions> = {}): string {
  const o = { ...DEFAULTS, ...options };
  const t: Time = (iso) => (iso ? esc(formatLong(Date.parse(iso), r.site.timezone)) : '—');
  const badge = (s: string) => `<span class="st st-${esc(s)}">${esc(wordFor(STATUS_WORDS, s))}</span>`;
  const device = (id: string | null | undefined) => (id ? esc(o.deviceName(id)) : '—');
  // The site's history on record (the inspections and pump-out before the gateway) apart from its changes.
  const history = r.changes.filter((c) => c.entity === 'history');
  const changes = r.changes.filter((c) => c.entity !== 'history');
  const none = (what: string) => `<p class="none">${esc(what)}</p>`;
  const table = (head: string[], rows: string[]) =>
    `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
  const dutyTable = (title: string, rows: DutyRow[]) =>
    `<h3>${esc(title)}</h3>${
      rows.length
        ? table(
            ['Duty', 'Device', 'Began', 'Due', 'Done', 'Status', 'Detail'],
            rows.map(
              (d) =>
                `<tr><td>${esc(ruleLabel(d.rule))}</td><td>${device(d.deviceId)}</td><td>${t(d.began)}</td><td>${t(d.dueAt)}${
                  d.originalDueAt && d.originalDueAt !== d.dueAt
                    ? `<br><small>originally ${t(d.originalDueAt)}</small>`
                    : ''
                }</td><td>${t(d.resolvedAt)}${d.resolvedBy ? `<br><small>by ${esc(d.resolvedBy)}</small>` : ''}</td><td>${badge(d.status)}</td><td>${esc(d.message)}</td></tr>`,
            ),
          )
        : none('None in this period.')
    }`;
  const generatedBy = r.generatedBy;
  const site = r.site.name === r.site.id ? r.site.name : `${r.site.name} (${r.site.id})`;
  const style =
    'inline' in o.style
      ? `<style>${REPORT_CSS}\n${pageHeaderCss(site, periodWords(r))}</style>`
      : `<link rel="stylesheet" href="${esc(o.style.href)}"><style nonce="${esc(o.style.nonce)}">${pageHeaderCss(site, periodWords(r))}</style>`;
  const storms = r.storms;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">
<title>Compliance report: ${esc(r.site.name)}, ${esc(periodWords(r))}</title>
${style}</head><body>
<header class="report-head"><h1>Compliance report</h1><p class="site">${esc(site)}: ${esc(wordFor(SITE_KIND_WORDS, r.site.kind))}</p>${stopWorkHeaderLine(r, t)}</header>
${r.warnings.map((w) => `<p class="warn" role="alert"><b>Warning:</b> ${esc(w)}</p>`).join('\n')}
<table class="facts"><tbody>
<tr><th>Period</th><td>${esc(periodWords(r))}<br><small>Whole days in the site's time zone (${esc(r.site.timezone)})</small></td></tr>
<tr><th>Generated</th><td>${t(r.generatedAt)}</td></tr>
<tr><th>Generated by</th><td>${esc(generatedBy)}</td></tr>
<tr><th>This report as data</th><td><a class="url" href="${esc(o.links.json)}">JSON, with its evidence</a></td></tr>
</tbody></table>
<h2>Summary</h2><table class="summary"><tbody>${summaryRows(r)}</tbody></table>
<p class="enforcement-counts">Enforcement: ${esc(enforcementCountsSentence(r.summary))}</p>
${certificationBlock(r, t)}
<section class="storms"><h2>Storm events and their inspections</h2>${
    storms.length
      ? table(
          [
            'Rain gauge',
            'Start',
            'End',
            'Total',
            'Reached the threshold',
            'Inspection due',
            'Inspected',
            'Status',
          ],
          storms.map(
            (x) =>
              `<tr><td>${device(x.deviceId)}</td><td>${t(x.start)}</td><td>${t(x.end)}</td><td>${x.inches.toFixed(2)} in<br><small>${x.tips} tips</small></td><td>${
                x.qualified ? `Yes, at ${t(x.thresholdAt)}` : 'No'
              }</td><td>${t(x.dueAt)}</td><td>${t(x.inspection.inspectedAt)}</td><td>${badge(x.qualified ? x.inspection.status : 'not-required')}</td></tr>`,
          ),
        ) +
        storms
          .filter((x) => o.charts.has(x.id))
          .map(
            (x) =>
              `<figure class="storm"><figcaption>Storm at ${device(x.deviceId)}, ${t(x.start)} to ${t(x.end)}: ${x.inches.toFixed(2)} in</figcaption>${o.charts.get(x.id)}</figure>`,
          )
          .join('') +
        (
          o.chartsLeftOut
            ? `<p class="none">${o.chartsLeftOut} more storm(s) are listed in the table above without a chart: a report draws at most ${o.charts.size} charts, those that reached the threshold first.</p>`
            : ''
        )
      : none('No rain recorded in this period.')
  }</section>
<section class="duties page"><h2>Duties</h2>
${dutyTable('Routine inspections (every 7 days)', r.routine)}
${dutyTable('Sediment cleanouts', r.cleanouts)}
${dutyTable('Alarms, remedies, pumping and annual inspections', r.remedies)}
${dutyTable('Other alerts', r.other)}
${dutyTable('Gaps in the evidence (silent devices: no evidence, not "nothing happened")', r.gaps)}
<h2>Inspections recorded</h2>${
    r.inspections.length
      ? table(
          ['When', 'Kind', 'Inspector', 'Notes', 'Recorded'],
          r.inspections.map(
            (x) =>
              `<tr><td>${t(x.at)}</td><td>${esc(wordFor(INSPECTION_KIND_WORDS, x.kind))}</td><td>${esc(x.inspector)}</td><td>${esc(x.notes)}</td><td>${t(x.recordedAt)}<br><small>by ${esc(x.recordedBy)}</small></td></tr>`,
          ),
        )
      : none('None in this period.')
  }
<h2>Milestone notices (48 hours before)</h2>${
    r.notices.length
      ? table(
          ['Milestone', 'Milestone time', 'Filed', 'Standing'],
          r.notices.map(
            (n) =>
              `<tr><td>${esc(n.label)}</td><td>${t(n.at)}</td><td>${t(n.filedAt)}<br><small>by ${esc(n.filedBy)}</small></td><td>${esc(n.standing)}</td></tr>`,
          ),
        )
      : none('None in this period.')
  }
<h2>Extensions (engineer's letters)</h2>${
    r.extensions.length
      ? table(
          ['Duty', 'Due before', 'Due after', 'Engineer', 'Letter', 'Recorded'],
          r.extensions.map(
            (e) =>
              `<tr><td>${esc(ruleLabel(e.rule))}</td><td>${t(e.oldDueAt)}</td><td>${t(e.newDueAt)}</td><td>${esc(e.engineer)}</td><td>${esc(e.letterRef)}</td><td>${t(e.at)}<br><small>by ${esc(e.by)}</small></td></tr>`,
          ),
        )
      : none('None in this period.')
  }
<h2>The site's history on record</h2>${
    history.length
      ? table(
          ['What', 'When', 'Before', 'Recorded'],
          history.map(
            (c) =>
              `<tr><td>${esc(wordFor(HISTORY_WORDS, c.action))}</td><td>${t(c.effectiveAt)}</td><td>${typeof c.old === 'string' ? t(c.old) : '—'}</td><td>${esc(c.by)}, ${t(c.at)}<br><small>log entry ${c.logIndex}</small></td></tr>`,
          ),
        )
      : none('None in this period.')
  }
<h2>Changes to the site and its devices</h2>${
    changes.length
      ? table(
          ['Effective', 'What', 'Before', 'After', 'By'],
          changes.map(
            (c) =>
              `<tr><td>${t(c.effectiveAt)}</td><td>${esc(keyWords(c.entity))} ${esc(keyWords(c.action))}${c.deviceId ? `: ${device(c.deviceId)}` : ''}</td><td>${esc(valueWords(c.old))}</td><td>${esc(valueWords(c.new))}</td><td>${esc(c.by)}, ${t(c.at)}<br><small>log entry ${c.logIndex}</small></td></tr>`,
          ),
        )
      : none('None in this period.')
  }</section>
<section class="enforcement page">${enforcementHtml(r, t)}</section>
<section class="evidence page">${evidenceSection(r, t, o.links)}</section>
</body></html>`;
}
