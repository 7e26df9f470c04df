/**
 * The site's history on record (the inspections and pump-out before the gateway, entity `history`), the
 * figures set looser than the law in the period (entity `override`: each figure, the law's figure, the
 * reason, who and when, including an override made earlier and still in effect when the period began),
 * and the changes to the site and its devices in the period, each a sentence with who made it and when in
 * the site's zone (`shared/src/changeWords.ts`, as the dashboard's Changes page writes them): three
 * tables on the page, in words; a `change` row each in the CSV, with the values before and after as JSON.
 */

import type { ChangeResponse } from '../../../../shared/src/admin.ts';
import { type ChangeNames, changeSentence } from '../../../../shared/src/changeWords.ts';
import { figureWords } from '../../../../shared/src/looser.ts';
import type { ComplianceReport } from '../report.ts';
import { escapeXml as esc } from '../stormChart.ts';
import { HISTORY_WORDS, wordFor } from '../words.ts';
import { listTable, type ReportSection } from './section.ts';

/** The report's one site and its devices, named as people know them, in the site's zone. */
function changeNames(r: ComplianceReport, deviceName: (id: string) => string): ChangeNames {
  return {
    siteName: (id) => (id === r.site.id ? r.site.name : undefined),
    deviceName: (_site, id) => (deviceName(id) === id ? undefined : deviceName(id)),
    siteZone: () => r.site.timezone,
    homeZone: r.site.timezone,
  };
}

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
    render(r, { t, deviceName }) {
      const names = changeNames(r, deviceName);
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
        ['Change', 'Log entry'],
        others.map((c) => {
          const { text, diffs } = changeSentence(c, names);
          const list = diffs.length
            ? `<ul class="diffs">${diffs.map((d) => `<li>${esc(d)}</li>`).join('')}</ul>`
            : '';
          return `<tr class="change"><td>${esc(text)}${list}</td><td class="n">${c.logIndex}</td></tr>`;
        }),
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
