/**
 * The verifier's checks that a report's figures follow from the records it cites: each storm's totals
 * from its readings (at the calibration in force at each reading), whether it reached the threshold, its
 * inspection's status; each duty's due time and status from its history; and the summary from the rows. Every problem is a sentence and the field of the report's JSON it is about.
 * Pure, no Node API (bundled into verify.html).
 */
import { stormFields } from '../../../shared/src/api/alertFields.ts';
import type { StormBasis } from '../ledger/records.ts';
import { type CitedBody, differences, pairsOf } from './checker.ts';
import { meetsDeveloperDuty } from './inspected.ts';
import type { LongStormJson, ReportDuty, ReportJson, ReportStorm } from './reportJson.ts';
import type { DutyAt } from './shown.ts';
import {
  camelWords,
  capital,
  dutyWords,
  inches,
  type Problem,
  problem,
  statusWords,
  type Words,
  when,
} from './words.ts';

type Json = Record<string, unknown>;

const t = (iso: string | null | undefined) => (iso ? Date.parse(iso) : null);
const near = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** What a storm is called in a sentence: "Storm of Dec 2, 2026, 1:52 AM EST at site 'Maple Ridge'". */
export const stormWords = (s: { start: string; deviceId: string }, w: Words): string =>
  `Storm of ${when(t(s.start), w)} at site '${w.site}' (gauge ${s.deviceId})`;

/** What the report says of a long storm, whose readings it does not all carry, against its record. */
export function checkLongStorm(
  s: ReportStorm,
  l: LongStormJson,
  j: number,
  cited: (i: number | undefined) => CitedBody | undefined,
  w: Words,
): { problems: Problem[]; note: string } {
  const where = stormWords(s, w);
  const field = `evidence.longStorms[${j}]`;
  const out: Problem[] = [];
  const ends = [cited(l.first)?.body, cited(l.last)?.body];
  const rec = cited(s.logIndex)?.body;
  if (ends.some((b) => b?.type !== 'reading' || b.deviceId !== s.deviceId))
    out.push(problem(field, `${where}: its first and last readings are not in the report`));
  else if (rec && (ends[0]!.ts !== rec.start || ends[1]!.ts !== rec.end))
    out.push(
      problem(field, `${where}: its first and last readings in the report are not at its start and end`),
    );
  const count = (rec?.readings as { count?: number } | undefined)?.count;
  if (count !== l.readings)
    out.push(
      problem(
        `${field}.readings`,
        `${where}: the report says it rests on ${l.readings} readings, its logged record ${String(count ?? 'none')}`,
      ),
    );
  const note = `${where}: its ${l.readings} readings are not all in the report; its totals are its logged record's, checked against the report but not added up again`;
  return { problems: out, note };
}

