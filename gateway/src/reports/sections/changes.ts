/**
 * The site's history on record (the inspections and pump-out before the gateway, entity `history`) and
 * the changes to the site and its devices in the period: two tables on the page, in words; a `change`
 * row each in the CSV, with the values before and after as JSON.
 */

import type { ChangeResponse } from '../../../../shared/src/admin.ts';
import { escapeXml as esc } from '../stormChart.ts';
import { HISTORY_WORDS, keyWords, valueWords, wordFor } from '../words.ts';
import { listTable, type ReportSection } from './section.ts';

export const changes: ReportSection<'changes'> = {
  id: 'changes',
  collect: (i) => ({ fields: { changes: i.changes } }),
  html: {
    region: 'duties',
    render(r, { t, device }) {
      const history = r.changes.filter((c) => c.entity === 'history');
      const others = r.changes.filter((c) => c.entity !== 'history');
      const recorded = (c: ChangeResponse) =>
        `${esc(c.by)}, ${t(c.at)}<br><small>log entry ${c.logIndex}</small>`;
      return `${listTable(
        "The site's history on record",
        ['What', 'When', 'Before', 'Recorded'],
        history.map(
          (c) =>
            `<tr><td>${esc(wordFor(HISTORY_WORDS, c.action))}</td><td>${t(c.effectiveAt)}</td><td>${typeof c.old === 'string' ? t(c.old) : '—'}</td><td>${recorded(c)}</td></tr>`,
        ),
      )}\n${listTable(
        'Changes to the site and its devices',
        ['Effective', 'What', 'Before', 'After', 'By'],
        others.map(
          (c) =>
            `<tr><td>${t(c.effectiveAt)}</td><td>${esc(keyWords(c.entity))} ${esc(keyWords(c.action))}${c.deviceId ? `: ${device(c.deviceId)}` : ''}</td><td>${esc(valueWords(c.old))}</td><td>${esc(valueWords(c.new))}</td><td>${recorded(c)}</td></tr>`,
        ),
      )}`;
    },
  },
  csv: (r) =>
    r.changes.map((c) => [
      'change',
      String(c.logIndex),
      c.entity,
      c.deviceId ?? '',
      '',
      '',
      c.effectiveAt,
      c.action,
      `${c.by}: ${JSON.stringify(c.old)} -> ${JSON.stringify(c.new)}`,
    ]),
};
