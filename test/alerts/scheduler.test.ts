/** When the engine ticks (alerts/scheduler.ts): at once on start, then for timers, evaluators' requests and clock changes. */
import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../gateway/src/alerts/scheduler.ts';
import { silentLog } from '../../gateway/src/pipeline.ts';
import { waitFor } from '../helpers/env.ts';

function scheduler() {
  const ticks: number[] = [];
  const s = new Scheduler({
    tick: (now) => ticks.push(now),
    nextTimerAt: () => null,
    now: () => Date.now(),
    tickIntervalMs: 60_000,
    log: silentLog,
  });
  return { s, ticks };
}

/** Time passing is the point where it is used: away from the top of the minute, or nothing happening. */
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The scheduler also ticks at the top of every minute (node-cron, late by a second or two on a busy machine): start well clear of it. */
async function clearOfTheMinute(): Promise<void> {
  const into = Date.now() % 60_000;
  if (into < 5_000 || into > 57_000) await pause(((65_000 - into) % 60_000) + 100);
}

describe('the scheduler', () => {
  it('ticks at the time an evaluator asked for, not a minute later', { timeout: 15_000 }, async () => {
    await clearOfTheMinute();
    const { s, ticks } = scheduler();
    s.start();
    expect(ticks).toHaveLength(1);
    const asked = Date.now() + 200;
    s.wake(asked);
    // Timed by the ticks' own clock, so a busy machine that runs the pauses late cannot fail it.
    await waitFor(() => ticks.length >= 2, 5_000, 'the tick asked for');
    expect(ticks).toHaveLength(2);
    // (a timer may fire a millisecond before the wall clock says its time came)
    expect(ticks[1]!).toBeGreaterThanOrEqual(asked - 5);
    expect(ticks[1]! - asked).toBeLessThan(3_000);
    s.stop();
  });

  it('ticks at once when the clock jumps or comes back in step', { timeout: 15_000 }, async () => {
    await clearOfTheMinute();
    const { s, ticks } = scheduler();
    s.start();
    s.clockChanged();
    await waitFor(() => ticks.length >= 2, 5_000, 'the tick for the clock change');
    expect(ticks).toHaveLength(2);
    s.stop();
    s.clockChanged();
    // Stopped: time passes and no tick comes.
    await pause(100);
    expect(ticks).toHaveLength(2);
  });
});