/** A storm: its record is cited and says what the report says; its totals follow from its readings. */
export function checkStorm(
  s: ReportStorm,
  i: number,
  rec: Json | undefined,
  readings: Json[],
  inspections: Json[],
  generatedAt: number,
  /** Its readings are not all cited (a long storm): its totals are checked against its record only. */
  long: boolean,
  w: Words,
): Problem[] {
  const where = stormWords(s, w);
  const at = `storms[${i}]`;
  if (!rec) return [problem(`${at}.logIndex`, `${where}: its logged record is not in the report`)];
  const out = differences(where, at, pairsOf(stormFields, s, rec), { compare: 'all', sentence: 'gives' }, w);
  const start = rec.start as number;
  const end = rec.end as number;
  const mine = readings
    .filter((r) => r.siteId === rec.siteId && r.deviceId === rec.deviceId)
    .sort((a, b) => (a.ts as number) - (b.ts as number));
  const within = mine.filter((r) => (r.ts as number) >= start && (r.ts as number) <= end);
  const n = within.length;
  const count = (rec.readings as { count?: number } | undefined)?.count;
  if (!long && count !== n)
    out.push(
      problem(
        at,
        `${where}: its logged record rests on ${String(count)} readings of its gauge, the report carries ${n}`,
      ),
    );
  const basis = rec.basis as StormBasis | undefined;
  const reached = (rec.inches as number) >= (basis?.thresholdIn ?? 0) - 1e-9;
  const qualifiedWrong = () =>
    problem(
      `${at}.qualified`,
      `${where}: its record says it ${rec.qualified ? 'reached' : 'did not reach'} the ${inches(basis?.thresholdIn)} threshold, at ${inches(rec.inches)}`,
    );
  if (basis && long) {
    // A counter's total is its tips at the calibration; interval rain's is its exact depth, which its
    // tips (the running total rounded to tips) are within one tip of.
    const off = Math.abs((rec.inches as number) - (rec.tips as number) * basis.inchesPerTip);
    if (off > basis.inchesPerTip + 1e-6 && !basis.calibrations)
      out.push(
        problem(
          `${at}.inches`,
          `${where}: at ${inches(basis.inchesPerTip)} a tip, its ${String(rec.tips)} tips are not ${inches(rec.inches)}`,
        ),
      );
    if (reached !== rec.qualified) out.push(qualifiedWrong());
  } else if (basis && n > 0) {
    const before = mine.filter((r) => (r.ts as number) < start).at(-1);
    // Each reading's tips at the calibration in force at its time (a recalibrated gauge lists the earlier ones).
    const iptAt = (ts: number) =>
      basis.calibrations?.find((c) => ts < c.until)?.inchesPerTip ?? basis.inchesPerTip;
    let tips = 0;
    let depth = 0;
    let rainIn = 0;
    let counter = (before?.values as Json | undefined)?.rainTips as number | undefined;
    for (const r of within) {
      const v = r.values as Json;
      if (typeof v.rainTips === 'number') {
        const d = counter === undefined ? 0 : v.rainTips >= counter ? v.rainTips - counter : v.rainTips;
        tips += d;
        depth += d * iptAt(r.ts as number);
        counter = v.rainTips;
      } else if (typeof v.rainIn === 'number') rainIn += v.rainIn;
    }
    if (rainIn > 0) {
      // Rain reported as depth is counted in whole tips of the running total: within one tip.
      if (Math.abs(rainIn / basis.inchesPerTip - (rec.tips as number)) > 1 + 1e-6)
        out.push(
          problem(
            `${at}.tips`,
            `${where}: its ${plural(n, 'reading')} hold ${inches(rainIn)}, not the ${String(rec.tips)} tips its record counts`,
          ),
        );
    } else if (tips !== rec.tips)
      out.push(
        problem(
          `${at}.tips`,
          `${where}: its ${plural(n, 'reading')} add up to ${tips} tips, its record counts ${String(rec.tips)}`,
        ),
      );
    // Interval rain counts at its exact depth (0.25 + 0.245 in is 0.495 in), never rounded to tips.
    const expected =
      rainIn > 0 ? depth + rainIn : !basis.calibrations ? (rec.tips as number) * basis.inchesPerTip : depth;
    if (!near(expected, rec.inches as number))
      out.push(
        problem(
          `${at}.inches`,
          `${where}: its total ${inches(rec.inches)} does not match its ${plural(n, 'reading')} (${inches(expected)})`,
        ),
      );
    if (reached !== rec.qualified) out.push(qualifiedWrong());
  }
  if (s.qualified) {
    // The inspection follows the storm: the first made after its last tip, once the storm has ended, of
    // the developer's side and covering every practice (`inspected.ts`).
    // Its due time is the last instant on time, as the engine counts an alert's (`resolved <= due`).
    const due = rec.dueAt as number | undefined;
    const met = rec.closed
      ? inspections
          .filter(
            (x) =>
              (x.at as number) > end && x.kind !== 'annual' && x.kind !== 'cleanout' && meetsDeveloperDuty(x),
          )
          .sort((a, b) => (a.at as number) - (b.at as number))[0]
      : undefined;
    const status = met
      ? due !== undefined && (met.at as number) > due
        ? 'late'
        : 'on-time'
      : due !== undefined && generatedAt > due
        ? 'missing'
        : 'pending';
    if (status !== s.inspection.status)
      out.push(
        problem(
          `${at}.inspection.status`,
          `${where}: by the inspections in the report its inspection is ${statusWords(status)}, the report says ${statusWords(s.inspection.status)}`,
        ),
      );
  }
  return out;
}

