import type { RainCurve } from '../rain/curve.ts';
import { type CommonOptions, type Readings, round, SimDevice } from './base.ts';

export interface RainGaugeOptions extends Omit<CommonOptions, 'kind'> {
  /** Calibration: 0.01 in, or 0.2 mm = 0.007874 in. */
  inchesPerTip: number;
  /** `counter`: cumulative `rainTips` (restarts at 0 on reboot); `interval`: `rainIn` since the last report. */
  mode: 'counter' | 'interval';
  /** The rain that falls on the gauge. */
  rain: RainCurve;
  /** Probability that a tip bounces: the reed switch closes a second time less than a second later. */
  bounceProbability?: number;
}

export const MM_TIP_IN = 0.2 / 25.4;

/**
 * A tipping-bucket rain gauge: reports on every tip and on a heartbeat. Tip times come from the rain
 * curve at the gauge's own tip size; switch bounces add a false tip 50-900 ms after a real one.
 */
export class RainGauge extends SimDevice {
  readonly inchesPerTip: number;
  readonly mode: 'counter' | 'interval';
  /** Every switch closure, bounces included, in order. */
  readonly closures: readonly number[];
  /** The real tips (without bounces). */
  readonly realTips: readonly number[];
  private idx = 0;
  private counter = 0;
  private pending = 0;

  constructor(opts: RainGaugeOptions) {
    super({ ...opts, kind: 'rain-gauge' });
    this.inchesPerTip = opts.inchesPerTip;
    this.mode = opts.mode;
    this.realTips = opts.rain.tipTimes(opts.inchesPerTip, opts.start);
    const closures: number[] = [];
    for (const t of this.realTips) {
      closures.push(t);
      if (this.rng.chance(opts.bounceProbability ?? 0)) closures.push(t + this.rng.int(50, 900));
    }
    this.closures = closures.sort((a, b) => a - b);
  }

  protected modelNextAt(): number {
    return this.closures[this.idx] ?? Number.POSITIVE_INFINITY;
  }

  protected modelStep(t: number): boolean {
    let tipped = false;
    while (this.idx < this.closures.length && this.closures[this.idx]! <= t) {
      this.idx++;
      this.counter++;
      this.pending++;
      tipped = true;
    }
    return tipped;
  }

  protected readings(): Readings {
    return this.mode === 'counter'
      ? { rainTips: this.counter }
      : { rainIn: round(this.pending * this.inchesPerTip, 6) };
  }

  protected override afterReport(): void {
    this.pending = 0;
  }

  protected override onReboot(): void {
    this.counter = 0;
    this.pending = 0;
  }
}
