/**
 * The end of the printed report: its evidence (the signed checkpoint, the key, the records cited, the
 * storms cited by their first and last readings, the audit) and how anyone checks it offline.
 */
import { verifierKeyFingerprint } from '../ledger/checkpoint.ts';
import type { ComplianceReport } from './report.ts';
import type { Time } from './sections/section.ts';
import { escapeXml as esc } from './stormChart.ts';

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
<tr><th>Log root hash</th><td><code>${esc(cp.root)}</code></td></tr>
<tr><th>Signing key</th><td><code>${esc(r.evidence.verifierKey)}</code><br><small>key id ${esc(keyId)}: it must be the town's public key, obtained from the town, not from this page</small></td></tr>
<tr><th>Key fingerprint</th><td><code class="key-fingerprint">${esc(verifierKeyFingerprint(r.evidence.verifierKey))}</code><br><small>Compare this fingerprint with the one the town publishes: if they differ, the key is not the town's.</small></td></tr>
<tr><th>Cited records</th><td>${r.evidence.entries.length}</td></tr>
</tbody></table>${long.length ? `<p>${long.join(' ')}</p>` : ''}
<div class="keep"><p class="small">Signed checkpoint:</p><pre>${esc(cp.note)}</pre></div>
<p class="verify"><b>Verify this report offline:</b> download the verifier page from
<a href="${esc(links.verify)}">${esc(links.verify)}</a> (also shipped as <code>dist/verify.html</code>), open it,
drop this report's JSON file on it (<a class="url" href="${esc(links.json)}">this report as JSON</a>) and paste the
town's public key. A technician can check the same file with <code>npm run verify</code> in the gateway's source.</p>`;
}