/** A duty: its status follows from its logged history (due times, extensions, the resolution). */
export function checkDuty(
  { d, at }: DutyAt<ReportDuty>,
  history: Array<CitedBody | undefined>,
  generatedAt: number,
  w: Words,
): Problem[] {
  const where = capital(dutyWords(d));
  if (history.length === 0 || history.some((h) => !h))
    return [problem(`${at}.historyIndexes`, `${where}: its history is not all in the report`)];
  let due: number | null = null;
  let resolvedAt: number | null = null;
  let within: boolean | undefined;
  let superseded = false;
  for (const h of history) {
    const b = h!.body;
    const detail = (b.detail ?? {}) as Json;
    if (b.alertId !== d.alertId)
      return [
        problem(`${at}.historyIndexes`, `${where}: the report gives it a history entry of another duty`),
      ];
    if (b.action === 'raised' || b.action === 'updated') {
      if ('dueAt' in detail) due = t(detail.dueAt as string | null);
    } else if (b.action === 'extended') due = t(detail.newDueAt as string);
    else if (b.action === 'resolved') {
      resolvedAt = t(detail.resolvedAt as string);
      within = detail.withinDeadline as boolean | undefined;
      // Closed because a record showed its clock ran from the wrong start: neither met nor missed.
      superseded = (detail.evidence as Json | undefined)?.superseded === true;
    }
  }
  const out: Problem[] = [];
  if (due !== t(d.dueAt))
    out.push(
      problem(
        `${at}.dueAt`,
        `${where}: its history gives the due time ${when(due, w)}, the report ${when(t(d.dueAt), w)}`,
      ),
    );
  if (resolvedAt !== t(d.resolvedAt))
    out.push(
      problem(
        `${at}.resolvedAt`,
        `${where}: its history gives the time it was resolved as ${when(resolvedAt, w)}, the report ${when(t(d.resolvedAt), w)}`,
      ),
    );
  const status =
    resolvedAt !== null && superseded
      ? 'superseded'
      : resolvedAt !== null
        ? due === null
          ? 'resolved'
          : within === false || resolvedAt > due
            ? 'late'
            : 'on-time'
        : due !== null && generatedAt > due
          ? d.pastDue
          : 'open';
  if (status !== d.status)
    out.push(
      problem(
        `${at}.status`,
        `${where}: by its history it is ${statusWords(status)}, the report says ${statusWords(d.status)}`,
      ),
    );
  return out;
}

/** The summary counts what the rows say. */
export function checkSummary(r: ReportJson, duties: ReportDuty[]): Problem[] {
  const q = r.storms.filter((s) => s.qualified);
  const storm = (st: string) => q.filter((s) => s.inspection.status === st).length;
  const duty = (st: string) => duties.filter((d) => d.duty && d.status === st).length;
  const expected: Record<string, number> = {
    storms: r.storms.length,
    qualifyingStorms: q.length,
    stormInspectionsOnTime: storm('on-time'),
    stormInspectionsLate: storm('late'),
    stormInspectionsMissing: storm('missing'),
    stormInspectionsPending: storm('pending'),
    inspections: r.inspections.length,
    dutiesOnTime: duty('on-time'),
    dutiesLate: duty('late'),
    dutiesMissing: duty('missing'),
    dutiesOverdue: duty('overdue'),
    dutiesOpen: duty('open'),
    gaps: r.gaps.length,
  };
  return Object.entries(expected)
    .filter(([k, v]) => r.summary[k] !== v)
    .map(([k, v]) =>
      problem(`summary.${k}`, `The summary counts ${r.summary[k]} ${camelWords(k)}, its rows ${v}`),
    );
}
