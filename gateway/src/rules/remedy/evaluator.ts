/**
 * `equipment-remedy` and `field-remedy`: on an alternative system, a fault must be remedied within
 * `equipmentRemedyDays` (5) when it concerns equipment and within `fieldRemedyDays` (30) when it concerns
 * the absorption field (law 000, 5.030 B 1 d). One evaluator per septic panel (or septic tank with alarm
 * inputs); each input is debounced in source time (../hold.ts). Its alerts, late data and edge cases:
 * README.md in this folder.
 */
import { withinDays } from '../../../../shared/src/days.ts';
import { ALARM_NAMES, type AlarmName } from '../../../../shared/src/telemetry.ts';
import { alertKey, openAlert, resolveAlert } from '../effects.ts';
import {
  addSample,
  type BoolTrack,
  copyTrack,
  episodesOf,
  type HeldEpisode,
  newestTs,
  newTrack,
  pruneTrack,
} from '../hold.ts';
import { type DeviceStateHead, deviceState } from '../state.ts';
import type { Effect, Evaluator, RuleContext, RuleInput } from '../types.ts';
import { DAY, deviceLabel, dueBefore, formatDuration, formatLocal, iso, SECOND } from '../util.ts';
import type { Params } from './params.ts';

/** The two rules: equipment faults (5 days to remedy) and absorption-field faults (30 days). */
export const RULES = ['equipment-remedy', 'field-remedy'] as const;
export type RemedyRule = (typeof RULES)[number];

/** Samples kept per input: the last 7 days of source time, at most 3000. */
export const ALARM_WINDOW_MS = 7 * DAY;
export const ALARM_MAX_SAMPLES = 3000;

export const ALARM_LABELS: Record<AlarmName, string> = {
  pump: 'Pump',
  blower: 'Blower or aerator',
  panel: 'Control panel',
  highWater: 'High water',
  field: 'Absorption field',
};

export function alarmRule(name: AlarmName): RemedyRule {
  return name === 'field' ? RULES[1] : RULES[0];
}

type Status = 'open' | 'resolved' | 'closed';
interface EpisodeSnap {
  /** The episode's key (rule, site, device, input, begin). */
  key: string;
  /** The key of its current alert: the episode key, or a derived one after a reopen. */
  alertKey: string;
  reopens: number;
  began: number;
  remedied: number | null;
  alert: Status;
}
interface InputState {
  track: BoolTrack;
  episodes: EpisodeSnap[];
}

/**
 * The state's version: 2 counts the remedy days as the law counts days (the 5th or 30th local day after
 * the alarm's day, whole); version 1 gave began + 5 x 24 h. `upgradeAlarmState` marks a version 1 state
 * `recount`: its open alerts get the due time counted so at the next tick.
 */
export const ALARM_STATE_VERSION = 2;

export interface AlarmState extends Omit<DeviceStateHead, 'v'> {
  v: typeof ALARM_STATE_VERSION;
  /** Upgraded from version 1: the open alerts' due times are to be counted again (at the next tick). */
  recount?: true;
  tickHorizon: number | null;
  inputs: Partial<Record<AlarmName, InputState>>;
}

/**
 * The remedy deadline of an episode: the days the law gives, counted from the day the alarm began (the
 * fault known), that day not counted and the last day whole, in the site's time zone
 * (`shared/src/days.ts`); the due time is the last instant of the last day.
 */
function deadline(
  name: AlarmName,
  ep: Pick<HeldEpisode, 'began'>,
  ctx: RuleContext<Params>,
): { days: number; dueAt: number } {
  const days = name === 'field' ? ctx.site.fieldRemedyDays : ctx.site.equipmentRemedyDays;
  return { days, dueAt: dueBefore(withinDays(ep.began, days, ctx.timezone)) };
}

function keyOf(state: AlarmState, name: AlarmName, began: number): string {
  return alertKey(alarmRule(name), state, name, began);
}

/** One input of one panel, as the effects of its episodes name it. */
interface InputRef {
  state: AlarmState;
  name: AlarmName;
  ctx: RuleContext<Params>;
}

