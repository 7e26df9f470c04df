/**
 * The storm alert's content: its evidence and message, its `open` effect (for raising it and for moving
 * its crossing), and the resolution by an inspection that follows the storm: made after its last tip,
 * once the storm has ended (dry for `interEventHours`). An inspection made while it still rained is shown
 * with the storm, with the rain so far, and meets nothing.
 */
import { openAlert, resolveAlert } from '../effects.ts';
import type { Effect } from '../types.ts';
import { formatLocal, HOUR, iso, round6 } from '../util.ts';
import { type Cfg, depthN, inchesOf, RULE, type StormSnapshot, type StormState } from './events.ts';
import { rainOf } from './fold.ts';
import { after, contextAt, entryAt, NANO, nextPos, seek } from './window.ts';

export type StormInspection = StormState['inspections'][number];

/** An inspection made while the storm still rained, with the storm's rain by then (null: its readings are pruned). */
export interface InspectedDuring {
  insp: StormInspection;
  inches: number | null;
}

/** What the inspections on record say of a storm: those made while it rained, and one after its last tip. */
export interface StormInspections {
  during: InspectedDuring[];
  /** The first inspection after the last tip while the storm has not ended yet (it meets the duty once it has). */
  awaiting?: StormInspection;
}

/**
 * The first inspection that meets the storm's duty: made after its last tip (an inspection at the
 * instant of the last tip was made while it rained), once the storm has ended. A frozen storm (its
 * readings pruned, a dry gap after them) has ended.
 */
export function coveringInspection(state: StormState, s: StormSnapshot): StormInspection | undefined {
  if (!s.closed && !s.frozen) return undefined;
  return state.inspections.find((i) => i.at > s.end);
}

/** The storm's rain from its first tip to `t` (its readings up to `t`), in nano-inches; null when pruned. */
function depthAtN(state: StormState, cfg: Cfg, s: StormSnapshot, t: number): number | null {
  if (s.frozen) return null;
  const w = state.win;
  let n = state.carry?.start === s.start ? depthN(state.carry, cfg) : 0;
  let p = seek(w, s.start);
  let ctx = contextAt(w, p);
  for (let e = entryAt(w, p); e && e[0] <= t; p = nextPos(w, p), e = entryAt(w, p)) {
    n += rainOf(ctx, e, cfg).n;
    ctx = after(ctx, e);
  }
  return n;
}

/**
 * The inspections of a storm: those made from its first tip to its last (the rain by then read from the
 * window only when there is one, so a storm without them costs nothing), and the one awaiting its end.
 */
export function inspectionsOf(state: StormState, cfg: Cfg, s: StormSnapshot): StormInspections {
  const during: InspectedDuring[] = [];
  let awaiting: StormInspection | undefined;
  for (const i of state.inspections) {
    if (i.at < s.start) continue;
    if (i.at <= s.end) {
      const n = depthAtN(state, cfg, s, i.at);
      during.push({ insp: i, inches: n === null ? null : round6(n / NANO) });
    } else if (!s.closed && !s.frozen) {
      awaiting = i;
      break;
    } else break;
  }
  return awaiting ? { during, awaiting } : { during };
}

export function evidence(
  s: StormSnapshot,
  cfg: Cfg,
  insps: StormInspections = { during: [] },
): Record<string, unknown> {
  const e: Record<string, unknown> = {
    eventId: s.id,
    deviceId: cfg.deviceId,
    start: iso(s.start),
    end: iso(s.end),
    tips: s.tips,
    inches: inchesOf(s, cfg),
    inchesPerTip: cfg.ipt,
    thresholdIn: cfg.thresholdIn,
    thresholdTips: cfg.thrTips,
    dueFrom: cfg.dueFrom,
    dueHours: cfg.dueHours,
    closed: s.closed,
  };
  if (s.thresholdAt !== null) e.thresholdAt = iso(s.thresholdAt);
  if (s.crossingReceivedAt !== null) e.crossingReceivedAt = iso(s.crossingReceivedAt);
  if (s.dueAt !== null) e.dueAt = iso(s.dueAt);
  if (s.uncertainAt !== null)
    e.timingUncertain = {
      readingAt: iso(s.uncertainAt),
      note: `a reading after a silence of ${cfg.gapMs / HOUR} h or more reported several tips at once; they may have fallen earlier`,
    };
  if (insps.during.length)
    e.inspectedDuring = insps.during.map((d) => ({
      inspectionId: d.insp.id,
      inspectedAt: iso(d.insp.at),
      inches: d.inches,
    }));
  if (insps.awaiting)
    e.inspectedAfterLastTip = { inspectionId: insps.awaiting.id, inspectedAt: iso(insps.awaiting.at) };
  return e;
}

