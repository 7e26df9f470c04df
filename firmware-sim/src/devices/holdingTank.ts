import { type CommonOptions, diurnalFactor, type Readings, round, SimDevice } from './base.ts';

export interface HoldingTankOptions extends Omit<CommonOptions, 'kind'> {
  tankDepthIn: number;
  highLevelIn: number;
  startLevelIn: number;
  usageInPerDay: number;
  /** Pump-outs: the hauler empties the tank to `toIn` (default 3 in). */
  pumpOuts?: { at: number; toIn?: number }[];
}

const TICK_MS = 300_000;

/** A holding tank: fills with use; its high-level switch trips at `highLevelIn`; a pump-out empties it. */
export class HoldingTank extends SimDevice {
  private level: number;
  private high = false;
  private nextTick: number;
  private readonly pumpOuts: { at: number; toIn?: number }[];

  constructor(private readonly o: HoldingTankOptions) {
    super({ ...o, kind: 'holding-tank' });
    this.level = o.startLevelIn;
    this.nextTick = o.start + TICK_MS;
    this.pumpOuts = [...(o.pumpOuts ?? [])].sort((a, b) => a.at - b.at);
  }

  protected modelNextAt(): number {
    return Math.min(this.nextTick, this.pumpOuts[0]?.at ?? Number.POSITIVE_INFINITY);
  }

  protected modelStep(t: number): boolean {
    while (this.nextTick <= t) {
      const dtDays = TICK_MS / 86_400_000;
      this.level += this.o.usageInPerDay * dtDays * diurnalFactor(this.nextTick) * this.rng.uniform(0.5, 1.5);
      this.level = Math.min(this.o.tankDepthIn, this.level);
      this.nextTick += TICK_MS;
    }
    while (this.pumpOuts.length && this.pumpOuts[0]!.at <= t) this.level = this.pumpOuts.shift()!.toIn ?? 3;
    // The high-level switch has an inch of hysteresis.
    const high = this.high ? this.level > this.o.highLevelIn - 1 : this.level >= this.o.highLevelIn;
    const changed = high !== this.high;
    this.high = high;
    return changed;
  }

  protected readings(): Readings {
    return {
      levelIn: round(Math.max(0, this.level + this.rng.normal(0, 0.1)), 2),
      alarms: { highWater: this.high },
    };
  }
}
