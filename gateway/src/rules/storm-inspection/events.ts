/**
 * Storm events derived from a rain gauge's recent readings: tip increments (counter or interval inches),
 * events split at dry gaps of `interEventHours`, their snapshots and records, and the successor of an
 * event that late data changed. Pure functions over the evaluator's state (`evaluator.ts`).
 */
import type { SiteConfig } from '../../config/schema.ts';
import type { DeviceStateHead } from '../state.ts';
import type { RuleContext, StormEvent } from '../types.ts';
import { DAY, deviceLabel, deviceOf, HOUR, round6 } from '../util.ts';

export const RULE = 'storm-inspection' as const;

export const STORM_WINDOW_MS = 14 * DAY;

/** A rain reading: [source ts, 0 = counter (rainTips) | 1 = interval inches (rainIn), value, receivedAt]. */
export type StormEntry = [number, 0 | 1, number, number];

export interface Segment {
  start: number;
  end: number;
  tips: number;
  thresholdAt: number | null;
  crossingReceivedAt: number | null;
  /** Source ts of the first reading in the event that reported several tips after a long silence. */
  uncertainAt: number | null;
}

export type StormAlertStatus = 'none' | 'open' | 'closed' | 'withdrawn';

export interface StormSnapshot extends Segment {
  id: string;
  dueAt: number | null;
  closed: boolean;
  alert: StormAlertStatus;
  /** The key of the event's alert, once one was opened. */
  alertKey: string | null;
  /** Pruned from the window but its alert is still open. */
  frozen?: boolean;
}

export interface StormState extends DeviceStateHead {
  /** Recent rain readings, sorted by source ts, unique ts. */
  win: StormEntry[];
  /** What the pruned readings left: the last counter value, the last pruned ts, and unconverted inches. */
  base: { counter: number | null; ts: number | null; residueIn: number };
  /** The last event of the pruned readings, when data after `base.ts` could still extend it. */
  carry: Segment | null;
  /** Newest source ts of any reading from the gauge, and how late that reading arrived (receivedAt - ts). */
  newestTs: number | null;
  newestDelay: number;
  /** Newest time known to have passed: newest reading ts or tick. Events end + gap <= horizon are closed. */
  horizon: number | null;
  /** The events as last reported, with their alert status. */
  events: StormSnapshot[];
  inspections: Array<{ at: number; id: string; kind: string; inspector: string }>;
  /** Readings too old for the window: not counted. */
  late: { dropped: number; lastTs: number | null };
}

export interface Cfg {
  siteId: string;
  deviceId: string;
  label: string;
  ipt: number | undefined;
  thresholdIn: number;
  thrTips: number;
  gapMs: number;
  dueMs: number;
  dueHours: number;
  dueFrom: 'end' | 'threshold';
  alerts: boolean;
  tz: string;
}

/** The threshold in whole tips: the smallest tip count whose depth reaches thresholdIn. */
export function thresholdTips(thresholdIn: number, inchesPerTip: number): number {
  return Math.max(1, Math.ceil(thresholdIn / inchesPerTip - 1e-9));
}

export function cfgOf(state: StormState, ctx: RuleContext): Cfg {
  const site = ctx.site;
  const ipt = deviceOf(site, state.deviceId)?.inchesPerTip;
  return {
    siteId: state.siteId,
    deviceId: state.deviceId,
    label: deviceLabel(site, state.deviceId),
    ipt,
    thresholdIn: site.storm.thresholdIn,
    thrTips: ipt ? thresholdTips(site.storm.thresholdIn, ipt) : Number.POSITIVE_INFINITY,
    gapMs: site.storm.interEventHours * HOUR,
    dueMs: site.storm.dueHours * HOUR,
    dueHours: site.storm.dueHours,
    dueFrom: site.storm.dueFrom,
    alerts: stormAlertsEnabled(site),
    tz: ctx.timezone,
  };
}

export function stormAlertsEnabled(site: SiteConfig): boolean {
  return site.kind === 'construction' && site.active;
}

export function windowMs(cfg: Cfg): number {
  return Math.max(STORM_WINDOW_MS, 4 * cfg.gapMs);
}

type Increment = [ts: number, tips: number, uncertain: boolean, receivedAt: number];

