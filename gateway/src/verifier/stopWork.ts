/**
 * The law of stop-work orders (town law 001, "Enforcement"; town law 000, Section 5.030 A 7) that no table
 * says: an order's lifting is its logged lifting and one logged before the period's end is not left out;
 * each service it shows is its logged service, none logged before the period's end is left out, and its
 * first service is the earliest; an order lifted without an
 * override names only notices approved before the lifting; the order the report names as in effect at
 * the period's end is the last one not lifted by then. The orders themselves (each against its entry,
 * numbered without a gap, every one issued in the period listed) are the table `stopWork` of
 * `sections.ts`. Pure, no Node API (it is bundled into verify.html).
 */
import {
  stopWorkFields,
  stopWorkLiftFields,
  stopWorkServiceFields,
} from '../../../shared/src/api/violationFields.ts';
import type { StopWorkService } from '../../../shared/src/api/violations.ts';
import {
  type CitedBody,
  type Context,
  checkListed,
  differences,
  type Listed,
  ms,
  pairsOf,
} from './checker.ts';
import { loggedSteps, type ShownStopWork } from './violations.ts';
import { noticeName, orderName, type Problem, problem, when } from './words.ts';

type Json = Record<string, unknown>;

/** What the report shows of the orders (reports of releases before enforcement carry none). */
export interface StopWorkReport {
  violations?: Array<{ id: string }>;
  stopWork?: ShownStopWork[];
  stopWorkInEffect?: { id: string; since: string; reason: string };
}

/** Whether the report has orders to check: it lists some or cites some. */
export const hasOrders = (r: StopWorkReport, all: CitedBody[]): boolean =>
  !!r.stopWork || all.some((e) => e.kind === 'stop-work');

/** An order's lifting as the order shows it, against the lifting's own log entry. */
const lifting: Listed<ShownStopWork> = {
  record: 'stop-work-event',
  cites: 'liftLogIndex',
  of: 'orderId',
  fields: stopWorkLiftFields,
  says: { compare: 'all', sentence: 'differs' },
  where: (_o, _b, _ctx, order) => order ?? '',
  missing: 'the log entry of its lifting is not in the report',
};

/** An order's logged steps of a kind (`lifted`, `served`) before the period's end, in log order. */
const stepsOf = (id: string, kind: string, ctx: Context) =>
  ctx.all.filter(
    (e) =>
      e.kind === 'stop-work-event' &&
      e.body.orderId === id &&
      e.body.kind === kind &&
      (e.body.at as number) < ctx.to,
  );

/** The logged lifting of an order before the period's end (a service is a step too, not a lifting). */
const liftOf = (id: string, ctx: Context) => stepsOf(id, 'lifted', ctx)[0];

/** A service an order shows, against its own log entry (a step of that order). */
const service: Listed<StopWorkService> = {
  record: 'stop-work-event',
  cites: 'logIndex',
  of: 'orderId',
  fields: stopWorkServiceFields,
  says: { compare: 'all', sentence: 'differs' },
  where: (s, _b, ctx, order) => `${order ?? ''}: its service on ${s.party} of ${when(ms(s.servedAt), ctx.w)}`,
  missing: 'its log entry is not in the report',
};

/**
 * A listed order's services: each shown one is its logged service (not its lifting); none logged before
 * the period's end is left out; its first service (`servedAt`) is the earliest logged one.
 */
export function checkServices(
  o: ShownStopWork,
  { base, where }: { base: string; where: string },
  ctx: Context,
): Problem[] {
  const { w } = ctx;
  const out: Problem[] = [];
  const shown = o.services ?? [];
  shown.forEach((s, j) => {
    const at = `${base}.services[${j}]`;
    const { e, problems } = checkListed(service, s, at, ctx, { id: o.id, where });
    out.push(...problems);
    if (e && e.body.kind !== 'served')
      out.push(
        problem(
          `${at}.logIndex`,
          `${where}: the report shows a service on ${s.party}, but the log entry it cites (${e.index}) is its ${String(e.body.kind)} step, not a service`,
        ),
      );
  });
  const logged = stepsOf(o.id, 'served', ctx);
  const listed = new Set(shown.map((s) => s.logIndex));
  for (const c of logged)
    if (!listed.has(c.index))
      out.push(
        problem(
          `${base}.services`,
          `${where}: its service on ${String(c.body.party)} of ${when(c.body.servedAt, w)} is logged (log entry ${c.index}) but the report does not list it`,
        ),
      );
  const first = logged.reduce<CitedBody | undefined>(
    (a, c) => (a === undefined || (c.body.servedAt as number) < (a.body.servedAt as number) ? c : a),
    undefined,
  );
  const expected = first?.body.servedAt as number | undefined;
  const given = ms(o.servedAt);
  if ((given ?? null) !== (expected ?? null))
    out.push(
      problem(
        `${base}.servedAt`,
        `${where}: the report gives its first service as ${given === undefined ? 'none (not yet served)' : when(given, w)}, but its logged services make it ${expected === undefined ? 'none (not yet served)' : when(expected, w)}`,
      ),
    );
  return out;
}

