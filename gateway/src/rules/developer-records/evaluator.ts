/**
 * `developer-records`: the duties the developer's records of a construction site meet (town law 001),
 * one evaluator per construction site for four rule ids:
 * - `contractor-certification`: a site active (work going on) with no contractor's certification on file
 *   ("before undertaking any land development activity", SWPPP certification, A): opened at the first
 *   tick the site is active without one, due at once; resolved by a certification, at its signing when
 *   that is before the duty opened (on time), else at the signing (late).
 * - `swppp-on-site`: the same for the SWPPP kept on site (SWPPP certification, D).
 * The site's final stabilization ends both: the SWPPP is kept "to the date of final stabilization", and
 * after it no land development activity is undertaken that a certification would have to precede. A duty
 * still open is closed at the stabilization, not met (late); none opens after it.
 * - `acceptance-inspection`: the officer's final acceptance opens it, due at the end of the same local date
 *   a year later (Construction completion guarantee: "not less than one year from the date of final
 *   acceptance … and that a one-year inspection has been conducted"); resolved by the one-year
 *   inspection's record.
 * - `milestone-notice`: a milestone whose expected time passed with no 48-hour notice on file is flagged
 *   (Erosion and sediment control inspection, A(1)): opened at the expected time, due 48 hours before it
 *   (the last time the notice was on time, so past due at once); resolved when a notice is filed.
 * Its inputs are the records and notices fed in their own transaction (`enforcement/siteRecords.ts`,
 * `notices.ts`) and ticks.
 */
import { MILESTONES, type Milestone, NOTICE_LEAD_MS } from '../../../../shared/src/api/milestones.ts';
import { yearsFromDate } from '../../../../shared/src/days.ts';
import { alertKey, openAlert, resolveAlert, supersededAlert } from '../effects.ts';
import { type SiteStateHead, siteState } from '../state.ts';
import type { Effect, Evaluation, Evaluator, RuleContext, RuleInput } from '../types.ts';
import { dueBefore, formatLocal, iso } from '../util.ts';
import type { Params } from './params.ts';

export const RULES = [
  'contractor-certification',
  'swppp-on-site',
  'acceptance-inspection',
  'milestone-notice',
] as const;
export type DeveloperRule = (typeof RULES)[number];

/** A duty held open: its alert's key, when it opened and when it is due. */
interface Held {
  key: string;
  at: number;
  dueAt: number;
}

export interface DeveloperRecordsState extends SiteStateHead {
  /** The first certification's signing time, once one is on file. */
  certifiedAt: number | null;
  /** Since when the SWPPP is on site, once recorded. */
  swpppSince: number | null;
  /** The final stabilization's time, once recorded (absent in a state from before the record existed). */
  stabilizedAt?: number | null;
  /** The last final acceptance (a later one replaces it). */
  acceptedAt: number | null;
  /** Each milestone's expected time (the last record of it). */
  expected: Partial<Record<string, number>>;
  /** The milestones with a notice on file. */
  noticed: string[];
  open: {
    certification?: Held;
    swppp?: Held;
    oneYear?: Held;
    milestones: Partial<Record<string, Held>>;
  };
}

type Out = Evaluation<DeveloperRecordsState, DeveloperRule>;
type Ctx = RuleContext<Params>;
type RecordInput = Extract<RuleInput, { type: 'site-record' }>;

/** The end of the local date one year after `ts` (February 29 goes to February 28). */
export function oneYearAfter(ts: number, tz: string): number {
  return dueBefore(yearsFromDate(ts, 1, tz));
}

function label(m: string): string {
  return MILESTONES[m as Milestone] ?? m;
}

