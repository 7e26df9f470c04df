/**
 * The compliance report's enforcement sections (town law 001, Enforcement): the notices of violation in
 * force during the period (issued before its end and not approved before its start), each with its
 * schedule and what followed it up to the period's end (appeal, corrections, the officer's approval, on
 * time or late), and the stop-work orders in effect at some time in the period (since when, why, lifted
 * when and by whom, with an override or not). The summary counts them; the site's header names the order
 * in effect at the period's end.
 */
import type { StopWorkDto, ViolationDto } from '../../../shared/src/api/violations.ts';
import { formatLong } from '../../../shared/src/time.ts';

/** A notice as the report lists it: its steps up to the period's end, and its standing in words. */
export type ReportViolation = ViolationDto & { standing: string };
/** A stop-work order as the report lists it: lifted only if lifted before the period's end. */
export type ReportStopWork = StopWorkDto & { standing: string };

export interface EnforcementSections {
  violations: ReportViolation[];
  stopWork: ReportStopWork[];
  /** The order in effect at the period's end, if any. */
  stopWorkInEffect?: { id: string; since: string; reason: string };
  counts: {
    violationsIssued: number;
    violationsOnTime: number;
    violationsLate: number;
    violationsOpen: number;
    stopWorkOrders: number;
  };
}

const ms = Date.parse;

/** A notice as it stood at `to`: its steps before then, its status and on-time derived from them. */
function asOf(v: ViolationDto, to: number): ViolationDto {
  const events = v.events.filter((e) => ms(e.at) < to);
  const approved = events.find((e) => e.kind === 'approved');
  const { onTime: _onTime, ...rest } = v;
  return {
    ...rest,
    events,
    status: events.at(-1)?.kind ?? 'issued',
    ...(approved ? { onTime: ms(approved.at) <= ms(v.remedyDueAt) } : {}),
  };
}

/** Its standing in words at `asAt`: the period's end, or when the report is made if that is sooner. */
function violationStanding(v: ViolationDto, asAt: number, tz: string): string {
  const t = (iso: string) => formatLong(ms(iso), tz);
  const appeal = v.events.find((e) => e.kind === 'appealed');
  const appealed = appeal ? `; appealed ${t(appeal.at)}` : '';
  const approved = v.events.find((e) => e.kind === 'approved');
  if (approved) return `approved ${t(approved.at)}, ${v.onTime ? 'on time' : 'late'}${appealed}`;
  const corrected = v.events.filter((e) => e.kind === 'corrected').at(-1);
  const done = corrected ? `; correction reported ${t(corrected.at)}, awaiting approval` : '';
  const due = asAt > ms(v.remedyDueAt) ? 'overdue' : 'open';
  return `${due}, remedy due ${t(v.remedyDueAt)}${done}${appealed}`;
}

function orderAsOf(o: StopWorkDto, to: number): StopWorkDto {
  if (o.liftedAt === undefined || ms(o.liftedAt) < to) return o;
  const { liftedAt: _a, liftedBy: _b, liftNote: _n, override: _o, liftLogIndex: _l, ...rest } = o;
  return rest;
}

function orderStanding(o: StopWorkDto, tz: string): string {
  const t = (iso: string) => formatLong(ms(iso), tz);
  if (o.liftedAt === undefined) return `in effect since ${t(o.since)}`;
  return `lifted ${t(o.liftedAt)} by ${o.liftedBy ?? 'the officer'}${o.override ? ', with an override (a notice it names was not approved)' : ''}`;
}

export function enforcementSections(i: {
  violations: readonly ViolationDto[];
  stopWork: readonly StopWorkDto[];
  period: { from: number; to: number };
  tz: string;
  /** When the report is made: a notice is overdue only once its remedy's time has passed by then. */
  now?: number;
}): EnforcementSections {
  const { from, to } = i.period;
  const asAt = Math.min(to, i.now ?? to);
  const violations = i.violations
    .filter((v) => ms(v.issuedAt) < to)
    .map((v) => asOf(v, to))
    .filter((v) => {
      const approved = v.events.find((e) => e.kind === 'approved');
      return !approved || ms(approved.at) >= from;
    })
    .map((v) => ({ ...v, standing: violationStanding(v, asAt, i.tz) }));
  const stopWork = i.stopWork
    .filter((o) => ms(o.since) < to && (o.liftedAt === undefined || ms(o.liftedAt) >= from))
    .map((o) => orderAsOf(o, to))
    .map((o) => ({ ...o, standing: orderStanding(o, i.tz) }));
  const inEffect = stopWork.filter((o) => o.liftedAt === undefined).at(-1);
  return {
    violations,
    stopWork,
    ...(inEffect
      ? { stopWorkInEffect: { id: inEffect.id, since: inEffect.since, reason: inEffect.reason } }
      : {}),
    counts: violationCounts(violations, stopWork, from),
  };
}

/** The summary's counts of the listed notices and orders (the verifier counts the same way). */
export function violationCounts(
  violations: readonly Pick<ViolationDto, 'issuedAt' | 'status' | 'onTime'>[],
  stopWork: readonly unknown[],
  from: number,
): EnforcementSections['counts'] {
  return {
    violationsIssued: violations.filter((v) => ms(v.issuedAt) >= from).length,
    violationsOnTime: violations.filter((v) => v.status === 'approved' && v.onTime === true).length,
    violationsLate: violations.filter((v) => v.status === 'approved' && v.onTime === false).length,
    violationsOpen: violations.filter((v) => v.status !== 'approved').length,
    stopWorkOrders: stopWork.length,
  };
}
