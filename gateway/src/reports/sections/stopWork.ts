/**
 * The stop-work orders (town law 001, Enforcement) in effect at some time in the period: since when, why,
 * the notices they name, each service (how, on whom, when, in the site's time zone; those recorded by the
 * period's end), lifted when and by whom (only if before the period's end), with an override or not. The order in effect at the period's end is named in the site's header on the page and in the JSON
 * (`stopWorkInEffect`). In the CSV a `stop-work` row per order (since, lifted; in effect, lifted, or
 * lifted with an override) and a `stop-work-service` row per service. The header also says when work was halted by a violation found at an
 * inspection of the period and not approved by its end.
 */
import { SERVICE_METHOD_LABELS, WORK_HALTED_WORDS } from '../../../../shared/src/api/enforcementWords.ts';
import { serviceWords } from '../../../../shared/src/api/serviceWords.ts';
import type { StopWorkDto } from '../../../../shared/src/api/violations.ts';
import { formatLong } from '../../../../shared/src/time.ts';
import { workHalted } from '../../enforcement/halted.ts';
import type { ComplianceReport, ReportStopWork } from '../report.ts';
import { escapeXml as esc } from '../stormChart.ts';
import { type ReportSection, type Time, table } from './section.ts';
import { capital, entry, logged, noticeName, seq } from './violations.ts';

const ms = Date.parse;

/** An order as it stood at the period's end: its services recorded by then, its lifting if before it. */
function orderAsOf(o: StopWorkDto, to: number): StopWorkDto {
  const services = (o.services ?? []).filter((s) => ms(s.at) < to);
  const first = services.reduce<(typeof services)[number] | undefined>(
    (a, s) => (a === undefined || ms(s.servedAt) < ms(a.servedAt) ? s : a),
    undefined,
  );
  const { servedAt: _s, ...unserved } = o;
  const served: StopWorkDto = {
    ...unserved,
    ...(o.services ? { services } : {}),
    ...(first ? { servedAt: first.servedAt } : {}),
  };
  if (served.liftedAt === undefined || ms(served.liftedAt) < to) return served;
  const { liftedAt: _a, liftedBy: _b, liftNote: _n, override: _o, liftLogIndex: _l, ...rest } = served;
  return rest;
}

/** Its services in words, each with its entry ("By e-mail on …, Jun 10, 2026, 10:00 AM EDT"). */
function servicesCell(o: ReportStopWork, tz: string): string {
  const services = o.services ?? [];
  if (services.length === 0) return 'Not yet served';
  return services
    .map((s) => `${esc(capital(serviceWords(s, tz)))}${s.note ? `<br><small>${esc(s.note)}</small>` : ''}`)
    .join('<br>');
}

function standing(o: StopWorkDto, tz: string): string {
  const t = (iso: string) => formatLong(ms(iso), tz);
  if (o.liftedAt === undefined) return `in effect since ${t(o.since)}`;
  return `lifted ${t(o.liftedAt)} by ${o.liftedBy ?? 'the officer'}${o.override ? ', with an override (a notice it names was not approved)' : ''}`;
}

/** The orders in effect at some time in the period, as the report lists (and cites) them. */
export function ordersInEffect(i: {
  stopWork: readonly StopWorkDto[];
  period: { from: number; to: number };
  tz: string;
}): ReportStopWork[] {
  const { from, to } = i.period;
  return i.stopWork
    .filter((o) => ms(o.since) < to && (o.liftedAt === undefined || ms(o.liftedAt) >= from))
    .map((o) => orderAsOf(o, to))
    .map((o) => ({ ...o, standing: standing(o, i.tz) }));
}

function namedNotices(r: ComplianceReport, o: ReportStopWork): string {
  if (!o.violationIds.length) return 'None named';
  return o.violationIds
    .map((id) => {
      const v = r.violations.find((x) => x.id === id);
      return v ? esc(noticeName(v)) : 'A notice no longer in force in this period';
    })
    .join('<br>');
}

