/**
 * The storm rule's state and its events: the window's readings (`window.ts`), what the pruned ones left,
 * the events as last reported with their alert status; the parameters the events were derived with;
 * snapshots and records of an event, and the successor of an event that late data changed.
 */
import type { SiteFacts } from '../context.ts';
import type { SiteStateHead } from '../state.ts';
import type { RuleContext, StormEvent } from '../types.ts';
import { DAY, deviceLabel, deviceOf, HOUR, MINUTE, round6 } from '../util.ts';
import type { Params } from './params.ts';
import { type EntryContext, NANO, nanoInches, type StormWindow } from './window.ts';

export const RULE = 'storm-inspection' as const;

export const STORM_WINDOW_MS = 14 * DAY;

export interface Segment {
  start: number;
  end: number;
  tips: number;
  /**
   * Its depth in nano-inches, each reading's tips at the calibration in force at that reading's time
   * (absent in a state of an earlier release: tips x inchesPerTip, `depthN`).
   */
  inN?: number;
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
  /**
   * While its alert is held (late data still settling): the key of the closed alert of a storm it took
   * over, which its alert is closed with once opened.
   */
  inherit?: string;
}

/** The version of the state this release stores (`index.ts` upgrades older ones: `upgrade.ts`). */
export const STORM_STATE_VERSION = 2;

export interface StormState extends Omit<SiteStateHead, 'v'> {
  v: typeof STORM_STATE_VERSION;
  deviceId: string;
  /** Recent rain readings, sorted by source ts, unique ts, in chunks (`window.ts`). */
  win: StormWindow;
  /**
   * What the pruned readings left: the last counter value, the last pruned ts, and the interval rain
   * in total (nano-inches, counted from the gauge's first interval reading).
   */
  base: EntryContext;
  /** The last event of the pruned readings, when data after `base.ts` could still extend it. */
  carry: Segment | null;
  /** Newest source ts of any reading from the gauge, and how late that reading arrived (receivedAt - ts). */
  newestTs: number | null;
  newestDelay: number;
  /** Newest time known to have passed: newest reading ts or tick. Events end + gap <= horizon are closed. */
  horizon: number | null;
  /**
   * The events as last reported, with their alert status: the frozen ones (pruned, alert still open)
   * first, then those of the window, which are always what the window's readings give (`fold.ts`).
   */
  events: StormSnapshot[];
  /** The parameters `events` were derived with (`derivationKey`): other ones derive them all again. */
  derivedWith: string;
  inspections: Array<{ at: number; id: string; kind: string; inspector: string }>;
  /** Readings too old for the window: not counted. */
  late: { dropped: number; lastTs: number | null };
  /**
   * While the gauge delivers late data (`evaluator.ts`): when the last such reading arrived. New storm
   * alerts wait until `settleMinutes` after it.
   */
  held: { lastAt: number } | null;
}

export interface Cfg {
  siteId: string;
  deviceId: string;
  label: string;
  /** The gauge's calibration in force now (inches per tip). */
  ipt: number | undefined;
  /** The calibration in force at a source time: earlier ones before their `until`, else `ipt`. */
  iptAt(ts: number): number;
  /** Earlier calibrations (`until`, inches per tip), oldest first; [] for a gauge never recalibrated. */
  calibrations: ReadonlyArray<{ until: number; inchesPerTip: number }>;
  thresholdIn: number;
  /** The threshold in tips at `ipt` (shown in an alert); crossing is decided on depth: `thrN`. */
  thrTips: number;
  /** The threshold in nano-inches. */
  thrN: number;
  gapMs: number;
  dueMs: number;
  dueHours: number;
  dueFrom: 'end' | 'threshold';
  alerts: boolean;
  tz: string;
  /** How long late data must have stopped before the storms it made raise their alerts (0: at once). */
  settleMs: number;
}

/** The threshold in whole tips: the smallest tip count whose depth reaches thresholdIn. */
export function thresholdTips(thresholdIn: number, inchesPerTip: number): number {
  return Math.max(1, Math.ceil(thresholdIn / inchesPerTip - 1e-9));
}

