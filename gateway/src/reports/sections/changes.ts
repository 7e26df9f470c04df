/**
 * The site's history on record (the inspections and pump-out before the gateway, entity `history`), the
 * figures set looser than the law in the period (entity `override`: each figure, the law's figure, the
 * reason, who and when, including an override made earlier and still in effect when the period began),
 * and the changes to the site and its devices in the period: three tables on the page, in words; a
 * `change` row each in the CSV, with the values before and after as JSON.
 */

import type { ChangeResponse } from '../../../../shared/src/admin.ts';
import { figureWords } from '../../../../shared/src/looser.ts';
import { escapeXml as esc } from '../stormChart.ts';
import { HISTORY_WORDS, keyWords, valueWords, wordFor } from '../words.ts';
import { listTable, type ReportSection } from './section.ts';

/**
 * Whether a change record is an override made before the period (`from`) and still in effect when it
 * began: the last record of its figure before then sets it.
 */
export function overrideInEffect(c: ChangeResponse, all: readonly ChangeResponse[], from: number): boolean {
  if (c.entity !== 'override' || c.action !== 'set' || Date.parse(c.effectiveAt) >= from) return false;
  const last = all
    .filter((x) => x.entity === 'override' && x.ref === c.ref && Date.parse(x.effectiveAt) < from)
    .reduce<ChangeResponse | undefined>(
      (a, x) => (a === undefined || x.logIndex > a.logIndex ? x : a),
      undefined,
    );
  return last?.id === c.id;
}

/** An override's record as the change keeps it (`admin/overrides.ts`). */
interface OverrideRecord {
  figure?: string;
  value?: unknown;
  law?: unknown;
  unit?: string;
  reason?: string;
}
const overrideOf = (v: unknown): OverrideRecord =>
  v !== null && typeof v === 'object' ? (v as OverrideRecord) : {};

/** A figure's value in words ("0.75 in", "September 15"). */
const figureText = (o: OverrideRecord, v: unknown): string =>
  v === undefined || v === null ? '—' : figureWords({ unit: o.unit ?? '' }, v);

export const changes: ReportSection<'changes'> = {
  id: 'changes',
  collect: (i) => ({ fields: { changes: i.changes } }),
  html: {
    region: 'duties',
    render(r, { t, device }) {
      const history = r.changes.filter((c) => c.entity === 'history');
      const overrides = r.changes.filter((c) => c.entity === 'override');
      const others = r.changes.filter((c) => c.entity !== 'history' && c.entity !== 'override');
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
        'Figures set looser than the law',
        ['Figure', 'Set to', "The law's figure", 'Reason', 'By, when'],
        overrides.map((c) => {
          const o = overrideOf(c.new);
          const withdrawn = c.action === 'withdraw';
          const reason = withdrawn
            ? `Back within the law (the override "${overrideOf(c.old).reason ?? ''}" ended)`
            : (o.reason ?? '—');
          return `<tr class="override"><td>${esc(o.figure ?? c.ref ?? '')}</td><td>${esc(figureText(o, o.value))}</td><td>${esc(figureText(o, o.law))}</td><td>${esc(reason)}</td><td>${recorded(c)}</td></tr>`;
        }),
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
