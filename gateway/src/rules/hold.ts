/**
 * Debounced boolean inputs (alarm floats, fault contacts), in source time, robust to late and
 * out-of-order samples.
 *
 * A track keeps the recent samples of one input sorted by source ts. Runs are maximal sequences of
 * samples with the same value. A run HOLDS when the evidence shows the input in that state for at least
 * `holdMs` of source time:
 * - the next contrary sample is `holdMs` or more after the run's first sample (a device that reports
 *   only on change: the state lasted until the change), or
 * - for the newest run: its last sample, or the newest tick (a device that reports only on change and
 *   is still in that state), is `holdMs` or more after its first sample.
 * A bouncing float (true/false every 10 s) never holds; true for 61 s holds, from the first true.
 *
 * An episode begins at the first sample of a held true run and ends (remedied) at the first sample of
 * the next held false run. Short runs in between (bounces) change nothing.
 *
 * Ticks are arrival time: a tick can confirm a run only while no contrary sample is known, and only up
 * to `now - delay`, where delay is how late the newest sample arrived (receivedAt - ts): a device whose
 * data arrives an hour late cannot have told us yet about the last hour. If a backlog
 * later shows a contrary sample within `holdMs`, the run did not hold after all and the episode derived
 * from it disappears (the caller withdraws its alert). Samples are derived again on every call, so the
 * same samples in any order give the same episodes (ticks aside).
 *
 * Bounded: samples older than the window are folded into `carry` (the episode state before the last
 * pruned run, and that run); a sample older than the newest pruned one is dropped and counted.
 *
 * The hold is one site parameter, `alarmHoldSeconds`, shared by every rule that debounces a float or a
 * fault contact (the remedy rules and the holding-tank rule): each declares `holdParams`.
 */
import { z } from 'zod';
import type { ParamWords } from '../../../shared/src/rules.ts';

/** The site parameter of every rule that debounces an input. */
export const holdParams = {
  alarmHoldSeconds: z
    .number()
    .min(0)
    .default(60)
    .describe('Seconds an alarm input must hold before it counts (a bouncing float counts nothing).'),
};

/** `alarmHoldSeconds` in words (GET /api/rules). */
export const holdWords: ParamWords = {
  param: 'alarmHoldSeconds',
  label: 'How long an alarm must hold before it counts',
  unit: 'seconds',
};

export type Sample = [ts: number, value: 0 | 1];
export interface Run {
  v: 0 | 1;
  first: number;
  last: number;
}
export interface HoldCarry {
  inEpisode: boolean;
  began: number | null;
  run: Run | null;
}
export interface BoolTrack {
  samples: Sample[];
  /** Samples at or before this ts are too late (already folded into carry). */
  floorTs: number | null;
  carry: HoldCarry;
  dropped: number;
  /** Arrival delay (receivedAt - ts) of the newest sample: how far behind the device's data arrives. */
  newestDelay: number;
}
export interface HeldEpisode {
  began: number;
  remedied: number | null;
}

export function newTrack(): BoolTrack {
  return {
    samples: [],
    floorTs: null,
    carry: { inEpisode: false, began: null, run: null },
    dropped: 0,
    newestDelay: 0,
  };
}

/** A copy of a track the caller may change: samples (immutable tuples) are shared, the rest copied. */
export function copyTrack(t: BoolTrack): BoolTrack {
  return {
    ...t,
    samples: t.samples.slice(),
    carry: { ...t.carry, run: t.carry.run ? { ...t.carry.run } : null },
  };
}

/** Adds a sample (mutates). The first sample at a given ts wins. */
export function addSample(
  track: BoolTrack,
  ts: number,
  value: boolean,
  receivedAt: number = ts,
): 'added' | 'duplicate' | 'late' {
  if (track.floorTs !== null && ts <= track.floorTs) {
    track.dropped++;
    return 'late';
  }
  const s = track.samples;
  const v: 0 | 1 = value ? 1 : 0;
  if (s.length === 0 || s[s.length - 1]![0] < ts) {
    s.push([ts, v]);
    track.newestDelay = Math.max(0, receivedAt - ts);
    return 'added';
  }
  let lo = 0;
  let hi = s.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (s[mid]![0] < ts) lo = mid + 1;
    else hi = mid;
  }
  if (s[lo]?.[0] === ts) return 'duplicate';
  s.splice(lo, 0, [ts, v]);
  return 'added';
}

function runsOf(carryRun: Run | null, samples: readonly Sample[]): Run[] {
  const runs: Run[] = carryRun ? [{ ...carryRun }] : [];
  for (const [ts, v] of samples) {
    const last = runs[runs.length - 1];
    if (last && last.v === v) last.last = ts;
    else runs.push({ v, first: ts, last: ts });
  }
  return runs;
}

function walk(
  runs: readonly Run[],
  start: { inEpisode: boolean; began: number | null },
  holdMs: number,
  tickHorizon: number | null,
  count: number,
): { episodes: HeldEpisode[]; inEpisode: boolean; began: number | null } {
  const episodes: HeldEpisode[] = [];
  let inEp = start.inEpisode;
  let began = start.began;
  if (inEp && began !== null) episodes.push({ began, remedied: null });
  for (let i = 0; i < count; i++) {
    const run = runs[i]!;
    const next = runs[i + 1];
    const reach = next ? next.first : Math.max(run.last, tickHorizon ?? run.last);
    const held = reach - run.first >= holdMs;
    if (!held) continue;
    if (!inEp && run.v === 1) {
      inEp = true;
      began = run.first;
      episodes.push({ began, remedied: null });
    } else if (inEp && run.v === 0) {
      inEp = false;
      episodes[episodes.length - 1]!.remedied = run.first;
      began = null;
    }
  }
  return { episodes, inEpisode: inEp, began };
}

/** The episodes the track's samples (and the newest tick) show, oldest first. */
export function episodesOf(track: BoolTrack, holdMs: number, tickHorizon: number | null): HeldEpisode[] {
  const runs = runsOf(track.carry.run, track.samples);
  const reach = tickHorizon === null ? null : tickHorizon - track.newestDelay;
  return walk(runs, track.carry, holdMs, reach, runs.length).episodes;
}

/** The newest source ts in the track. */
export function newestTs(track: BoolTrack): number | null {
  return track.samples[track.samples.length - 1]?.[0] ?? track.carry.run?.last ?? null;
}

/**
 * Folds samples older than `keepFromTs` (and beyond `maxSamples`) into the carry. Returns the begin
 * times of episodes that are now final (remedied within the folded part).
 */
export function pruneTrack(
  track: BoolTrack,
  holdMs: number,
  keepFromTs: number,
  maxSamples: number,
): number[] {
  const s = track.samples;
  let k = 0;
  while (k < s.length && s[k]![0] < keepFromTs) k++;
  if (s.length - k > maxSamples) k = s.length - maxSamples;
  // Keep at least the newest sample so the newest run stays in `samples`.
  if (k >= s.length) k = s.length - 1;
  if (k <= 0) return [];
  const folded = s.slice(0, k);
  track.samples = s.slice(k);
  const runs = runsOf(track.carry.run, folded);
  // Every folded run but the last has its successor inside the folded part, so its hold is final.
  const r = walk(runs, track.carry, holdMs, null, runs.length - 1);
  track.carry = { inEpisode: r.inEpisode, began: r.began, run: runs[runs.length - 1] ?? null };
  track.floorTs = folded[folded.length - 1]![0];
  return r.episodes.filter((e) => e.remedied !== null).map((e) => e.began);
}
