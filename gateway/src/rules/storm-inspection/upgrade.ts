/**
 * The storm rule's stored state from before its version 2 (release 0.1.0): the window was a list of
 * readings, the interval rain left over by the pruned ones an amount of inches. Its readings go into
 * chunks, and the events are derived again from them at the next input (as that release did on
 * every input), so a stored storm carries on with its alert.
 */

import { type Segment, STORM_STATE_VERSION, type StormSnapshot, type StormState } from './events.ts';
import type { EntryContext } from './window.ts';
import { nanoInches, type StormEntry, windowOf } from './window.ts';

/** Version 1, as release 0.1.0 stored it. */
interface StormStateV1 {
  siteId: string;
  deviceId: string;
  win: StormEntry[];
  base: { counter: number | null; ts: number | null; residueIn: number };
  carry: Segment | null;
  newestTs: number | null;
  newestDelay: number;
  horizon: number | null;
  events: StormSnapshot[];
  inspections: StormState['inspections'];
  late: StormState['late'];
}

export function upgradeStormState(stored: unknown, from: number): StormState {
  if (from !== 1) throw new Error(`no upgrade of a storm-inspection state from version ${from}`);
  const s = stored as StormStateV1;
  // The left-over inches become the running total: rounded to tips it is zero, as it was.
  const base: EntryContext = { counter: s.base.counter, sumN: nanoInches(s.base.residueIn), ts: s.base.ts };
  return {
    v: STORM_STATE_VERSION,
    siteId: s.siteId,
    deviceId: s.deviceId,
    win: windowOf(s.win, base),
    base,
    carry: s.carry,
    newestTs: s.newestTs,
    newestDelay: s.newestDelay,
    horizon: s.horizon,
    events: s.events,
    // No parameters recorded: the next input derives every event again.
    derivedWith: '',
    inspections: s.inspections,
    late: s.late,
    held: null,
  };
}
