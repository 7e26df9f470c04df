/**
 * The compliance report of one site over a period, built from the logged data: storms and their
 * inspections, routine inspections, cleanouts, alarms and remedies, extensions and gaps, each on time,
 * late, missing or still open; with the heads of the evidence chains so the period can be verified.
 * Which list a rule's alerts go in, and whether they count as duties, is the rule module's
 * (`RuleModule.report`).
 */
import type { AlertDto, ChainCheck, ExtensionDto, InspectionDto, StormDto } from '../alerts/dto.ts';
import type { SiteConfig } from '../config/schema.ts';
import { type RuleId, reportOf, stormRuleId } from '../rules/index.ts';
import type { ReportSection } from '../rules/module.ts';
import { csvText } from './csv.ts';

export type DutyStatus = 'on-time' | 'late' | 'missing' | 'overdue' | 'open' | 'resolved';

export interface DutyRow {
  alertId: string;
  rule: RuleId;
  deviceId: string | null;
  began: string;
  dueAt: string | null;
  originalDueAt: string | null;
  resolvedAt: string | null;
  resolvedBy: string | null;
  status: DutyStatus;
  message: string;
}

export interface ComplianceReport {
  site: { id: string; name: string; kind: string; timezone: string };
  period: { from: string; to: string };
  generatedAt: string;
  summary: Record<string, number>;
  storms: Array<StormDto>;
  inspections: InspectionDto[];
  routine: DutyRow[];
  cleanouts: DutyRow[];
  remedies: DutyRow[];
  other: DutyRow[];
  gaps: DutyRow[];
  extensions: ExtensionDto[];
  evidence: {
    chains: ChainCheck[];
    readings: { ok: boolean; checked: number; brokenAt?: number };
    heads: unknown;
  };
}

export interface ReportInputs {
  site: SiteConfig;
  timezone: string;
  from: number;
  to: number;
  now: number;
  alerts: AlertDto[];
  storms: StormDto[];
  inspections: InspectionDto[];
  extensions: ExtensionDto[];
  chains: ChainCheck[];
  readingsChain: { ok: boolean; checked: number; brokenAt?: number };
  heads: unknown;
}

/** On time, late, missing (a storm or routine inspection never done), overdue, open, or resolved (no deadline). */
export function dutyStatus(a: AlertDto, now: number): DutyStatus {
  if (a.status === 'resolved') {
    if (a.dueAt === null) return 'resolved';
    return a.withinDeadline === false ? 'late' : 'on-time';
  }
  if (a.dueAt !== null && now > Date.parse(a.dueAt)) return reportOf(a.rule).pastDue;
  return 'open';
}

function row(a: AlertDto, now: number): DutyRow {
  return {
    alertId: a.id,
    rule: a.rule,
    deviceId: a.deviceId ?? null,
    began: a.raisedAt,
    dueAt: a.dueAt,
    originalDueAt: a.originalDueAt ?? null,
    resolvedAt: a.resolvedAt ?? null,
    resolvedBy: a.resolution?.by ?? null,
    status: dutyStatus(a, now),
    message: a.message,
  };
}

export function buildComplianceReport(i: ReportInputs): ComplianceReport {
  const rows = i.alerts.map((a) => row(a, i.now));
  const section = (s: ReportSection) => rows.filter((r) => reportOf(r.rule).section === s);
  const gaps = section('gaps');
  const count = (rs: DutyRow[], s: DutyStatus) => rs.filter((r) => r.status === s).length;
  const qualified = i.storms.filter((s) => s.qualified);
  const stormStatus = (s: string) => qualified.filter((x) => x.inspection.status === s).length;
  const duties = rows.filter((r) => reportOf(r.rule).duty);
  return {
    site: { id: i.site.id, name: i.site.name ?? i.site.id, kind: i.site.kind, timezone: i.timezone },
    period: { from: new Date(i.from).toISOString(), to: new Date(i.to).toISOString() },
    generatedAt: new Date(i.now).toISOString(),
    summary: {
      storms: i.storms.length,
      qualifyingStorms: qualified.length,
      stormInspectionsOnTime: stormStatus('on-time'),
      stormInspectionsLate: stormStatus('late'),
      stormInspectionsMissing: stormStatus('missing'),
      stormInspectionsPending: stormStatus('pending'),
      inspections: i.inspections.length,
      dutiesOnTime: count(duties, 'on-time'),
      dutiesLate: count(duties, 'late'),
      dutiesMissing: count(duties, 'missing'),
      dutiesOverdue: count(duties, 'overdue'),
      dutiesOpen: count(duties, 'open'),
      extensions: i.extensions.length,
      gaps: gaps.length,
    },
    storms: i.storms,
    inspections: i.inspections,
    routine: section('routine'),
    cleanouts: section('cleanouts'),
    remedies: section('remedies'),
    other: section('other'),
    gaps,
    extensions: i.extensions,
    evidence: { chains: i.chains, readings: i.readingsChain, heads: i.heads },
  };
}

