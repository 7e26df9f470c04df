/**
 * Who generated the report and who certified the site's records for the period. The page's block
 * follows what the town's law asks of a certification (law 001: the name and title of the person
 * signing, the site, and the date it is made): each certification logged through the gateway
 * (`POST /api/reports/compliance/certify`) with its statement, name, title and date, and a line to sign;
 * a report not yet certified carries the same block with the statement and blank lines, to sign on paper.
 * The CSV's signature rows: `generated`, then a `certified` row each.
 */
import type { ComplianceReport } from '../report.ts';
import { escapeXml as esc } from '../stormChart.ts';
import { ROLE_WORDS, wordFor } from '../words.ts';
import type { ReportSection, Time } from './section.ts';

/** The statement an unsigned report offers to whoever certifies it on paper. */
export const PAPER_STATEMENT =
  'I certify that I have examined this report, that it was made from the records the gateway logged for this site and period, and that to the best of my knowledge and belief it is true, accurate and complete.';

const line = (label: string, value = '') => `<tr><th>${esc(label)}</th><td class="line">${value}</td></tr>`;

function certificationBlock(r: ComplianceReport, t: Time): string {
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

export const certifications: ReportSection<'certifications'> = {
  id: 'certifications',
  collect: (i) => ({ fields: { certifications: i.certifications } }),
  html: { region: 'front', render: (r, { t }) => certificationBlock(r, t) },
  csv: (r) => [
    ['generated', '', '', '', '', '', r.generatedAt, '', `by ${r.generatedBy}`],
    ...r.certifications.map((c) => [
      'certified',
      String(c.logIndex),
      c.role,
      '',
      c.period.from,
      c.period.to,
      c.at,
      'certified',
      `${c.by}: ${c.statement}`,
    ]),
  ],
};
