/**
 * The law of notices of violation (town law 001, "Enforcement") that no table says: a notice's steps
 * (appealed, corrected, approved) are each its logged step and none logged before the period's end is
 * left out, its status is its last step, "on time" is the approval against the remedy's due time, and
 * the summary counts what the lists give (the stop-work orders' count too). The notices themselves (each
 * against its entry, numbered without a gap, every one issued in the period listed) are the table
 * `violations` of `sections.ts`. Pure, no Node API (it is bundled into verify.html).
 */
import { isClosed, statusOfSteps } from '../../../shared/src/api/enforcementWords.ts';
import { violationStepFields } from '../../../shared/src/api/violationFields.ts';
import type { StopWorkDto, ViolationDto, ViolationEvent } from '../../../shared/src/api/violations.ts';
import { type CitedBody, type Context, checkListed, type Listed, ms } from './checker.ts';
import { type Problem, problem, shown, when } from './words.ts';

/** A notice of violation as a report lists it (the report's own adds its standing in words). */
export type ShownViolation = Omit<ViolationDto, 'documentUrl'>;

/** A stop-work order as a report lists it (the report's own adds its standing in words). */
export type ShownStopWork = StopWorkDto;

/** The parts of a report these checks read (reports of releases before enforcement carry none). */
export interface EnforcementReport {
  period?: { from: string; to: string };
  summary: Record<string, number>;
  violations?: ShownViolation[];
  stopWork?: ShownStopWork[];
  stopWorkInEffect?: { id: string; since: string; reason: string };
}

/** A listed notice's logged steps in the period, in log order. */
export function loggedSteps(id: string, all: CitedBody[], to: number): CitedBody[] {
  return all.filter(
    (e) => e.kind === 'violation-event' && e.body.violationId === id && (e.body.at as number) < to,
  );
}

const STEP_WORDS: Record<string, string> = {
  served: 'a service',
  heard: 'the hearing of its appeal',
  appealed: 'its appeal',
  corrected: 'a correction',
  approved: "the officer's approval",
};

/** A step a notice shows, against its own log entry (a step of that notice). */
const steps: Listed<ViolationEvent> = {
  record: 'violation-event',
  cites: 'logIndex',
  of: 'violationId',
  fields: violationStepFields,
  says: { compare: 'all', sentence: 'differs' },
  where: (s, _b, ctx, notice) =>
    `${notice}: ${STEP_WORDS[s.kind] ?? `its step (${s.kind})`} of ${when(ms(s.at), ctx.w)}`,
  missing: 'its log entry is not in the report',
};

/** A listed notice's steps, status and "on time", from its logged steps. */
export function checkSteps(
  v: ShownViolation,
  e: CitedBody,
  { base, where }: { base: string; where: string },
  ctx: Context,
): Problem[] {
  const { w } = ctx;
  const out: Problem[] = [];
  // Its steps: each listed one is its logged step; none logged before the period's end is left out.
  const events = v.events ?? [];
  events.forEach((s, j) => {
    out.push(...checkListed(steps, s, `${base}.events[${j}]`, ctx, { id: v.id, where }).problems);
  });
  const logged = loggedSteps(v.id, ctx.all, ctx.to);
  const listedAt = new Set(events.map((s) => s.logIndex));
  for (const c of logged)
    if (!listedAt.has(c.index))
      out.push(
        problem(
          `${base}.events`,
          `${where}: ${STEP_WORDS[String(c.body.kind)] ?? 'a step'} of ${when(c.body.at, w)} by ${String(c.body.by)} is logged (log entry ${c.index}) but the report does not list it`,
        ),
      );

  // Its status is its last logged appeal, correction, approval or reversal; on time is its approval by
  // the remedy's due time.
  const status = statusOfSteps(logged.map((c) => ({ kind: String(c.body.kind), outcome: c.body.outcome })));
  if (v.status !== status)
    out.push(
      problem(
        `${base}.status`,
        `${where}: the report gives its status as ${shown(v.status, w)}, but its last logged step makes it ${shown(status, w)}`,
      ),
    );
  const b = e.body;
  out.push(...checkWindow(v, b, logged, { base, where }, ctx));
  const approved = logged.find((c) => c.body.kind === 'approved');
  const onTime = approved ? (approved.body.at as number) <= (b.remedyDueAt as number) : undefined;
  if ((v.onTime ?? null) !== (onTime ?? null)) {
    const said = v.onTime === undefined ? 'nothing' : v.onTime ? 'on time' : 'late';
    out.push(
      problem(
        `${base}.onTime`,
        approved
          ? `${where}: approved ${when(approved.body.at, w)} with its remedy due ${when(b.remedyDueAt, w)}, it was corrected ${onTime ? 'on time' : 'late'}, but the report says ${said}`
          : `${where}: no approval of it is logged, but the report says it was corrected ${said}`,
      ),
    );
  }
  return out;
}

