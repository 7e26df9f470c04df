/**
 * The verifier's checks of a report's notices of violation (town law 001, "Enforcement") against the
 * records it cites: each listed notice says what its logged record says (the nature of the violation,
 * the remedy and its due time, the penalties, when and by whom it was issued, the appeal's end, to whom it
 * is directed, the inspection it follows), each listed step (appealed, corrected, approved) is its logged
 * step and none logged in the period is left out, its status is its last step and "on time" is the
 * approval against the remedy's due time; the site's notices are numbered without a gap (`siteSeq`: the
 * report cites every notice of the site) and every one issued in the period is listed; and the summary
 * counts what the lists give (the orders' count too). The stop-work orders themselves are checked in
 * `verifyStopWork.ts`, with the helpers exported here. Pure, no Node API (it is bundled into verify.html).
 */
import type { StopWorkDto, ViolationDto } from '../../../shared/src/api/violations.ts';
import type { CitedBody } from './shown.ts';
import { capital, numbering, type Problem, problem, shown, type Words, when } from './words.ts';

type Json = Record<string, unknown>;

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

const t = (iso: string | undefined) => (iso ? Date.parse(iso) : undefined);

/** The report's period in ms (a report without one: all time). */
export const periodOf = (r: { period?: { from: string; to: string } }) => ({
  from: t(r.period?.from) ?? Number.NEGATIVE_INFINITY,
  to: t(r.period?.to) ?? Number.POSITIVE_INFINITY,
});

/** One shown field: its JSON key, its words, the value shown, the value logged, and how to write them. */
export type EnfPair = [key: string, words: string, shown: unknown, logged: unknown, kind?: 'time' | 'text'];

/** The fields that differ, as problems of `where` (the JSON object at `base`). Absent is none. */
export function differ(where: string, base: string, pairs: EnfPair[], w: Words): Problem[] {
  return pairs
    .filter(([, , mine, logged]) => (mine ?? null) !== (logged ?? null))
    .map(([key, words, mine, logged, kind]) =>
      problem(
        `${base}.${key}`,
        `${where}: ${words} is not what its log entry says (the report shows ${shown(mine, w, kind)}, the log entry ${shown(logged, w, kind)})`,
      ),
    );
}

/** "the notice of violation no. 2 of Maple Ridge", by its logged number, or by its id when not cited. */
export const noticeName = (id: string, body: Json | undefined, w: Words): string =>
  typeof body?.siteSeq === 'number'
    ? `the notice of violation no. ${body.siteSeq} of ${w.site}`
    : `the notice of violation ${id} of ${w.site}`;

/** A listed notice's logged steps in the period, in log order. */
export function loggedSteps(id: string, all: CitedBody[], to: number): CitedBody[] {
  return all.filter(
    (e) => e.kind === 'violation-event' && e.body.violationId === id && (e.body.at as number) < to,
  );
}

/** A party in words: "Pat Landowner, 1 Elm St, Chester NY (pat@land.example)", or none. */
function party(p: unknown): string | undefined {
  if (typeof p !== 'object' || p === null) return undefined;
  const { name, address, email } = p as Json;
  return `${String(name)}, ${String(address)}${email === undefined ? '' : ` (${String(email)})`}`;
}

/** A list of names or fingerprints in words, comma-separated ('' when empty). */
export const list = (v: unknown): string => (Array.isArray(v) ? v.map(String).join(', ') : String(v ?? ''));

const STEP_WORDS: Record<string, string> = {
  appealed: 'its appeal',
  corrected: 'a correction',
  approved: "the officer's approval",
};

export function checkEnforcement(
  r: EnforcementReport,
  cited: (i: number | undefined) => CitedBody | undefined,
  all: CitedBody[],
  w: Words,
): Problem[] {
  // A report of a release before enforcement lists none and cites none: nothing to check.
  if (!r.violations && r.summary.violationsIssued === undefined && !all.some((e) => e.kind === 'violation'))
    return [];
  const out: Problem[] = [];
  const { from, to } = periodOf(r);
  const listed = r.violations ?? [];
  listed.forEach((v, i) => {
    out.push(...checkViolation(v, `violations[${i}]`, cited, all, to, w));
  });

  // Numbered without a gap (the report cites every notice of the site), each one of the period listed.
  const notices = all.filter((e) => e.kind === 'violation');
  out.push(...numbering(notices, 'violations', ['notice of violation', 'notices of violation'], w));
  const shownAt = new Set(listed.map((v) => v.logIndex));
  for (const e of notices) {
    const at = e.body.issuedAt as number;
    if (at >= from && at < to && !shownAt.has(e.index))
      out.push(
        problem(
          'violations',
          `${capital(noticeName(String(e.body.id), e.body, w))}, issued ${when(at, w)} (log entry ${e.index}), is in the report's period but the report does not list it`,
        ),
      );
  }

  out.push(...checkCounts(r, from));
  return out;
}

