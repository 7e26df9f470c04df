import type { RainCurve } from '../rain/curve.ts';
import { type CommonOptions, type Readings, round, SimDevice } from './base.ts';

export interface SedimentTrapOptions extends Omit<CommonOptions, 'kind'> {
  designDepthIn: number;
  initialIn: number;
  /** Inches of sediment deposited per inch of rain on the site (runoff from disturbed ground). */
  sedimentPerRainIn: number;
  rain: RainCurve;
  /** Runoff reaches the trap this long after the rain falls. */
  lagMs?: number;
  /** Permanent pool depth (in) above the sediment; storm runoff raises it. */
  poolIn?: number;
  /** Cleanouts: the contractor digs the trap out to `toIn`. */
  cleanouts?: { at: number; toIn: number }[];
  noiseIn?: number;
}

/** A sediment trap or pond: sediment depth grows with storm runoff; a cleanout drops it. */
export class SedimentTrap extends SimDevice {
  private offset = 0;
  private readonly cleanouts: { at: number; toIn: number }[];
  private readonly rain0: number;
  private readonly lag: number;

  constructor(private readonly o: SedimentTrapOptions) {
    super({ ...o, kind: 'sediment-trap' });
    this.cleanouts = [...(o.cleanouts ?? [])].sort((a, b) => a.at - b.at);
    this.lag = o.lagMs ?? 1_800_000;
    this.rain0 = o.rain.depthAt(o.start - this.lag);
  }

  /** True sediment depth (in) at t, without sensor noise. */
  depthAt(t: number): number {
    const rain = this.o.rain.depthAt(t - this.lag) - this.rain0;
    return this.o.initialIn + this.o.sedimentPerRainIn * Math.max(0, rain) + this.offset;
  }

  protected modelNextAt(): number {
    return this.cleanouts[0]?.at ?? Number.POSITIVE_INFINITY;
  }

  protected modelStep(t: number): boolean {
    let changed = false;
    while (this.cleanouts.length && this.cleanouts[0]!.at <= t) {
      const c = this.cleanouts.shift()!;
      this.offset += c.toIn - this.depthAt(t);
      changed = true;
    }
    return changed;
  }

  protected readings(t: number): Readings {
    const sediment = Math.max(0, this.depthAt(t) + this.rng.normal(0, this.o.noiseIn ?? 0.03));
    const runoff = this.o.rain.depthAt(t) - this.o.rain.depthAt(t - 3 * 3_600_000);
    const pool = (this.o.poolIn ?? 18) + 10 * runoff;
    return { sedimentIn: round(sediment, 2), levelIn: round(sediment + pool, 2) };
  }
}