/**
 * A listed notice's law, first service and appeal window, against its record and its logged services:
 * the earliest service is the first, and its own appeal end is the window's; a notice logged with an
 * appeal end at issue (before notices were served) was served when issued; none served, none shown.
 */
function checkWindow(
  v: ShownViolation,
  b: CitedBody['body'],
  logged: CitedBody[],
  { base, where }: { base: string; where: string },
  ctx: Context,
): Problem[] {
  const { w } = ctx;
  const out: Problem[] = [];
  const lawShown = v.law ?? '001';
  const lawLogged = typeof b.law === 'string' ? b.law : '001';
  if (lawShown !== lawLogged)
    out.push(
      problem(
        `${base}.law`,
        `${where}: the report gives its law as ${lawShown}, its logged record ${lawLogged}`,
      ),
    );
  const services = logged.filter((c) => c.body.kind === 'served');
  const first = services.reduce<CitedBody | undefined>(
    (a, c) => (a === undefined || (c.body.servedAt as number) < (a.body.servedAt as number) ? c : a),
    undefined,
  );
  const appealAtIssue = typeof b.appealBy === 'number' && b.appealBy > 0 ? b.appealBy : undefined;
  const expected = first
    ? { servedAt: first.body.servedAt as number, appealBy: first.body.appealBy as number | undefined }
    : appealAtIssue !== undefined
      ? { servedAt: b.issuedAt as number, appealBy: appealAtIssue }
      : { servedAt: undefined, appealBy: undefined };
  for (const [key, words, shownAt, loggedAt] of [
    ['servedAt', 'its first service', ms(v.servedAt), expected.servedAt],
    ['appealBy', 'the end of its appeal window', ms(v.appealBy), expected.appealBy],
  ] as const)
    if ((shownAt ?? null) !== (loggedAt ?? null))
      out.push(
        problem(
          `${base}.${key}`,
          `${where}: the report gives ${words} as ${shownAt === undefined ? 'none (not yet served)' : when(shownAt, w)}, but its logged services make it ${loggedAt === undefined ? 'none (not yet served)' : when(loggedAt, w)}`,
        ),
      );
  return out;
}

/** The summary's counts of notices and orders: what the report's lists give (as the report counts them). */
export function checkEnforcementCounts(r: EnforcementReport, from: number): Problem[] {
  if (r.summary.violationsIssued === undefined && !r.violations) return [];
  const vs = r.violations ?? [];
  const approved = vs.filter((v) => v.status === 'approved');
  const open = vs.filter((v) => !isClosed(v.status));
  const expected: Array<[string, number, string]> = [
    ['violationsIssued', vs.filter((v) => Date.parse(v.issuedAt) >= from).length, 'issued'],
    ['violationsOnTime', approved.filter((v) => v.onTime === true).length, 'corrected on time'],
    ['violationsLate', approved.filter((v) => v.onTime === false).length, 'corrected late'],
    ['violationsOpen', open.length, 'not yet approved'],
  ];
  const out = expected
    .filter(([k, n]) => r.summary[k] !== n)
    .map(([k, n, words]) =>
      problem(
        `summary.${k}`,
        `The summary gives ${r.summary[k] ?? 'no number'} for the notices of violation ${words}, but its list of them counts ${n}`,
      ),
    );
  const orders = (r.stopWork ?? []).length;
  if (r.summary.stopWorkOrders !== orders)
    out.push(
      problem(
        'summary.stopWorkOrders',
        `The summary gives ${r.summary.stopWorkOrders ?? 'no number'} for the stop-work orders in effect in the period, but its list of them counts ${orders}`,
      ),
    );
  return out;
}
