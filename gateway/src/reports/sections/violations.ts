/**
 * The notices of violation (town law 001, Enforcement; town law 000, Sections 5.100 B, 5.010 for
 * wastewater systems) in force during the period: issued before its end
 * and not approved before its start, each as it stood at the period's end (its steps up to then: appeal,
 * corrections, the officer's approval, on time or late) with its standing in words. On the page each
 * notice by its number on the site, with its law, its services, its schedule, the appeal window in the
 * site's local days (or "not yet served"), the inspection it follows,
 * every step after it and its standing, cited by its evidence-log entry as the other sections cite
 * theirs; photos of a correction named by the start of their SHA-256 (the JSON carries them whole). In
 * the CSV a `violation` row per notice (its last step in the rule column; served, remedy due, approved;
 * on time, late, overdue or open) and a `violation-step` row per step, with the photos' SHA-256 in full.
 */
import {
  ENFORCEMENT_LAWS,
  lawOf,
  lawOfNotice,
  orderKindOf,
} from '../../../../shared/src/api/enforcementLaws.ts';
import { isClosed, statusOfSteps } from '../../../../shared/src/api/enforcementWords.ts';
import {
  appealWindowWords,
  hearingWords,
  STEP_KIND_WORDS,
  serviceWords,
  stepDetailWords,
} from '../../../../shared/src/api/serviceWords.ts';
import type { ViolationDto } from '../../../../shared/src/api/violations.ts';
import { formatLong } from '../../../../shared/src/time.ts';
import type { ComplianceReport, ReportViolation } from '../report.ts';
import { escapeXml as esc } from '../stormChart.ts';
import { INSPECTION_KIND_WORDS, wordFor } from '../words.ts';
import { type ReportSection, type Time, table } from './section.ts';

const ms = Date.parse;
/** How many hex digits of a photo's SHA-256 the page shows. */
const SHORT_HASH = 12;

export const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
/** A record's log entry as the page cites it. */
export const entry = (i: number | undefined): string =>
  i === undefined ? 'not yet logged' : `log entry ${i}`;
/** A record's number on the site, and its log entry, as the CSV's detail tells them. */
export const seq = (n: number | undefined): string => (n === undefined ? '' : `no. ${n}, `);
export const logged = (i: number | undefined): string => (i === undefined ? '' : ` (log entry ${i})`);

/** "Notice no. 2": a notice by its number on the site. */
export const noticeName = (v: Pick<ReportViolation, 'siteSeq'>): string =>
  v.siteSeq === undefined ? 'Notice of violation' : `Notice of violation no. ${v.siteSeq}`;

/**
 * A notice as it stood at `to`: its steps before then, its status, on-time, first service and appeal
 * window derived from them (a notice with no service step keeps what it shows: stored before notices
 * were served, it was served when issued).
 */
function asOf(v: ViolationDto, to: number): ViolationDto {
  const events = v.events.filter((e) => ms(e.at) < to);
  const approved = events.find((e) => e.kind === 'approved');
  const { onTime: _onTime, servedAt: _s, appealBy: _a, ...rest } = v;
  const services = events.filter((e) => e.kind === 'served' && e.servedAt !== undefined);
  const first = services.reduce<(typeof services)[number] | undefined>(
    (a, e) => (a === undefined || ms(e.servedAt!) < ms(a.servedAt!) ? e : a),
    undefined,
  );
  const window = v.events.some((e) => e.kind === 'served')
    ? first
      ? { servedAt: first.servedAt, appealBy: first.appealBy }
      : {}
    : { servedAt: v.servedAt ?? (v.appealBy ? v.issuedAt : undefined), appealBy: v.appealBy };
  return {
    ...rest,
    events,
    status: statusOfSteps(events),
    ...(window.servedAt !== undefined ? { servedAt: window.servedAt } : {}),
    ...(window.appealBy !== undefined ? { appealBy: window.appealBy } : {}),
    ...(approved ? { onTime: ms(approved.at) <= ms(v.remedyDueAt) } : {}),
  };
}