/**
 * One row per item, with the section it belongs to. Cells that could be read as formulas are neutralised
 * (`csv.ts`).
 */
export function reportToCsv(r: ComplianceReport): string {
  const out = [['section', 'id', 'rule', 'device', 'began', 'due', 'done', 'status', 'detail']];
  for (const s of r.storms)
    out.push([
      'storm',
      s.id,
      stormRuleId() ?? '',
      s.deviceId,
      s.start,
      s.dueAt ?? '',
      s.inspection.inspectedAt ?? '',
      s.qualified ? s.inspection.status : 'not-required',
      `${s.inches.toFixed(3)} in (${s.tips} tips), ended ${s.end}`,
    ]);
  for (const [section, rows] of [
    ['routine', r.routine],
    ['cleanout', r.cleanouts],
    ['remedy', r.remedies],
    ['gap', r.gaps],
    ['other', r.other],
  ] as const)
    for (const d of rows)
      out.push([
        section,
        d.alertId,
        d.rule,
        d.deviceId ?? '',
        d.began,
        d.dueAt ?? '',
        d.resolvedAt ?? '',
        d.status,
        d.message,
      ]);
  for (const x of r.inspections)
    out.push([
      'inspection',
      x.id,
      x.kind,
      '',
      x.at,
      '',
      x.recordedAt,
      'recorded',
      `${x.inspector}: ${x.notes}`,
    ]);
  for (const e of r.extensions)
    out.push([
      'extension',
      e.alertId,
      e.rule,
      '',
      e.oldDueAt,
      e.newDueAt,
      e.at,
      'extended',
      `${e.engineer}, letter ${e.letterRef}`,
    ]);
  return csvText(out);
}