function openEffect(
  { state, name, ctx }: InputRef,
  ep: Pick<HeldEpisode, 'began'>,
  key: string,
): Effect<RemedyRule> {
  const { days, dueAt } = deadline(name, ep, ctx);
  const tz = ctx.timezone;
  return openAlert(alarmRule(name), state, {
    key,
    at: ep.began,
    dueAt,
    message:
      `${ALARM_LABELS[name]} alarm at ${deviceLabel(ctx.site, state.deviceId)} since ${formatLocal(ep.began, tz)}: ` +
      `remedy within ${days} days, by ${formatLocal(dueAt, tz)} (the day of the alarm not counted; law 000, 5.030 B 1 d; a licensed engineer's ` +
      `letter may extend this).`,
    evidence: {
      input: name,
      began: iso(ep.began),
      dueAt: iso(dueAt),
      remedyDays: days,
      holdSeconds: ctx.site.alarmHoldSeconds,
    },
  });
}

function resolveEffect({ state, name, ctx }: InputRef, ep: HeldEpisode, key: string): Effect<RemedyRule> {
  const remedied = ep.remedied!;
  const { days, dueAt } = deadline(name, ep, ctx);
  const within = remedied <= dueAt;
  return resolveAlert(key, remedied, {
    message:
      `${ALARM_LABELS[name]} alarm at ${deviceLabel(ctx.site, state.deviceId)} back to normal since ` +
      `${formatLocal(remedied, ctx.timezone)}, after ${formatDuration(remedied - ep.began)}: ` +
      `${within ? 'within' : 'NOT within'} the ${days}-day remedy deadline.`,
    evidence: {
      input: name,
      began: iso(ep.began),
      remedied: iso(remedied),
      dueAt: iso(dueAt),
      withinDeadline: within,
      durationSeconds: Math.round((remedied - ep.began) / SECOND),
      holdSeconds: ctx.site.alarmHoldSeconds,
    },
  });
}

function reconcileInput(
  state: AlarmState,
  name: AlarmName,
  ctx: RuleContext<Params>,
  effects: Effect<RemedyRule>[],
): void {
  const ref: InputRef = { state, name, ctx };
  const inp = state.inputs[name];
  if (!inp) return;
  const holdMs = ctx.site.alarmHoldSeconds * SECOND;
  const eps = episodesOf(inp.track, holdMs, state.tickHorizon);
  const prev = new Map(inp.episodes.map((e) => [e.key, e]));
  const keys = new Set(eps.map((e) => keyOf(state, name, e.began)));
  const next: EpisodeSnap[] = [];
  const inheritClosed = new Set<number>();
  const lower = ALARM_LABELS[name].toLowerCase();

  for (const old of inp.episodes) {
    if (keys.has(old.key)) continue;
    // The episode is gone: late data showed the run did not hold, or moved its begin.
    const succ = eps.find((e) => e.began <= old.began && (e.remedied === null || e.remedied > old.began));
    if (old.alert === 'open') {
      effects.push({
        type: 'resolve',
        key: old.alertKey,
        at: old.began,
        message: succ
          ? `Superseded: late data shows this ${lower} alarm began earlier, at ${formatLocal(succ.began, ctx.timezone)}.`
          : `Withdrawn: late data shows this ${lower} alarm did not hold for ${ctx.site.alarmHoldSeconds} s.`,
        evidence: succ
          ? { superseded: true, supersededBy: keyOf(state, name, succ.began), input: name }
          : { withdrawn: true, input: name, began: iso(old.began) },
      });
    } else if (old.alert === 'closed' && succ) inheritClosed.add(succ.began);
  }

  for (const ep of eps) {
    const key = keyOf(state, name, ep.began);
    const old = prev.get(key);
    let snap: EpisodeSnap;
    if (!old) {
      snap = { key, alertKey: key, began: ep.began, remedied: ep.remedied, alert: 'open', reopens: 0 };
      effects.push(openEffect(ref, ep, key));
      if (inheritClosed.has(ep.began)) {
        effects.push({
          type: 'resolve',
          key,
          at: ep.began,
          message: 'Closed by a person under its earlier key.',
          evidence: { input: name, inherited: true },
        });
        snap.alert = 'closed';
      }
    } else {
      snap = { ...old, remedied: ep.remedied };
      if (old.alert === 'resolved' && ep.remedied === null) {
        // A late sample showed the normal run did not hold: the fault is still on. The engine never
        // reopens a resolved alert, so this is a new alert under a derived key.
        snap.reopens = old.reopens + 1;
        snap.alertKey = `${key}:r${snap.reopens}`;
        const e = openEffect(ref, ep, snap.alertKey);
        if (e.type === 'open') e.evidence.reopened = true;
        effects.push(e);
        snap.alert = 'open';
      }
    }
    if (snap.alert === 'open' && ep.remedied !== null) {
      effects.push(resolveEffect(ref, ep, snap.alertKey));
      snap.alert = 'resolved';
    }
    next.push(snap);
  }
  inp.episodes = next;
}