/** A listed order's lifting, and that one lifted without an override names only approved notices. */
export function checkLifting(
  r: StopWorkReport,
  o: ShownStopWork,
  e: CitedBody,
  { base, where }: { base: string; where: string },
  ctx: Context,
): Problem[] {
  const { w } = ctx;
  const out: Problem[] = [];
  // Its lifting: the one shown is its logged lifting; a logged one is not left out.
  const logged = liftOf(o.id, ctx);
  const shownLifted = o.liftedAt !== undefined || o.liftLogIndex !== undefined;
  if (shownLifted) out.push(...checkListed(lifting, o, base, ctx, { id: o.id, where }).problems);
  else if (logged)
    out.push(
      problem(
        `${base}.liftedAt`,
        `${where}: the report shows it in effect, but its lifting ${when(logged.body.at, w)} by ${String(logged.body.by)} is logged (log entry ${logged.index})`,
      ),
    );

  // Lifted without an override (as logged, or as the report says): every notice it names was approved.
  const lift = logged ?? (shownLifted ? ctx.cited(o.liftLogIndex) : undefined);
  const liftAt = (lift?.body.at as number | undefined) ?? ms(o.liftedAt);
  const noOverride = (lift !== undefined && lift.body.override !== true) || (shownLifted && !o.override);
  if (liftAt === undefined || !noOverride) return out;
  for (const id of (e.body.violationIds ?? []) as string[]) {
    const notice = ctx.all.find((x) => x.kind === 'violation' && x.body.id === id);
    if (!notice) {
      out.push(
        problem(
          `${base}.violationIds`,
          `${where}: it names the notice of violation ${id}, which the report does not carry`,
        ),
      );
      continue;
    }
    // A notice not listed was approved before the period (else it is listed: the table `violations`).
    if (!(r.violations ?? []).some((v) => v.id === id)) continue;
    const approved = loggedSteps(id, ctx.all, ctx.to).find((s) => s.body.kind === 'approved');
    if (!approved || (approved.body.at as number) > liftAt)
      out.push(
        problem(
          `${base}.override`,
          `${where}: it was lifted ${when(liftAt, w)} without an override, but ${noticeName(id, notice.body, w)} it names was not approved before then`,
        ),
      );
  }
  return out;
}

/** The fields the order in effect at the period's end shows: its own rows, as the order shows them. */
const IN_EFFECT = (['since', 'reason'] as const).map((k) => stopWorkFields.find(([key]) => key === k)!);

/** The order the report names as in effect at the period's end: the last listed one not lifted by then. */
export function checkInEffect(r: StopWorkReport, ctx: Context): Problem[] {
  const { w } = ctx;
  const bodies = new Map<string, Json>();
  for (const o of r.stopWork ?? []) {
    const e = ctx.cited(o.logIndex);
    if (e?.kind === 'stop-work') bodies.set(o.id, e.body);
  }
  const inEffect = (r.stopWork ?? []).filter((o) => bodies.has(o.id) && !liftOf(o.id, ctx)).at(-1);
  const named = r.stopWorkInEffect;
  if (named?.id !== inEffect?.id) {
    const expected = inEffect
      ? `${orderName(inEffect.id, bodies.get(inEffect.id), w)} was not lifted by then`
      : 'no order was in effect then';
    return [
      problem(
        'stopWorkInEffect',
        named
          ? `The report names ${orderName(named.id, bodies.get(named.id), w)} as in effect at the period's end, but ${expected}`
          : `The report names no stop-work order in effect at the period's end, but ${expected}`,
      ),
    ];
  }
  if (!named || !inEffect) return [];
  const b = bodies.get(inEffect.id)!;
  return differences(
    `The stop-work order in effect at the period's end, ${orderName(named.id, b, w)}`,
    'stopWorkInEffect',
    pairsOf(IN_EFFECT, named, b),
    { compare: 'all', sentence: 'differs' },
    w,
  );
}