export function cfgOf(state: StormState, ctx: RuleContext<Params>): Cfg {
  const site = ctx.site;
  const device = deviceOf(site, state.deviceId);
  const ipt = device?.inchesPerTip;
  const calibrations = device?.calibrations ?? [];
  return {
    siteId: state.siteId,
    deviceId: state.deviceId,
    label: deviceLabel(site, state.deviceId),
    ipt,
    iptAt: calibrations.length
      ? (ts) => calibrations.find((c) => ts < c.until)?.inchesPerTip ?? ipt ?? 0
      : () => ipt ?? 0,
    calibrations,
    thresholdIn: site.storm.thresholdIn,
    thrTips: ipt ? thresholdTips(site.storm.thresholdIn, ipt) : Number.POSITIVE_INFINITY,
    thrN: nanoInches(site.storm.thresholdIn),
    gapMs: site.storm.interEventHours * HOUR,
    dueMs: site.storm.dueHours * HOUR,
    dueHours: site.storm.dueHours,
    dueFrom: site.storm.dueFrom,
    alerts: stormAlertsEnabled(site),
    tz: ctx.timezone,
    settleMs: site.storm.settleMinutes * MINUTE,
  };
}

/** What the events and their alerts depend on: when it changes, every event is derived again. */
export function derivationKey(cfg: Cfg): string {
  const cal = cfg.calibrations.length ? [cfg.calibrations.map((c) => [c.until, c.inchesPerTip])] : [];
  // 'exact': interval rain counted at its exact depth (a state derived in tips is derived again).
  return JSON.stringify([
    'exact',
    cfg.ipt ?? null,
    cfg.thrTips,
    cfg.gapMs,
    cfg.dueMs,
    cfg.dueFrom,
    cfg.alerts,
    ...cal,
  ]);
}

export function stormAlertsEnabled(site: Pick<SiteFacts, 'kind' | 'active'>): boolean {
  return site.kind === 'construction' && site.active;
}

export function windowMs(cfg: Cfg): number {
  return Math.max(STORM_WINDOW_MS, 4 * cfg.gapMs);
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

/** A reading's tips in nano-inches, at the calibration in force at its time. */
export function tipsN(tips: number, ts: number, cfg: Cfg): number {
  return tips * nanoInches(cfg.iptAt(ts));
}

/** An event's depth in nano-inches (one of a state of an earlier release: its tips at today's calibration). */
export function depthN(s: Segment, cfg: Cfg): number {
  return s.inN ?? s.tips * nanoInches(cfg.ipt ?? 0);
}

/** An event's depth in inches. */
export function inchesOf(s: Segment, cfg: Cfg): number {
  return round6(depthN(s, cfg) / NANO);
}

export function stormEvent(s: StormSnapshot, cfg: Cfg, supersededBy?: string): StormEvent {
  const ev: StormEvent = {
    id: s.id,
    siteId: cfg.siteId,
    deviceId: cfg.deviceId,
    start: s.start,
    end: s.end,
    tips: s.tips,
    inches: inchesOf(s, cfg),
    qualified: s.thresholdAt !== null,
    closed: supersededBy !== undefined ? true : s.closed,
  };
  if (s.thresholdAt !== null) ev.thresholdAt = s.thresholdAt;
  if (s.dueAt !== null) ev.dueAt = s.dueAt;
  if (supersededBy !== undefined) ev.supersededBy = supersededBy;
  // What the totals were computed with, so the logged record can be checked against its readings.
  // A recalibrated gauge's record also carries its earlier calibrations, reading by reading.
  if (cfg.ipt !== undefined)
    ev.basis = {
      inchesPerTip: cfg.ipt,
      thresholdIn: cfg.thresholdIn,
      ...(cfg.calibrations.length ? { calibrations: cfg.calibrations.map((c) => ({ ...c })) } : {}),
    };
  return ev;
}

export function changed(a: StormSnapshot, b: StormSnapshot): boolean {
  return (
    a.start !== b.start ||
    a.end !== b.end ||
    a.tips !== b.tips ||
    (a.inN !== undefined && b.inN !== undefined && a.inN !== b.inN) ||
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