/** Its standing in words at `asAt`: the period's end, or when the report is made if that is sooner. */
function standing(v: ViolationDto, asAt: number, tz: string): string {
  const t = (iso: string) => formatLong(ms(iso), tz);
  const appeal = v.events.find((e) => e.kind === 'appealed');
  const heard = v.events.find((e) => e.kind === 'heard');
  const appealed = `${appeal ? `; appealed ${t(appeal.at)}` : ''}${heard ? `; ${hearingWords(heard, v.law).replace(/^H/, 'h')}` : ''}`;
  if (v.status === 'reversed') return `reversed on appeal${appealed}`;
  const served = v.servedAt === undefined ? '; not yet served' : '';
  const approved = v.events.find((e) => e.kind === 'approved');
  if (approved) return `approved ${t(approved.at)}, ${v.onTime ? 'on time' : 'late'}${appealed}`;
  const corrected = v.events.filter((e) => e.kind === 'corrected').at(-1);
  const done = corrected ? `; correction reported ${t(corrected.at)}, awaiting approval` : '';
  const due = asAt > ms(v.remedyDueAt) ? 'overdue' : 'open';
  return `${due}, remedy due ${t(v.remedyDueAt)}${served}${done}${appealed}`;
}

/** The notices in force in the period, as the report lists (and cites) them. */
export function violationsInForce(i: {
  violations: readonly ViolationDto[];
  period: { from: number; to: number };
  tz: string;
  /** When the report is made: a notice is overdue only once its remedy's time has passed by then. */
  now?: number;
}): ReportViolation[] {
  const { from, to } = i.period;
  const asAt = Math.min(to, i.now ?? to);
  return i.violations
    .filter((v) => ms(v.issuedAt) < to)
    .map((v) => asOf(v, to))
    .filter((v) => {
      const closed = v.events.find(
        (e) => e.kind === 'approved' || (e.kind === 'heard' && e.outcome === 'reversed'),
      );
      return !closed || ms(closed.at) >= from;
    })
    .map((v) => ({ ...v, standing: standing(v, asAt, i.tz) }));
}

function photosWords(photos: readonly string[]): string {
  if (!photos.length) return '';
  const list = photos.map((p) => `<code>${esc(p.slice(0, SHORT_HASH))}…</code>`).join(', ');
  return `<br><small>${photos.length === 1 ? 'Photo' : 'Photos'} (SHA-256): ${list}</small>`;
}

function inspectionWords(r: ComplianceReport, v: ReportViolation, t: Time): string {
  if (v.inspectionId === undefined) return 'None named';
  const i = r.inspections.find((x) => x.id === v.inspectionId);
  if (!i) return 'An inspection recorded before this period';
  return `${esc(wordFor(INSPECTION_KIND_WORDS, i.kind))} of ${t(i.at)}, by ${esc(i.inspector)}`;
}

/** An approval's re-inspection in a CSV row: "; on re-inspection insp-… of 2026-06-11T14:00:00.000Z by …". */
const reinspected = (e: ReportViolation['events'][number]) =>
  e.inspectionId
    ? `; on re-inspection ${e.inspectionId}${e.inspectedAt ? ` of ${e.inspectedAt}` : ''}${e.inspectedBy ? ` by ${e.inspectedBy}` : ''}`
    : '';

function stepsTable(v: ReportViolation, t: Time, tz: string): string {
  if (!v.events.length) return '<p class="none">No service, appeal, correction or approval yet.</p>';
  const rows = v.events.map((e) => {
    const detail = stepDetailWords(e, v.law, tz);
    const said = [detail, e.text].filter(Boolean).join('. ');
    return `<tr><td>${esc(wordFor(STEP_KIND_WORDS, e.kind))}</td><td>${t(e.at)}</td><td>${esc(e.by)}</td><td>${esc(said) || '—'}${photosWords(e.photos)}</td><td><small>${entry(e.logIndex)}</small></td></tr>`;
  });
  return table(['Step', 'When', 'By', 'What was said', 'Cited'], rows);
}

/** The laws the listed notices are under, as the section's lead names them. */
function lawsCited(r: ComplianceReport): string {
  const ids = [...new Set(r.violations.map((v) => v.law ?? '001'))];
  const words = ids.map((id) => {
    const law = lawOf(id);
    return `Town law ${id in ENFORCEMENT_LAWS ? id : '001'}, ${law.part}`;
  });
  return words.length ? words.join('; ') : 'Town law 001, Enforcement';
}