/** Opens the certification and SWPPP duties of an active site without them, at `now`. */
function onTick(prev: DeveloperRecordsState, now: number, ctx: Ctx): Out {
  const effects: Effect<DeveloperRule>[] = [];
  let open = prev.open;
  const site = ctx.site.name ?? ctx.site.id;
  const working = ctx.site.active && (prev.stabilizedAt ?? null) === null;
  if (working && prev.certifiedAt === null && !open.certification) {
    const key = alertKey('contractor-certification', prev, 'on-file');
    open = { ...open, certification: { key, at: now, dueAt: now } };
    effects.push(
      openAlert('contractor-certification', prev, {
        key,
        at: now,
        dueAt: now,
        message: `No contractor's certification on file at ${site}: each contractor signs one before any work (law 001, SWPPP certification).`,
        evidence: { since: iso(now) },
      }),
    );
  }
  if (working && prev.swpppSince === null && !open.swppp) {
    const key = alertKey('swppp-on-site', prev, 'on-site');
    open = { ...open, swppp: { key, at: now, dueAt: now } };
    effects.push(
      openAlert('swppp-on-site', prev, {
        key,
        at: now,
        dueAt: now,
        message: `No record that the SWPPP is kept at ${site}: a copy stays on site from the start of construction to final stabilization (law 001).`,
        evidence: { since: iso(now) },
      }),
    );
  }
  const milestones = { ...open.milestones };
  for (const [m, at] of Object.entries(prev.expected)) {
    if (at === undefined || at > now || milestones[m] || prev.noticed.includes(m)) continue;
    const key = alertKey('milestone-notice', prev, m);
    const dueAt = at - NOTICE_LEAD_MS;
    milestones[m] = { key, at, dueAt };
    effects.push(
      openAlert('milestone-notice', prev, {
        key,
        at,
        dueAt,
        message: `${label(m)} at ${site} was expected ${formatLocal(at, ctx.timezone)}, and no notice was filed 48 hours before it (law 001, Erosion and sediment control inspection, A(1)).`,
        evidence: { milestone: label(m), expectedAt: iso(at), noticeDueAt: iso(dueAt) },
      }),
    );
  }
  if (effects.length === 0) return { state: prev, effects, ...wake(prev, now) };
  const state = { ...prev, open: { ...open, milestones } };
  return { state, effects, ...wake(state, now) };
}

/** The next expected milestone a tick would flag. */
function wake(s: DeveloperRecordsState, now: number): { wakeAt?: number } {
  const next = Object.entries(s.expected)
    .filter(([m, at]) => at !== undefined && at > now && !s.noticed.includes(m) && !s.open.milestones[m])
    .map(([, at]) => at as number);
  return next.length > 0 ? { wakeAt: Math.min(...next) } : {};
}

/** Resolves a held duty by a record at `at` (never before the duty opened). */
function close(held: Held, at: number, message: string, evidence: Record<string, unknown>) {
  return resolveAlert<DeveloperRule>(held.key, Math.max(at, held.at), { message, evidence });
}

/**
 * A certification or SWPPP duty ended by the final stabilization: closed at it, never as met (the record
 * the duty asked for is still missing); superseded when the stabilization is dated before the duty opened
 * (the site was stabilized already: no duty was owed).
 */
function endAtStabilization(held: Held, what: string, input: RecordInput, tz: string): Effect<DeveloperRule> {
  const evidence = { stabilizedAt: iso(input.at), recordId: input.id, recordedBy: input.by };
  if (input.at <= held.at)
    return supersededAlert(held.key, held.at, {
      message: `The site reached final stabilization ${formatLocal(input.at, tz)}, before this duty began: none was owed.`,
      evidence,
    });
  return close(
    held,
    input.at,
    `The site reached final stabilization ${formatLocal(input.at, tz)}: the duty ends there, not met (${what}).`,
    evidence,
  );
}

