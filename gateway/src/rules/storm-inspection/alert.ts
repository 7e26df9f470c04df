/**
 * The storm alert's content: its evidence and message, its `open` effect (for raising it and for moving
 * its crossing), and the resolution by an inspection at or after the crossing.
 */
import { openAlert, resolveAlert } from '../effects.ts';
import type { Effect } from '../types.ts';
import { formatLocal, HOUR, iso } from '../util.ts';
import { type Cfg, inchesOf, RULE, type StormSnapshot, type StormState } from './events.ts';

export type StormInspection = StormState['inspections'][number];

export function evidence(s: StormSnapshot, cfg: Cfg): Record<string, unknown> {
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
  return e;
}

export function message(s: StormSnapshot, cfg: Cfg): string {
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
    `${formatLocal(s.dueAt!, cfg.tz)} (${due}).`
  );
}

/** The 'open' effect for a qualifying storm's alert: raises it, or updates it when late data moved the crossing. */
export function openEffect(
  s: StormSnapshot,
  cfg: Cfg,
  key: string,
  ev: Record<string, unknown>,
): Effect<typeof RULE> {
  return openAlert(RULE, cfg, {
    key,
    at: s.thresholdAt!,
    dueAt: s.dueAt!,
    message: message(s, cfg),
    evidence: ev,
  });
}

export function coveringInspection(state: StormState, at: number) {
  return state.inspections.find((i) => i.at >= at);
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
    onTime: s.dueAt !== null ? insp.at <= s.dueAt : undefined,
  };
}

/** The resolution of a storm's alert by an inspection at or after its crossing. */
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
