/**
 * The verifier's checks of a report's stop-work orders (town law 001, "Enforcement") against the records
 * it cites: each listed order says what its logged record says (why, the notices it names, since when, by
 * whom) and its lifting what the lifting's record says (when, by whom, the note, with an override or not);
 * an order lifted without an override names only notices approved before the lifting; a lifting logged
 * before the period's end is not left out; the site's orders are numbered without a gap (`siteSeq`) and
 * every one issued in the period is listed; the order the report names as in effect at the period's end
 * is the one not lifted by then. Pure, no Node API (it is bundled into verify.html).
 */

import type { CitedBody } from './shown.ts';
import {
  differ,
  type EnfPair,
  list,
  loggedSteps,
  noticeName,
  periodOf,
  type ShownStopWork,
} from './violations.ts';
import { capital, numbering, type Problem, problem, type Words, when } from './words.ts';

type Json = Record<string, unknown>;

const t = (iso: string | undefined) => (iso ? Date.parse(iso) : undefined);

/** "the stop-work order no. 1 of Maple Ridge", by its logged number, or by its id when not cited. */
const orderName = (id: string, body: Json | undefined, w: Words): string =>
  typeof body?.siteSeq === 'number'
    ? `the stop-work order no. ${body.siteSeq} of ${w.site}`
    : `the stop-work order ${id} of ${w.site}`;

export function checkStopWork(
  r: {
    period?: { from: string; to: string };
    violations?: Array<{ id: string }>;
    stopWork?: ShownStopWork[];
    stopWorkInEffect?: { id: string; since: string; reason: string };
  },
  cited: (i: number | undefined) => CitedBody | undefined,
  all: CitedBody[],
  w: Words,
): Problem[] {
  if (!r.stopWork && !all.some((e) => e.kind === 'stop-work')) return [];
  const out: Problem[] = [];
  const { from, to } = periodOf(r);
  const orders = r.stopWork ?? [];
  /** The logged lifting of an order before the period's end. */
  const liftOf = (id: string) =>
    all.find((e) => e.kind === 'stop-work-event' && e.body.orderId === id && (e.body.at as number) < to);
  const bodies = new Map<string, Json>();

  orders.forEach((o, i) => {
    const base = `stopWork[${i}]`;
    const e = cited(o.logIndex);
    if (e?.kind !== 'stop-work') {
      out.push(
        problem(
          `${base}.logIndex`,
          `${capital(orderName(o.id, undefined, w))}: its log entry is not in the report`,
        ),
      );
      return;
    }
    const b = e.body;
    bodies.set(o.id, b);
    const where = capital(orderName(o.id, b, w));
    out.push(
      ...differ(
        where,
        base,
        [
          ['id', 'its number', o.id, b.id],
          ['siteId', 'its site', o.siteId, b.siteId],
          ['reason', 'why it was issued', o.reason, b.reason],
          [
            'violationIds',
            'the list of the notices of violation it names',
            list(o.violationIds),
            list(b.violationIds ?? []),
          ],
          ['since', 'the time it was issued', t(o.since), b.at, 'time'],
          ['issuedBy', 'who issued it', o.issuedBy, b.issuedBy],
        ],
        w,
      ),
    );

    // Its lifting: the one shown is its logged lifting; a logged one is not left out.
    const logged = liftOf(o.id);
    const shownLifted = o.liftedAt !== undefined || o.liftLogIndex !== undefined;
    if (shownLifted) {
      const c = cited(o.liftLogIndex);
      if (c?.kind !== 'stop-work-event' || c.body.orderId !== o.id)
        out.push(
          problem(`${base}.liftLogIndex`, `${where}: the log entry of its lifting is not in the report`),
        );
      else {
        const pairs: EnfPair[] = [
          ['liftedAt', 'the time it was lifted', t(o.liftedAt), c.body.at, 'time'],
          ['liftedBy', 'who lifted it', o.liftedBy, c.body.by],
          ['liftNote', 'the note of its lifting', o.liftNote, c.body.note],
          ['override', 'whether it was lifted with an override', o.override ?? false, c.body.override],
        ];
        out.push(...differ(where, base, pairs, w));
      }
    } else if (logged)
      out.push(
        problem(
          `${base}.liftedAt`,
          `${where}: the report shows it in effect, but its lifting ${when(logged.body.at, w)} by ${String(logged.body.by)} is logged (log entry ${logged.index})`,
        ),
      );

    // Lifted without an override (as logged, or as the report says): every notice it names was approved.
    const lift = logged ?? (shownLifted ? cited(o.liftLogIndex) : undefined);
    const liftAt = (lift?.body.at as number | undefined) ?? t(o.liftedAt);
    const noOverride = (lift !== undefined && lift.body.override !== true) || (shownLifted && !o.override);
    if (liftAt !== undefined && noOverride)
      for (const id of (b.violationIds ?? []) as string[]) {
        const notice = all.find((x) => x.kind === 'violation' && x.body.id === id);
        if (!notice) {
          out.push(
            problem(
              `${base}.violationIds`,
              `${where}: it names the notice of violation ${id}, which the report does not carry`,
            ),
          );
          continue;
        }
        // A notice not listed was approved before the period (else it is listed: checkEnforcement).
        if (!(r.violations ?? []).some((v) => v.id === id)) continue;
        const approved = loggedSteps(id, all, to).find((s) => s.body.kind === 'approved');
        if (!approved || (approved.body.at as number) > liftAt)
          out.push(
            problem(
              `${base}.override`,
              `${where}: it was lifted ${when(liftAt, w)} without an override, but ${noticeName(id, notice.body, w)} it names was not approved before then`,
            ),
          );
      }
  });

  const logged = all.filter((e) => e.kind === 'stop-work');
  out.push(...numbering(logged, 'stopWork', ['stop-work order', 'stop-work orders'], w));
  const listed = new Set(orders.map((o) => o.logIndex));
  for (const e of logged) {
    const at = e.body.at as number;
    if (at >= from && at < to && !listed.has(e.index))
      out.push(
        problem(
          'stopWork',
          `${capital(orderName(String(e.body.id), e.body, w))}, issued ${when(at, w)} (log entry ${e.index}), is in the report's period but the report does not list it`,
        ),
      );
  }

  // The order in effect at the period's end: the last listed one not lifted by then.
  const inEffect = orders.filter((o) => bodies.has(o.id) && !liftOf(o.id)).at(-1);
  const named = r.stopWorkInEffect;
  if (named?.id !== inEffect?.id) {
    const expected = inEffect
      ? `${orderName(inEffect.id, bodies.get(inEffect.id), w)} was not lifted by then`
      : 'no order was in effect then';
    out.push(
      problem(
        'stopWorkInEffect',
        named
          ? `The report names ${orderName(named.id, bodies.get(named.id), w)} as in effect at the period's end, but ${expected}`
          : `The report names no stop-work order in effect at the period's end, but ${expected}`,
      ),
    );
  } else if (named && inEffect) {
    const b = bodies.get(inEffect.id)!;
    out.push(
      ...differ(
        `The stop-work order in effect at the period's end, ${orderName(named.id, b, w)}`,
        'stopWorkInEffect',
        [
          ['since', 'the time it was issued', t(named.since), b.at, 'time'],
          ['reason', 'why it was issued', named.reason, b.reason],
        ],
        w,
      ),
    );
  }
  return out;
}
