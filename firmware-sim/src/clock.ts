/**
 * Virtual time for the simulator. `speed` is how many virtual milliseconds pass per real one
 * (8640 = a day in 10 s); `step` jumps straight to the next event, as fast as the host allows.
 * Devices stamp their readings with this virtual source time.
 */
export type ClockSpeed = number | 'step';

export class SimClock {
  private mode: ClockSpeed;
  private baseVirtual: number;
  private baseReal: number;
  private stepNow: number;

  constructor(
    readonly start: number,
    speed: ClockSpeed = 'step',
    private readonly realNow: () => number = () => performance.now(),
  ) {
    if (speed !== 'step' && !(speed > 0))
      throw new RangeError(`speed must be positive or "step", got ${speed}`);
    this.mode = speed;
    this.baseVirtual = start;
    this.baseReal = realNow();
    this.stepNow = start;
  }

  get speed(): ClockSpeed {
    return this.mode;
  }

  /** Current virtual time, epoch milliseconds. */
  now(): number {
    if (this.mode === 'step') return this.stepNow;
    return this.baseVirtual + (this.realNow() - this.baseReal) * this.mode;
  }

  /** Changes the speed from this instant on (the virtual time does not jump). */
  setSpeed(speed: ClockSpeed): void {
    const v = this.now();
    this.mode = speed;
    this.baseVirtual = v;
    this.baseReal = this.realNow();
    this.stepNow = v;
  }

  /** Real milliseconds until virtual time `t` (0 in step mode or when already past). */
  realDelayUntil(t: number): number {
    if (this.mode === 'step') return 0;
    return Math.max(0, (t - this.now()) / this.mode);
  }

  /** Resolves once virtual time has reached `t`; rejects if `signal` aborts first. */
  async sleepUntil(t: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    if (this.mode === 'step') {
      if (t > this.stepNow) this.stepNow = t;
      return;
    }
    for (;;) {
      const wait = this.realDelayUntil(t);
      if (wait <= 0) return;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(done, Math.min(wait, 1000));
        function done() {
          signal?.removeEventListener('abort', abort);
          resolve();
        }
        function abort() {
          clearTimeout(timer);
          reject(signal?.reason ?? new Error('aborted'));
        }
        signal?.addEventListener('abort', abort, { once: true });
      });
    }
  }
}