function stopWorkRow(r: ComplianceReport, o: ReportStopWork, t: Time, tz: string): string {
  const lifted =
    o.liftedAt === undefined
      ? 'Not lifted'
      : `${t(o.liftedAt)}, by ${esc(o.liftedBy ?? 'the officer')}${o.liftNote ? `<br><small>${esc(o.liftNote)}</small>` : ''}`;
  const override = o.liftedAt === undefined ? '—' : o.override ? 'Yes' : 'No';
  const cited = [
    entry(o.logIndex),
    ...(o.services ?? []).map((s) => `a service: ${entry(s.logIndex)}`),
    ...(o.liftLogIndex === undefined ? [] : [`its lifting: ${entry(o.liftLogIndex)}`]),
  ];
  return `<tr><td>${t(o.since)}</td><td>${esc(o.reason)}</td><td>${namedNotices(r, o)}</td><td>${esc(o.issuedBy)}</td><td>${servicesCell(o, tz)}</td><td>${lifted}</td><td>${override}</td><td>${esc(capital(o.standing))}</td><td><small>${cited.join('<br>')}</small></td></tr>`;
}

/**
 * Work halted by a violation finding of an inspection of the period whose notice was not approved by
 * the period's end (001, inspection A(2)): the notices as they stand then.
 */
function haltedAtEnd(r: ComplianceReport) {
  return workHalted(r.inspections, r.violations);
}

const HEAD = [
  'Since',
  'Why',
  'Notices it names',
  'Issued by',
  'Served',
  'Lifted',
  'Override',
  'Standing',
  'Cited',
];

export const stopWork: ReportSection<'stopWork' | 'stopWorkInEffect'> = {
  id: 'stop-work',
  collect(i) {
    const inEffect = i.stopWork.filter((o) => o.liftedAt === undefined).at(-1);
    return {
      fields: {
        stopWork: i.stopWork,
        ...(inEffect
          ? { stopWorkInEffect: { id: inEffect.id, since: inEffect.since, reason: inEffect.reason } }
          : {}),
      },
      counts: { stopWorkOrders: i.stopWork.length },
    };
  },
  html: {
    region: 'enforcement',
    // The prominent line of the site's header while an order is in effect at the period's end.
    // And the line of work halted by a violation found in the period, not approved by its end.
    header(r, { t }) {
      const o = r.stopWorkInEffect;
      const h = haltedAtEnd(r);
      return `${o ? `<p class="stop-work" role="status"><b>Under a stop-work order since ${t(o.since)}:</b> ${esc(o.reason)}</p>` : ''}${
        h
          ? `<p class="stop-work" role="status" data-work-halted><b>${WORK_HALTED_WORDS} since ${t(h.since)}:</b> ${esc(`a violation found at ${h.practices.join('; ')} was not corrected and approved by the end of the period.`)}</p>`
          : ''
      }`;
    },
    render: (r, { t }) =>
      `<h2>Stop-work orders</h2>${
        r.stopWork.length
          ? table(
              HEAD,
              r.stopWork.map((o) => stopWorkRow(r, o, t, r.site.timezone)),
            )
          : '<p class="none">No stop-work order was in effect in this period.</p>'
      }`,
  },
  csv: (r) =>
    r.stopWork.flatMap((o) => {
      const lifted =
        o.liftedAt === undefined
          ? ''
          : `; lifted by ${o.liftedBy ?? ''}: ${o.liftNote ?? ''}${logged(o.liftLogIndex)}`;
      const services = (o.services ?? []).map((s) => [
        'stop-work-service',
        o.id,
        s.method,
        '',
        s.servedAt,
        '',
        s.at,
        'recorded',
        `served ${SERVICE_METHOD_LABELS[s.method]} on ${s.party}, recorded by ${s.by}${s.note ? `: ${s.note}` : ''}${logged(s.logIndex)}`,
      ]);
      const row = [
        'stop-work',
        o.id,
        '',
        '',
        o.since,
        '',
        o.liftedAt ?? '',
        o.liftedAt === undefined ? 'in-effect' : o.override ? 'lifted-override' : 'lifted',
        `${seq(o.siteSeq)}issued by ${o.issuedBy}: ${o.reason}; notices ${o.violationIds.join(' ') || 'none'}${logged(o.logIndex)}; ${o.servedAt ? `first served ${o.servedAt}` : 'not yet served'}${lifted}`,
      ];
      return [row, ...services];
    }),
};