const esc = (s: unknown) =>
  String(s ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** A printable page; times in the site's time zone with UTC beside them. */
export function reportToHtml(r: ComplianceReport): string {
  const fmt = new Intl.DateTimeFormat('en-US', {
    timeZone: r.site.timezone,
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
  });
  const t = (iso: string | null | undefined) => (iso ? `${esc(fmt.format(new Date(iso)))}` : '—');
  const badge = (s: string) => `<span class="st st-${esc(s)}">${esc(s)}</span>`;
  const dutyTable = (title: string, rows: DutyRow[]) =>
    `<h2>${esc(title)}</h2>${
      rows.length
        ? `<table><tr><th>Rule</th><th>Device</th><th>Began</th><th>Due</th><th>Done</th><th>Status</th><th>Detail</th></tr>${rows
            .map(
              (d) =>
                `<tr><td>${esc(d.rule)}</td><td>${esc(d.deviceId ?? '')}</td><td>${t(d.began)}</td><td>${t(d.dueAt)}${
                  d.originalDueAt && d.originalDueAt !== d.dueAt
                    ? `<br><small>originally ${t(d.originalDueAt)}</small>`
                    : ''
                }</td><td>${t(d.resolvedAt)}</td><td>${badge(d.status)}</td><td>${esc(d.message)}</td></tr>`,
            )
            .join('')}</table>`
        : '<p class="none">None in this period.</p>'
    }`;
  const s = r.summary;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Compliance report: ${esc(r.site.name)}</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;width:100%;margin:.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:4px 6px;text-align:left;vertical-align:top}th{background:#f3f3f3}
.st{padding:1px 6px;border-radius:3px;font-weight:600}.st-on-time,.st-resolved{background:#d8f3dc}.st-late,.st-overdue,.st-missing{background:#ffd6d6}
.st-open,.st-pending{background:#fff3c4}.st-not-required{background:#eee}.none{color:#777}code{font-size:12px;word-break:break-all}</style></head><body>
<h1>Compliance report: ${esc(r.site.name)}</h1>
<p>Site <b>${esc(r.site.id)}</b> (${esc(r.site.kind)}), period ${t(r.period.from)} to ${t(r.period.to)}; generated ${t(r.generatedAt)}.
Times are in ${esc(r.site.timezone)}.</p>
<h2>Summary</h2><table>${Object.entries(s)
    .map(([k, v]) => `<tr><th>${esc(k)}</th><td>${v}</td></tr>`)
    .join('')}</table>
<h2>Storm events and their inspections</h2>${
    r.storms.length
      ? `<table><tr><th>Gauge</th><th>Start</th><th>End</th><th>Total</th><th>Qualified</th><th>Inspection due</th><th>Inspected</th><th>Status</th></tr>${r.storms
          .map(
            (x) =>
              `<tr><td>${esc(x.deviceId)}</td><td>${t(x.start)}</td><td>${t(x.end)}</td><td>${x.inches.toFixed(2)} in (${x.tips} tips)</td><td>${
                x.qualified ? `yes, at ${t(x.thresholdAt)}` : 'no'
              }</td><td>${t(x.dueAt)}</td><td>${t(x.inspection.inspectedAt)}</td><td>${badge(x.qualified ? x.inspection.status : 'not-required')}</td></tr>`,
          )
          .join('')}</table>`
      : '<p class="none">No rain recorded in this period.</p>'
  }
${dutyTable('Routine inspections (every 7 days)', r.routine)}
${dutyTable('Sediment cleanouts', r.cleanouts)}
${dutyTable('Alarms, remedies, pumping and annual inspections', r.remedies)}
${dutyTable('Other alerts', r.other)}
${dutyTable('Gaps in the evidence (silent devices: no evidence, not "nothing happened")', r.gaps)}
<h2>Inspections recorded</h2>${
    r.inspections.length
      ? `<table><tr><th>When</th><th>Kind</th><th>Inspector</th><th>Notes</th><th>Recorded</th></tr>${r.inspections
          .map(
            (x) =>
              `<tr><td>${t(x.at)}</td><td>${esc(x.kind)}</td><td>${esc(x.inspector)}</td><td>${esc(x.notes)}</td><td>${t(x.recordedAt)} by ${esc(x.recordedBy)}</td></tr>`,
          )
          .join('')}</table>`
      : '<p class="none">None in this period.</p>'
  }
<h2>Extensions (engineer's letters)</h2>${
    r.extensions.length
      ? `<table><tr><th>Alert</th><th>Rule</th><th>Old due</th><th>New due</th><th>Engineer</th><th>Letter</th><th>Recorded</th></tr>${r.extensions
          .map(
            (e) =>
              `<tr><td>${esc(e.alertId)}</td><td>${esc(e.rule)}</td><td>${t(e.oldDueAt)}</td><td>${t(e.newDueAt)}</td><td>${esc(e.engineer)}</td><td>${esc(e.letterRef)}</td><td>${t(e.at)} by ${esc(e.by)}</td></tr>`,
          )
          .join('')}</table>`
      : '<p class="none">None in this period.</p>'
  }
<h2>Evidence</h2><p>Every record above is append-only and chained by hash. Chain verification at the time of this report:</p>
<table><tr><th>Chain</th><th>Verified</th><th>Records</th><th>Head</th></tr>${r.evidence.chains
    .map(
      (c) =>
        `<tr><td>${esc(c.table)}</td><td>${c.ok ? 'yes' : `<b>NO</b> (broken at ${c.broken?.seq})`}</td><td>${c.checked}</td><td><code>${esc(c.head?.hash ?? '')}</code></td></tr>`,
    )
    .join(
      '',
    )}<tr><td>readings</td><td>${r.evidence.readings.ok ? 'yes' : `<b>NO</b> (broken at ${r.evidence.readings.brokenAt})`}</td><td>${r.evidence.readings.checked}</td><td></td></tr></table>
</body></html>`;
}
