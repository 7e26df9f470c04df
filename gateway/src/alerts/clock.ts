/**
 * The engine's clock while its scheduler runs: the wall clock, watched against the monotonic clock.
 *
 * Deadlines, silences, reminders and storm closes follow the wall clock, and a wall clock can jump (an
 * operator sets the date, a board without a battery boots in 1970 and then gets NTP, a virtual machine
 * resumes). The monotonic clock (`performance.now`) only counts time the process lives through, so the
 * difference between the two (the offset) stays constant while both are right. When the offset moves by
 * more than `toleranceMs` (5 min), the wall clock jumped: that is a clock fault. It is logged, counted
 * (`gateway_clock_jumps_total`, `gateway_clock_fault`) and shown in /api/health (component `clock`),
 * and meanwhile the engine's time is the monotonic clock's from the last consistent offset: ticks take
 * that time, so a jump raises no silence, no overdue escalation and no reminder that the real time did
 * not bring, and times written to the store stay right.
 * - The wall clock back in step (within the tolerance of the last consistent offset): the fault ends.
 * - The wall clock holding its new time for `settleMs` (10 min, by the monotonic clock): it is taken as
 *   the right time (the jump was a correction) and the engine follows it; the silences and deadlines its
 *   time shows come due then, deferred, not lost.
 * A start is never a jump: the monotonic clock starts with the process, so the first reading of the
 * clocks is taken as consistent. After a restart (even days later) the first tick runs with the wall
 * clock and catches up on the deadlines passed while the gateway was down.
 */
import type { Counter, Registry } from '../metrics.ts';
import type { ComponentHealth, Log } from '../pipeline.ts';

export interface ClockWatchOptions {
  /** The wall clock (Date.now, or the gateway's). */
  wall: () => number;
  /** A monotonic clock in ms (performance.now). */
  monotonic: () => number;
  log: Log;
  metrics: Registry;
  toleranceMs?: number;
  settleMs?: number;
  /** Called when a fault begins or ends (the scheduler ticks at once). */
  onChange?: () => void;
}

interface Fault {
  /** When it began, by the engine's time. */
  since: number;
  /** Wall clock minus the engine's time when it began (ms; positive: ahead). */
  jumpMs: number;
  /** The wall clock's offset now, and since when (monotonic) it held. */
  offset: number;
  heldSince: number;
}

export const CLOCK_TOLERANCE_MS = 5 * 60_000;
export const CLOCK_SETTLE_MS = 10 * 60_000;

export class ClockWatch {
  private trusted: number | undefined;
  private fault: Fault | undefined;
  private jumps = 0;
  private last: { at: number; jumpMs: number; endedAt?: number; how?: 'back in step' | 'taken' } | undefined;
  private readonly tolerance: number;
  private readonly settle: number;
  private readonly jumpCounter: Counter;

  constructor(private readonly o: ClockWatchOptions) {
    this.tolerance = o.toleranceMs ?? CLOCK_TOLERANCE_MS;
    this.settle = o.settleMs ?? CLOCK_SETTLE_MS;
    this.jumpCounter = o.metrics.counter(
      'gateway_clock_jumps_total',
      'Wall clock jumps against the monotonic clock (more than 5 min)',
    );
    o.metrics.gauge('gateway_clock_fault', '1 while the wall clock is out of step').collect((set) => {
      set(this.fault ? 1 : 0);
    });
  }

  /** The engine's time: the wall clock, or while it is out of step, the monotonic clock's. */
  now(): number {
    const wall = this.o.wall();
    const mono = this.o.monotonic();
    const offset = wall - mono;
    if (this.trusted === undefined) this.trusted = offset;
    const engineTime = mono + this.trusted;
    if (Math.abs(offset - this.trusted) <= this.tolerance) {
      if (this.fault)
        this.end(engineTime, 'back in step', 'the wall clock is back in step; ticks follow it again');
      // Follow the small corrections NTP makes.
      this.trusted = offset;
      return wall;
    }
    if (!this.fault) this.begin(engineTime, offset, mono);
    else if (Math.abs(offset - this.fault.offset) > this.tolerance) {
      // It jumped again: its new time must hold from now.
      this.fault.offset = offset;
      this.fault.heldSince = mono;
      this.jumps++;
      this.jumpCounter.inc();
      this.o.log.warn({ offsetMs: offset - this.trusted }, 'the wall clock jumped again');
    }
    if (mono - this.fault!.heldSince >= this.settle) {
      this.end(engineTime, 'taken', 'the wall clock held its new time: taken as the right time');
      this.trusted = offset;
      return wall;
    }
    return engineTime;
  }

  /** The clock's state for /api/health. */
  health(): ComponentHealth {
    const f = this.fault;
    const h: ComponentHealth = { name: 'clock', ok: f === undefined, jumps: this.jumps };
    if (f) {
      h.detail = `the wall clock is ${describe(f.jumpMs)} the monotonic clock since ${new Date(f.since).toISOString()}: ticks use the monotonic clock's time, silences and deadlines wait until the clock is back in step or has held its new time for ${this.settle / 60_000} min`;
      h.jumpMs = f.jumpMs;
    }
    if (this.last)
      h.lastJump = {
        at: new Date(this.last.at).toISOString(),
        jumpMs: this.last.jumpMs,
        ...(this.last.endedAt !== undefined
          ? { endedAt: new Date(this.last.endedAt).toISOString(), how: this.last.how }
          : {}),
      };
    return h;
  }

  private begin(engineTime: number, offset: number, mono: number): void {
    const jumpMs = offset - this.trusted!;
    this.fault = { since: engineTime, jumpMs, offset, heldSince: mono };
    this.last = { at: engineTime, jumpMs };
    this.jumps++;
    this.jumpCounter.inc();
    this.o.log.warn(
      {
        jumpMs,
        wall: new Date(engineTime + jumpMs).toISOString(),
        engineTime: new Date(engineTime).toISOString(),
      },
      `the wall clock jumped ${describe(jumpMs)} the monotonic clock: a clock fault; ticks keep the monotonic clock's time`,
    );
    this.o.onChange?.();
  }

  private end(engineTime: number, how: 'back in step' | 'taken', message: string): void {
    this.fault = undefined;
    if (this.last) Object.assign(this.last, { endedAt: engineTime, how });
    this.o.log.warn({ engineTime: new Date(engineTime).toISOString() }, message);
    this.o.onChange?.();
  }
}

function describe(jumpMs: number): string {
  const min = Math.round(Math.abs(jumpMs) / 60_000);
  const span =
    min >= 2880 ? `${Math.round(min / 1440)} d` : min >= 120 ? `${Math.round(min / 60)} h` : `${min} min`;
  return `${span} ${jumpMs > 0 ? 'ahead of' : 'behind'}`;
}