function checkViolation(
  v: ShownViolation,
  base: string,
  cited: (i: number | undefined) => CitedBody | undefined,
  all: CitedBody[],
  to: number,
  w: Words,
): Problem[] {
  const e = cited(v.logIndex);
  if (e?.kind !== 'violation')
    return [
      problem(
        `${base}.logIndex`,
        `${capital(noticeName(v.id, undefined, w))}: its log entry is not in the report`,
      ),
    ];
  const b = e.body;
  const where = capital(noticeName(v.id, b, w));
  const logged = (b.parties ?? {}) as Json;
  const out = differ(
    where,
    base,
    [
      ['id', 'its number', v.id, b.id],
      ['siteId', 'its site', v.siteId, b.siteId],
      ['inspectionId', 'the inspection it follows', v.inspectionId, b.inspectionId],
      ['nature', 'the nature of the violation', v.nature, b.nature],
      ['remedy', 'the remedy', v.remedy, b.remedy],
      ['remedyDueAt', 'its remedy due', t(v.remedyDueAt), b.remedyDueAt, 'time'],
      ['penalties', 'the penalties', v.penalties, b.penalties],
      ['issuedAt', 'the time it was issued', t(v.issuedAt), b.issuedAt, 'time'],
      ['issuedBy', 'who issued it', v.issuedBy, b.issuedBy],
      ['appealBy', 'the end of its appeal', t(v.appealBy), b.appealBy, 'time'],
      ['landowner', 'the landowner it is directed to', party(v.landowner), party(logged.landowner)],
      ['developer', 'the developer it is directed to', party(v.developer), party(logged.developer)],
      ['siteAddress', 'the site address it gives', v.siteAddress, logged.siteAddress],
    ],
    w,
  );

  // Its steps: each listed one is its logged step; none logged before the period's end is left out.
  const events = v.events ?? [];
  events.forEach((s, j) => {
    const at = `${base}.events[${j}]`;
    const c = cited(s.logIndex);
    const step = `${where}: ${STEP_WORDS[s.kind] ?? `its step (${s.kind})`} of ${when(t(s.at), w)}`;
    if (c?.kind !== 'violation-event' || c.body.violationId !== v.id) {
      out.push(problem(`${at}.logIndex`, `${step}: its log entry is not in the report`));
      return;
    }
    out.push(
      ...differ(
        step,
        at,
        [
          ['kind', 'what it is', s.kind, c.body.kind],
          ['at', 'its time', t(s.at), c.body.at, 'time'],
          ['by', 'who recorded it', s.by, c.body.by],
          ['text', 'what it says', s.text, c.body.text],
          ['photos', 'the list of its photos (their fingerprints)', list(s.photos), list(c.body.photos)],
        ],
        w,
      ),
    );
  });
  const steps = loggedSteps(v.id, all, to);
  const listedAt = new Set(events.map((s) => s.logIndex));
  for (const c of steps)
    if (!listedAt.has(c.index))
      out.push(
        problem(
          `${base}.events`,
          `${where}: ${STEP_WORDS[String(c.body.kind)] ?? 'a step'} of ${when(c.body.at, w)} by ${String(c.body.by)} is logged (log entry ${c.index}) but the report does not list it`,
        ),
      );

  // Its status is its last logged step; on time is its approval by the remedy's due time.
  const status = String(steps.at(-1)?.body.kind ?? 'issued');
  if (v.status !== status)
    out.push(
      problem(
        `${base}.status`,
        `${where}: the report gives its status as ${shown(v.status, w)}, but its last logged step makes it ${shown(status, w)}`,
      ),
    );
  const approved = steps.find((c) => c.body.kind === 'approved');
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

/** The summary's counts of notices and orders: what the report's lists give (as the report counts them). */
function checkCounts(r: EnforcementReport, from: number): Problem[] {
  if (r.summary.violationsIssued === undefined && !r.violations) return [];
  const vs = r.violations ?? [];
  const approved = vs.filter((v) => v.status === 'approved');
  const expected: Array<[string, number, string]> = [
    ['violationsIssued', vs.filter((v) => Date.parse(v.issuedAt) >= from).length, 'issued'],
    ['violationsOnTime', approved.filter((v) => v.onTime === true).length, 'corrected on time'],
    ['violationsLate', approved.filter((v) => v.onTime === false).length, 'corrected late'],
    ['violationsOpen', vs.length - approved.length, 'not yet approved'],
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