/** "Inspected during the storm, at 0.65 in (Dec 7 10:00 AM, by J. Doe)": what the inspections say, in words. */
function inspectionWords(cfg: Cfg, insps: StormInspections): string {
  let out = '';
  for (const d of insps.during)
    out +=
      ` Inspected during the storm${d.inches === null ? '' : `, at ${d.inches.toFixed(2)} in`} ` +
      `(${formatLocal(d.insp.at, cfg.tz)}, by ${d.insp.inspector}): made while it still rained, it does not ` +
      'meet the duty; an inspection after the rain ends is still due.';
  if (insps.awaiting)
    out +=
      ` Inspected ${formatLocal(insps.awaiting.at, cfg.tz)} by ${insps.awaiting.inspector}, after the last ` +
      `tip: it meets the duty once no rain has fallen for ${cfg.gapMs / HOUR} h after it.`;
  return out;
}

export function message(s: StormSnapshot, cfg: Cfg, insps: StormInspections = { during: [] }): string {
  const inches = inchesOf(s, cfg).toFixed(2);
  const due =
    cfg.dueFrom === 'end'
      ? s.closed
        ? `${cfg.dueHours} h after the rain ended`
        : `${cfg.dueHours} h after the last tip; it moves while it still rains`
      : `${cfg.dueHours} h after the threshold was crossed`;
  return (
    `Storm at rain gauge ${cfg.label}: ${inches} in (${s.tips} tips) since ${formatLocal(s.start, cfg.tz)}` +
    `${s.closed ? `, ended ${formatLocal(s.end, cfg.tz)}` : ', still raining'}; reached ${cfg.thresholdIn} in at ` +
    `${formatLocal(s.thresholdAt!, cfg.tz)}. Erosion and sediment control inspection due by ` +
    `${formatLocal(s.dueAt!, cfg.tz)} (${due}).${inspectionWords(cfg, insps)}`
  );
}

/** The 'open' effect for a qualifying storm's alert: raises it, or updates it when late data moved the crossing. */
export function openEffect(
  s: StormSnapshot,
  cfg: Cfg,
  key: string,
  ev: Record<string, unknown>,
  insps: StormInspections = { during: [] },
): Effect<typeof RULE> {
  return openAlert(RULE, cfg, {
    key,
    at: s.thresholdAt!,
    dueAt: s.dueAt!,
    message: message(s, cfg, insps),
    evidence: ev,
  });
}

/** The alert's 'update' as its storm now stands (`at`: the source time of the change). */
export function updateEffect(
  s: StormSnapshot,
  cfg: Cfg,
  key: string,
  at: number,
  insps: StormInspections,
): Effect<typeof RULE> {
  return {
    type: 'update',
    key,
    at,
    dueAt: s.dueAt!,
    message: message(s, cfg, insps),
    evidence: evidence(s, cfg, insps),
  };
}

function inspectionEvidence(s: StormSnapshot, insp: StormInspection): Record<string, unknown> {
  return {
    eventId: s.id,
    inspectionId: insp.id,
    inspectionKind: insp.kind,
    inspector: insp.inspector,
    inspectedAt: iso(insp.at),
    thresholdAt: s.thresholdAt !== null ? iso(s.thresholdAt) : undefined,
    dueAt: s.dueAt !== null ? iso(s.dueAt) : undefined,
    // The due time is the last instant on time, as the engine counts every alert's.
    onTime: s.dueAt !== null ? insp.at <= s.dueAt : undefined,
  };
}

/** The resolution of a storm's alert by the inspection that follows it (`coveringInspection`). */
export function inspectedEffect(
  s: StormSnapshot,
  cfg: Cfg,
  key: string,
  insp: StormInspection,
): Effect<typeof RULE> {
  return resolveAlert(key, insp.at, {
    message: `Inspected ${formatLocal(insp.at, cfg.tz)} by ${insp.inspector}.`,
    evidence: inspectionEvidence(s, insp),
  });
}