function prune(state: AlarmState, name: AlarmName, ctx: RuleContext<Params>): void {
  const inp = state.inputs[name];
  if (!inp) return;
  const newest = newestTs(inp.track);
  if (newest === null) return;
  const final = new Set(
    pruneTrack(inp.track, ctx.site.alarmHoldSeconds * SECOND, newest - ALARM_WINDOW_MS, ALARM_MAX_SAMPLES),
  );
  if (final.size) inp.episodes = inp.episodes.filter((e) => !(final.has(e.began) && e.alert !== 'open'));
}

/** A copy the evaluator may change (samples are immutable tuples and are shared). */
function copyState(s: AlarmState): AlarmState {
  const inputs: AlarmState['inputs'] = {};
  for (const name of ALARM_NAMES) {
    const inp = s.inputs[name];
    if (!inp) continue;
    inputs[name] = {
      track: copyTrack(inp.track),
      episodes: inp.episodes.map((e) => ({ ...e })),
    };
  }
  return { ...s, inputs };
}

export const alarmEvaluator: Evaluator<AlarmState, RemedyRule, Params> = {
  rule: RULES,
  init(ctx: RuleContext<Params>, deviceId?: string): AlarmState {
    return {
      ...deviceState(RULES.join('+'), ctx, deviceId, { tickHorizon: null, inputs: {} }),
      v: ALARM_STATE_VERSION,
    };
  },
  evaluate(prev: AlarmState, input: RuleInput, ctx: RuleContext<Params>) {
    const effects: Effect<RemedyRule>[] = [];
    if (input.type === 'reading') {
      const r = input.reading;
      if (r.siteId !== prev.siteId || r.deviceId !== prev.deviceId || !r.alarms)
        return { state: prev, effects };
      const state = copyState(prev);
      for (const name of ALARM_NAMES) {
        const v = r.alarms[name];
        if (v === undefined) continue;
        let inp = state.inputs[name];
        if (!inp) {
          inp = { track: newTrack(), episodes: [] };
          state.inputs[name] = inp;
        }
        if (addSample(inp.track, r.ts, v, r.receivedAt) !== 'added') continue;
        reconcileInput(state, name, ctx, effects);
        prune(state, name, ctx);
      }
      return { state, effects };
    }
    if (input.type === 'tick') {
      if (prev.recount) return recount(prev, input.now, ctx);
      if (prev.tickHorizon !== null && input.now <= prev.tickHorizon) return { state: prev, effects };
      const state = copyState(prev);
      state.tickHorizon = input.now;
      for (const name of ALARM_NAMES) reconcileInput(state, name, ctx, effects);
      // A tick that confirms nothing changes nothing: keep the old state (no rewrite every minute).
      return effects.length ? { state, effects } : { state: prev, effects };
    }
    if (input.type === 'alert-closed') {
      for (const name of ALARM_NAMES) {
        const idx = prev.inputs[name]?.episodes.findIndex((e) => e.alertKey === input.key) ?? -1;
        if (idx < 0) continue;
        const state = copyState(prev);
        state.inputs[name]!.episodes[idx]!.alert = 'closed';
        return { state, effects };
      }
    }
    return { state: prev, effects };
  },
};

/**
 * The first tick after an upgrade from version 1: every open alert is opened again under its key with
 * its due time counted as the law counts days (the engine updates its due time; an engineer's extension
 * later than it stays).
 */
function recount(prev: AlarmState, now: number, ctx: RuleContext<Params>) {
  const { recount: _, ...rest } = copyState(prev);
  const state: AlarmState = { ...rest, tickHorizon: now };
  const effects: Effect<RemedyRule>[] = [];
  for (const name of ALARM_NAMES)
    for (const ep of state.inputs[name]?.episodes ?? [])
      if (ep.alert === 'open') effects.push(openEffect({ state, name, ctx }, ep, ep.alertKey));
  for (const name of ALARM_NAMES) reconcileInput(state, name, ctx, effects);
  return { state, effects };
}

/** A stored state of version 1 (remedy days of 24 h): taken as it is, its open alerts counted again. */
export function upgradeAlarmState(stored: unknown, from: number): AlarmState {
  if (from !== 1) throw new Error(`no upgrade of a remedy state from version ${from}`);
  return { ...(stored as Omit<AlarmState, 'v'>), v: ALARM_STATE_VERSION, recount: true };
}