/** Tip increments of `entries` (sorted) following `base`; returns them and the base after them. */
export function increments(
  entries: readonly StormEntry[],
  base: StormState['base'],
  ipt: number,
  gapMs: number,
): { incs: Increment[]; base: StormState['base'] } {
  const incs: Increment[] = [];
  let counter = base.counter;
  let prevTs = base.ts;
  let sumIn = base.residueIn;
  let inTips = 0;
  for (const [ts, kind, value, rec] of entries) {
    let inc = 0;
    if (kind === 0) {
      if (counter !== null) inc = value >= counter ? value - counter : value;
      counter = value;
    } else {
      sumIn += value;
      const t = Math.round(sumIn / ipt);
      inc = t - inTips;
      inTips = t;
    }
    if (inc > 0) incs.push([ts, inc, inc > 1 && prevTs !== null && ts - prevTs >= gapMs, rec]);
    prevTs = ts;
  }
  return { incs, base: { counter, ts: prevTs, residueIn: sumIn - inTips * ipt } };
}

/** Splits increments into events at dry gaps >= gapMs, continuing `carry`. */
export function segments(carry: Segment | null, incs: readonly Increment[], cfg: Cfg): Segment[] {
  const out: Segment[] = [];
  let cur: Segment | null = carry ? { ...carry } : null;
  for (const [ts, inc, uncertain, rec] of incs) {
    if (cur && ts - cur.end < cfg.gapMs) {
      cur.tips += inc;
      cur.end = ts;
    } else {
      if (cur) out.push(cur);
      cur = { start: ts, end: ts, tips: inc, thresholdAt: null, crossingReceivedAt: null, uncertainAt: null };
    }
    if (uncertain && cur.uncertainAt === null) cur.uncertainAt = ts;
    if (cur.thresholdAt === null && cur.tips >= cfg.thrTips) {
      cur.thresholdAt = ts;
      cur.crossingReceivedAt = rec;
    }
  }
  if (cur) out.push(cur);
  return out;
}

export function eventId(cfg: Cfg, start: number): string {
  return `${cfg.siteId}:${cfg.deviceId}:${start}`;
}

/** The key of a storm's alert: the rule and the event's id (which names the site and the gauge). */
export function stormAlertKey(eventId: string): string {
  return `${RULE}:${eventId}`;
}

export function snapshot(seg: Segment, cfg: Cfg, horizon: number | null): StormSnapshot {
  const qualified = seg.thresholdAt !== null;
  const dueAt = qualified ? (cfg.dueFrom === 'threshold' ? seg.thresholdAt! : seg.end) + cfg.dueMs : null;
  return {
    ...seg,
    id: eventId(cfg, seg.start),
    dueAt,
    closed: horizon !== null && horizon - seg.end >= cfg.gapMs,
    alert: 'none',
    alertKey: null,
  };
}

export function inchesOf(tips: number, cfg: Cfg): number {
  return round6(tips * (cfg.ipt ?? 0));
}

export function stormEvent(s: StormSnapshot, cfg: Cfg, supersededBy?: string): StormEvent {
  const ev: StormEvent = {
    id: s.id,
    siteId: cfg.siteId,
    deviceId: cfg.deviceId,
    start: s.start,
    end: s.end,
    tips: s.tips,
    inches: inchesOf(s.tips, cfg),
    qualified: s.thresholdAt !== null,
    closed: supersededBy !== undefined ? true : s.closed,
  };
  if (s.thresholdAt !== null) ev.thresholdAt = s.thresholdAt;
  if (s.dueAt !== null) ev.dueAt = s.dueAt;
  if (supersededBy !== undefined) ev.supersededBy = supersededBy;
  // What the totals were computed with, so the logged record can be checked against its readings.
  if (cfg.ipt !== undefined) ev.basis = { inchesPerTip: cfg.ipt, thresholdIn: cfg.thresholdIn };
  return ev;
}

export function changed(a: StormSnapshot, b: StormSnapshot): boolean {
  return (
    a.start !== b.start ||
    a.end !== b.end ||
    a.tips !== b.tips ||
    a.thresholdAt !== b.thresholdAt ||
    a.dueAt !== b.dueAt ||
    a.closed !== b.closed
  );
}

/** Picks the event that took over `old`: the one within a dry gap of it, the largest overlap, else the nearest. */
export function successorOf(
  old: StormSnapshot,
  current: readonly StormSnapshot[],
  gapMs: number,
): StormSnapshot | null {
  let best: StormSnapshot | null = null;
  let bestScore = Number.NEGATIVE_INFINITY;
  for (const c of current) {
    const overlap = Math.min(old.end, c.end) - Math.max(old.start, c.start); // negative: distance apart
    const score = overlap > -gapMs ? overlap : overlap - 1e15;
    if (score > bestScore) {
      bestScore = score;
      best = c;
    }
  }
  return best;
}