function onRecord(prev: DeveloperRecordsState, input: RecordInput, ctx: Ctx): Out {
  const tz = ctx.timezone;
  const effects: Effect<DeveloperRule>[] = [];
  const s: DeveloperRecordsState = { ...prev, open: { ...prev.open } };
  switch (input.kind) {
    case 'certification': {
      if (s.certifiedAt !== null) return { state: prev, effects };
      s.certifiedAt = input.at;
      const held = s.open.certification;
      if (held) {
        effects.push(
          close(
            held,
            input.at,
            `A contractor's certification is on file, signed ${formatLocal(input.at, tz)}.`,
            {
              recordId: input.id,
              signedAt: iso(input.at),
              recordedBy: input.by,
            },
          ),
        );
        delete s.open.certification;
      }
      break;
    }
    case 'swppp': {
      if (s.swpppSince !== null) return { state: prev, effects };
      s.swpppSince = input.at;
      const held = s.open.swppp;
      if (held) {
        effects.push(
          close(held, input.at, `The SWPPP is kept on site since ${formatLocal(input.at, tz)}.`, {
            recordId: input.id,
            since: iso(input.at),
            recordedBy: input.by,
          }),
        );
        delete s.open.swppp;
      }
      break;
    }
    case 'final-acceptance': {
      if (s.open.oneYear) return { state: prev, effects };
      s.acceptedAt = input.at;
      const dueAt = oneYearAfter(input.at, tz);
      const key = alertKey('acceptance-inspection', prev, input.id);
      s.open.oneYear = { key, at: input.at, dueAt };
      effects.push(
        openAlert('acceptance-inspection', prev, {
          key,
          at: input.at,
          dueAt,
          message: `Final acceptance of ${ctx.site.name ?? ctx.site.id} on ${formatLocal(input.at, tz)}: the one-year inspection is due by ${formatLocal(dueAt, tz)} (law 001, Construction completion guarantee).`,
          evidence: { acceptedAt: iso(input.at), acceptedBy: input.by, dueAt: iso(dueAt) },
        }),
      );
      break;
    }
    case 'one-year-inspection': {
      const held = s.open.oneYear;
      if (!held || input.at < held.at) return { state: prev, effects };
      const verdict = input.acceptable ? 'found acceptable' : 'NOT found acceptable';
      effects.push(
        close(held, input.at, `The one-year inspection was made ${formatLocal(input.at, tz)}: ${verdict}.`, {
          recordId: input.id,
          inspectedAt: iso(input.at),
          inspectedBy: input.by,
          acceptable: input.acceptable === true,
        }),
      );
      delete s.open.oneYear;
      break;
    }
    case 'final-stabilization': {
      if ((s.stabilizedAt ?? null) !== null) return { state: prev, effects };
      s.stabilizedAt = input.at;
      const { certification, swppp } = s.open;
      if (certification)
        effects.push(
          endAtStabilization(
            certification,
            "no contractor's certification was recorded while work went on",
            input,
            tz,
          ),
        );
      if (swppp)
        effects.push(
          endAtStabilization(swppp, 'no record was made that the SWPPP was kept on site', input, tz),
        );
      delete s.open.certification;
      delete s.open.swppp;
      break;
    }
    case 'expected-milestone': {
      if (input.milestone === undefined) return { state: prev, effects };
      s.expected = { ...s.expected, [input.milestone]: input.at };
      break;
    }
    case 'notice': {
      const m = input.milestone;
      if (m === undefined || s.noticed.includes(m)) return { state: prev, effects };
      s.noticed = [...s.noticed, m];
      const held = s.open.milestones[m];
      if (held) {
        effects.push(
          close(
            held,
            input.at,
            `A notice of ${label(m)} was filed ${formatLocal(input.at, tz)}, after the milestone's expected time.`,
            {
              noticeId: input.id,
              filedAt: iso(input.at),
              filedBy: input.by,
            },
          ),
        );
        const milestones = { ...s.open.milestones };
        delete milestones[m];
        s.open.milestones = milestones;
      }
      break;
    }
  }
  return { state: s, effects };
}

/** A duty closed by a person: the evaluator no longer holds it (a later record changes nothing there). */
function onClosed(prev: DeveloperRecordsState, key: string): Out {
  const o = prev.open;
  const milestones = Object.fromEntries(Object.entries(o.milestones).filter(([, h]) => h?.key !== key));
  const same =
    o.certification?.key !== key &&
    o.swppp?.key !== key &&
    o.oneYear?.key !== key &&
    Object.keys(milestones).length === Object.keys(o.milestones).length;
  if (same) return { state: prev, effects: [] };
  const open: DeveloperRecordsState['open'] = { milestones };
  if (o.certification && o.certification.key !== key) open.certification = o.certification;
  if (o.swppp && o.swppp.key !== key) open.swppp = o.swppp;
  if (o.oneYear && o.oneYear.key !== key) open.oneYear = o.oneYear;
  // A duty of certification or SWPPP closed by hand is taken as met: the tick does not open it again.
  const state = { ...prev, open };
  if (o.certification?.key === key && state.certifiedAt === null) state.certifiedAt = o.certification.at;
  if (o.swppp?.key === key && state.swpppSince === null) state.swpppSince = o.swppp.at;
  if (Object.keys(milestones).length !== Object.keys(o.milestones).length) {
    const m = Object.keys(o.milestones).find((k) => !(k in milestones));
    if (m && !state.noticed.includes(m)) state.noticed = [...state.noticed, m];
  }
  return { state, effects: [] };
}

export const developerRecordsEvaluator: Evaluator<DeveloperRecordsState, DeveloperRule, Params> = {
  rule: RULES,
  init: (ctx) =>
    siteState(ctx, {
      certifiedAt: null,
      swpppSince: null,
      stabilizedAt: null,
      acceptedAt: null,
      expected: {},
      noticed: [],
      open: { milestones: {} },
    }),
  evaluate(prev, input, ctx) {
    if (input.type === 'tick') return onTick(prev, input.now, ctx);
    if (input.type === 'site-record')
      return input.siteId === prev.siteId ? onRecord(prev, input, ctx) : { state: prev, effects: [] };
    if (input.type === 'alert-closed') return onClosed(prev, input.key);
    return { state: prev, effects: [] };
  },
};