function violationBlock(r: ComplianceReport, v: ReportViolation, t: Time): string {
  const row = (label: string, value: string) => `<tr><th>${esc(label)}</th><td>${value}</td></tr>`;
  const tz = r.site.timezone;
  const law = lawOfNotice(v);
  const services = v.events.filter((e) => e.kind === 'served');
  return `<div class="nov"><h3>${esc(noticeName(v))}</h3>
<table class="facts"><tbody>
${row('Law', `${esc(law.title)}: ${esc(orderKindOf(law, v.orderKind).label)}`)}
${row('Issued', `${t(v.issuedAt)}, by ${esc(v.issuedBy)}`)}
${row('Served', services.length ? services.map((e) => esc(serviceWords(e, tz))).join('<br>') : esc(v.servedAt ? `when issued, ${t(v.servedAt)}` : 'not yet served'))}
${row('Nature of the violation', esc(v.nature))}
${row('Remedy required', esc(v.remedy))}
${row('Remedy due', t(v.remedyDueAt))}
${row('Penalties', `<small>${esc(v.penalties)}</small>`)}
${row('Appeal', esc(appealWindowWords(v, tz)))}
${row('Follows the inspection', inspectionWords(r, v, t))}
${row('Standing', `<b>${esc(capital(v.standing))}</b>`)}
${row('Cited', `<small>${entry(v.logIndex)}</small>`)}
</tbody></table>
<h4>Since it was issued</h4>${stepsTable(v, t, tz)}</div>`;
}

/** A notice's outcome at the period's end (or when the report was made, if sooner), as a duty's status. */
function outcome(v: ReportViolation, asAt: number): string {
  if (v.status === 'approved') return v.onTime ? 'on-time' : 'late';
  if (v.status === 'reversed') return 'reversed';
  return asAt > Date.parse(v.remedyDueAt) ? 'overdue' : 'open';
}

export const violations: ReportSection<'violations'> = {
  id: 'violations',
  collect(i) {
    const list = i.violations;
    // The verifier counts the same way.
    const approved = (onTime: boolean) =>
      list.filter((v) => v.status === 'approved' && v.onTime === onTime).length;
    return {
      fields: { violations: list },
      counts: {
        violationsIssued: list.filter((v) => ms(v.issuedAt) >= i.period.from).length,
        violationsOnTime: approved(true),
        violationsLate: approved(false),
        violationsOpen: list.filter((v) => !isClosed(v.status)).length,
      },
    };
  },
  html: {
    region: 'enforcement',
    render(r, { t }) {
      const notices = r.violations.length
        ? r.violations.map((v) => violationBlock(r, v, t)).join('\n')
        : '<p class="none">No notice of violation was in force in this period.</p>';
      return `<h2>Notices of violation</h2>
<p class="small">${esc(lawsCited(r))}: each notice in force at some time in the period, with its service, appeal and what followed it up to the period's end.</p>
${notices}`;
    },
  },
  csv(r) {
    const end = Math.min(Date.parse(r.period.to), Date.parse(r.generatedAt));
    return r.violations.flatMap((v) => {
      const approved = v.events.find((e) => e.kind === 'approved');
      const follows = v.inspectionId ? `; follows inspection ${v.inspectionId}` : '';
      return [
        [
          'violation',
          v.id,
          v.status,
          '',
          v.issuedAt,
          v.remedyDueAt,
          approved?.at ?? '',
          outcome(v, end),
          `${seq(v.siteSeq)}issued by ${v.issuedBy}: ${v.nature}; remedy: ${v.remedy}; ${v.appealBy ? `${v.servedAt ? `served ${v.servedAt}, ` : ''}appeal until ${v.appealBy}` : 'not yet served'}${follows}; ${v.standing}${logged(v.logIndex)}`,
        ],
        ...v.events.map((e) => [
          'violation-step',
          v.id,
          e.kind,
          '',
          e.at,
          '',
          e.at,
          'recorded',
          `${e.by}: ${e.text}${e.photos.length ? `; photos ${e.photos.join(' ')}` : ''}${reinspected(e)}${logged(e.logIndex)}`,
        ]),
      ];
    });
  },
};
