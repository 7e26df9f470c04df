/**
 * The compliance report as a printable page: times in the site's time zone, the summary with readable
 * labels, a signature block (who generated it, who certified it and when), and the evidence: the
 * checkpoint's fingerprint and how anyone can verify the report.
 */
import { formatDay, formatLong } from '../../../shared/src/time.ts';
import { type ComplianceReport, type DutyRow, SUMMARY_LABELS, type SummaryKey } from './compliance.ts';

const esc = (s: unknown) =>
  String(s ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;width:100%;margin:.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:4px 6px;text-align:left;vertical-align:top}th{background:#f3f3f3}
.st{padding:1px 6px;border-radius:3px;font-weight:600}.st-on-time,.st-resolved{background:#d8f3dc}.st-late,.st-overdue,.st-missing{background:#ffd6d6}
.st-open,.st-pending{background:#fff3c4}.st-not-required{background:#eee}.none{color:#777}code{font-size:12px;word-break:break-all}
.warn{border:2px solid #b00020;background:#ffe8e8;padding:.6em .8em;font-size:15px}.sig td{height:2.5em}pre{white-space:pre-wrap;font-size:12px;background:#f7f7f7;padding:.5em}
@media print{body{margin:1cm;font-size:11pt}h2{break-after:avoid}table,tr{break-inside:avoid}th{background:#eee!important;-webkit-print-color-adjust:exact;print-color-adjust:exact}.st{-webkit-print-color-adjust:exact;print-color-adjust:exact}}`;

export function reportToHtml(r: ComplianceReport): string {
  const day = formatDay;
  const t = (iso: string | null | undefined) =>
    iso ? `${esc(formatLong(Date.parse(iso), r.site.timezone))}` : '—';
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
  const cp = r.evidence.checkpoint;
  const keyId = r.evidence.verifierKey.split('+')[1] ?? '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Compliance report: ${esc(r.site.name)}</title>
<style>${STYLE}</style></head><body>
<h1>Compliance report: ${esc(r.site.name)}</h1>
${r.warnings.map((w) => `<p class="warn" role="alert"><b>Warning:</b> ${esc(w)}</p>`).join('\n')}
<p>Site <b>${esc(r.site.id)}</b> (${esc(r.site.kind)}), <b>${esc(day(r.period.firstDay))} to ${esc(day(r.period.lastDay))}</b>
(whole days in ${esc(r.site.timezone)}); generated ${t(r.generatedAt)} by ${esc(r.generatedBy)}.</p>
<h2>Summary</h2><table>${(Object.keys(SUMMARY_LABELS) as SummaryKey[])
    .map((k) => `<tr><th>${esc(SUMMARY_LABELS[k])}</th><td>${r.summary[k]}</td></tr>`)
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
<h2>Changes to the site and its devices</h2>${
    r.changes.length
      ? `<table><tr><th>Effective</th><th>What</th><th>Old</th><th>New</th><th>By</th></tr>${r.changes
          .map(
            (c) =>
              `<tr><td>${t(c.effectiveAt)}</td><td>${esc(c.entity)} ${esc(c.action)}${c.deviceId ? ` ${esc(c.deviceId)}` : ''}</td><td><code>${esc(JSON.stringify(c.old))}</code></td><td><code>${esc(JSON.stringify(c.new))}</code></td><td>${esc(c.by)}, ${t(c.at)} <small>(log entry ${c.logIndex})</small></td></tr>`,
          )
          .join('')}</table>`
      : '<p class="none">None in this period.</p>'
  }
<h2>Signatures</h2><table class="sig"><tr><th>Generated</th><td>${t(r.generatedAt)} by ${esc(r.generatedBy)}</td></tr>${
    r.certifications.length
      ? r.certifications
          .map(
            (c) =>
              `<tr><th>Certified (${esc(c.role)})</th><td>${esc(c.by)}, ${t(c.at)}: “${esc(c.statement)}” <small>(log entry ${c.logIndex}, against ${c.checkpoint.size} entries)</small></td></tr>`,
          )
          .join('')
      : '<tr><th>Certified</th><td class="none">Not yet certified.</td></tr>'
  }</table>
<h2>Evidence</h2>
<p>Every record this report cites is an entry of the gateway's evidence log, a Merkle tree (RFC 9162) whose
signed checkpoint is below. The JSON form of this report carries each cited record with its inclusion proof.
Audit of the store against its log: ${r.evidence.audit.ok ? 'it matches' : `<b>IT DOES NOT MATCH</b>: ${esc(r.evidence.audit.detail ?? '')}`}.</p>
<table><tr><th>Checkpoint</th><td><code>${esc(cp.origin)}</code>, ${cp.size} entries</td></tr>
<tr><th>Fingerprint (tree head)</th><td><code>${esc(cp.root)}</code></td></tr>
<tr><th>Signing key</th><td><code>${esc(r.evidence.verifierKey)}</code> (key id ${esc(keyId)})</td></tr>
<tr><th>Cited records</th><td>${r.evidence.entries.length}</td></tr></table>${
    r.evidence.longStorms.length
      ? `<p>${r.evidence.longStorms
          .map(
            (l) =>
              `The storm that began ${t(r.storms.find((s) => s.id === l.stormId)?.start)} rests on ${l.readings.toLocaleString('en-US')} readings, too many to attach: this report cites its logged record and its first and last readings (log entries ${l.first} and ${l.last}), and the verifier checks the record rather than adding up the readings.`,
          )
          .join(' ')}</p>`
      : ''
  }
<pre>${esc(cp.note)}</pre>
<p><b>How to verify:</b> download the JSON form of this report (the same URL with <code>format=json</code>) and run
<code>npm run verify -- report.json --key KEY</code> in the gateway's source, where KEY is the signing key above
(or a file holding it), obtained from the town, not from this page. Add <code>--api URL</code> or
<code>--checkpoint FILE</code> (a later checkpoint, from a witness or the officer's digest) to also check that
the log has not been rewritten since.</p>
</body></html>`;
}
