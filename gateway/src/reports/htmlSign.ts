/**
 * The end of the printed report: its evidence and how anyone checks it offline, and the certification
 * block. The block follows what the town's law asks of a certification (law 001: the name and title of
 * the person signing, the site, and the date it is made): each certification logged through the gateway
 * (`POST /api/reports/compliance/certify`) with its statement, name, title and date, and a line to sign;
 * a report not yet certified carries the same block with the statement and blank lines, to sign on paper.
 */
import type { ComplianceReport } from './compliance.ts';
import { escapeXml as esc } from './stormChart.ts';
import { ROLE_WORDS, wordFor } from './words.ts';

/** A time as the report prints it, in the site's zone (escaped); `—` for none. */
export type Time = (iso: string | null | undefined) => string;

/** The statement an unsigned report offers to whoever certifies it on paper. */
export const PAPER_STATEMENT =
  'I certify that I have examined this report, that it was made from the records the gateway logged for this site and period, and that to the best of my knowledge and belief it is true, accurate and complete.';

const line = (label: string, value = '') => `<tr><th>${esc(label)}</th><td class="line">${value}</td></tr>`;

export function certificationBlock(r: ComplianceReport, t: Time): string {
  const site = `${esc(r.site.name)}`;
  const certs = r.certifications.map(
    (c) => `<div class="cert">
<p class="statement">“${esc(c.statement)}”</p>
<table class="sign"><tbody>
${line('Name', esc(c.by))}
${line('Title', esc(wordFor(ROLE_WORDS, c.role)))}
${line('Site', site)}
${line('Date', t(c.at))}
${line('Signature')}
</tbody></table>
<p class="small">Certified through the gateway: log entry ${c.logIndex}, made against its first ${c.checkpoint.size} entries.</p>
</div>`,
  );
  const paper = `<div class="cert">
<p class="statement">“${esc(PAPER_STATEMENT)}”</p>
<table class="sign"><tbody>
${line('Name')}
${line('Title')}
${line('Site', site)}
${line('Date')}
${line('Signature')}
</tbody></table>
</div>`;
  return `<section class="certification"><h2>Certification</h2>${
    certs.length
      ? certs.join('\n')
      : `<p>Not yet certified through the gateway. The person certifying signs here.</p>${paper}`
  }</section>`;
}

export function evidenceSection(
  r: ComplianceReport,
  t: Time,
  links: { json: string; verify: string },
): string {
  const cp = r.evidence.checkpoint;
  const keyId = r.evidence.verifierKey.split('+')[1] ?? '';
  const long = r.evidence.longStorms.map(
    (l) =>
      `The storm that began ${t(r.storms.find((s) => s.id === l.stormId)?.start)} rests on ${l.readings.toLocaleString('en-US')} readings, too many to attach: this report cites its logged record and its first and last readings (log entries ${l.first} and ${l.last}), and the verifier checks the record rather than adding up the readings.`,
  );
  return `<h2>Evidence</h2>
<p>Every record this report cites is an entry of the gateway's evidence log, whose signed checkpoint is
below. The JSON form of this report carries each cited record with the proof that it is in the log.
Audit of the gateway's records against its log when this report was made: ${
    r.evidence.audit.ok ? 'they match.' : `<b>THEY DO NOT MATCH</b>: ${esc(r.evidence.audit.detail ?? '')}.`
  }</p>
<table class="facts"><tbody>
<tr><th>Checkpoint</th><td><code>${esc(cp.origin)}</code>, ${cp.size} entries</td></tr>
<tr><th>Fingerprint</th><td><code>${esc(cp.root)}</code></td></tr>
<tr><th>Signing key</th><td><code>${esc(r.evidence.verifierKey)}</code><br><small>key id ${esc(keyId)}: it must be the town's public key, obtained from the town, not from this page</small></td></tr>
<tr><th>Cited records</th><td>${r.evidence.entries.length}</td></tr>
</tbody></table>${long.length ? `<p>${long.join(' ')}</p>` : ''}
<p class="small">Signed checkpoint:</p><pre>${esc(cp.note)}</pre>
<p class="verify"><b>Verify this report offline:</b> download the verifier page from
<a href="${esc(links.verify)}">${esc(links.verify)}</a> (also shipped as <code>dist/verify.html</code>), open it,
drop this report's JSON file on it (<a class="url" href="${esc(links.json)}">this report as JSON</a>) and paste the
town's public key. A technician can check the same file with <code>npm run verify</code> in the gateway's source.</p>`;
}
