/** When the engine ticks (alerts/scheduler.ts): at once on start, then for timers, evaluators' requests and clock changes. */
import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../gateway/src/alerts/scheduler.ts';
import { silentLog } from '../../gateway/src/pipeline.ts';

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

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the scheduler', () => {
  it('ticks at the time an evaluator asked for, not a minute later', async () => {
    const { s, ticks } = scheduler();
    s.start();
    expect(ticks).toHaveLength(1);
    s.wake(Date.now() + 200);
    await pause(100);
    expect(ticks).toHaveLength(1);
    await pause(400);
    expect(ticks).toHaveLength(2);
    s.stop();
  });

  it('ticks at once when the clock jumps or comes back in step', async () => {
    const { s, ticks } = scheduler();
    s.start();
    s.clockChanged();
    await pause(200);
    expect(ticks).toHaveLength(2);
    s.stop();
    s.clockChanged();
    await pause(100);
    expect(ticks).toHaveLength(2);
  });
});
