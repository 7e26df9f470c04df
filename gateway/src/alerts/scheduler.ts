/**
 * When the engine ticks: at the top of every minute (annual letters, routine clocks, silent devices),
 * and sooner when a reminder or a deadline falls before that, or an evaluator asked for a tick. The
 * first tick runs at once (catch-up for deadlines passed while down). Its `now` is the engine's clock
 * (`clock.ts`): the wall clock, watched against the monotonic clock every few seconds; when the wall
 * clock jumps (or comes back in step) the scheduler ticks at once with the engine's time.
 */
import cron, { type ScheduledTask } from 'node-cron';
import type { Log } from '../pipeline.ts';

export interface SchedulerOptions {
  tick: (now: number) => void;
  /** The next pending timer, or null (none, or the store is closed). */
  nextTimerAt: () => number | null;
  now: () => number;
  /** Longest wait between two scheduled ticks. */
  tickIntervalMs: number;
  /** How often the clocks are compared between ticks (default 5 s). */
  clockCheckMs?: number;
  log: Log;
}

export class Scheduler {
  private cronTask: ScheduledTask | undefined;
  private timer: NodeJS.Timeout | undefined;
  private wakeAt = Number.POSITIVE_INFINITY;
  /** The earliest time an evaluator asked for a tick (not in the store: after a restart the first tick runs at once). */
  private asked = Number.POSITIVE_INFINITY;
  private running = false;
  private clockCheck: NodeJS.Timeout | undefined;

  constructor(private readonly o: SchedulerOptions) {}

  /** Whether it runs (the engine's time is then its watched clock). */
  get started(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.cronTask = cron.schedule(
      '* * * * *',
      () => {
        if (this.running) this.scheduledTick();
      },
      { name: 'compliance-tick', noOverlap: true, unref: true },
    );
    this.clockCheck = setInterval(() => this.o.now(), this.o.clockCheckMs ?? 5000);
    this.clockCheck.unref();
    this.scheduledTick();
  }

  /** The clock jumped or came back in step: tick at once (with the engine's time), after the caller returns. */
  clockChanged(): void {
    if (this.running) setImmediate(() => this.wake(this.o.now()));
  }

  stop(): void {
    this.running = false;
    this.cronTask?.destroy();
    this.cronTask = undefined;
    if (this.clockCheck) clearInterval(this.clockCheck);
    this.clockCheck = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.wakeAt = Number.POSITIVE_INFINITY;
  }

  /** A commit armed a timer (or an evaluator asked for a tick) at `at`: wake for it if that is before the next planned tick. */
  wake(at: number): void {
    if (!Number.isFinite(at)) return;
    this.asked = Math.min(this.asked, at);
    if (this.running && at < this.wakeAt) this.scheduleNext();
  }

  private scheduledTick(): void {
    this.timer = undefined;
    this.wakeAt = Number.POSITIVE_INFINITY;
    const now = this.o.now();
    if (this.asked <= now) this.asked = Number.POSITIVE_INFINITY;
    try {
      this.o.tick(now);
    } catch (err) {
      this.o.log.error({ err: String(err) }, 'engine tick failed; retrying at the next one');
    }
    this.scheduleNext();
  }

  private scheduleNext(): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    const now = this.o.now();
    let delay = this.o.tickIntervalMs;
    const next = Math.min(this.o.nextTimerAt() ?? Number.POSITIVE_INFINITY, this.asked);
    if (Number.isFinite(next)) delay = Math.min(delay, next - now);
    delay = Math.max(50, Math.min(delay, this.o.tickIntervalMs));
    this.wakeAt = now + delay;
    this.timer = setTimeout(() => this.scheduledTick(), delay);
    this.timer.unref();
  }
}
