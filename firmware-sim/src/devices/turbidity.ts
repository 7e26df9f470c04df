import type { RainCurve } from '../rain/curve.ts';
import { type CommonOptions, type Readings, round, SimDevice } from './base.ts';

export interface TurbidityOptions extends Omit<CommonOptions, 'kind'> {
  role: 'background' | 'outlet';
  baseNtu: number;
  /** NTU added per in/h of rain intensity over the last hour (runoff); smaller upstream than at the outlet. */
  ntuPerInPerHour: number;
  rain: RainCurve;
}

const HOUR = 3_600_000;

/** A turbidity sensor, upstream (background) or at the outlet; the outlet spikes with runoff and recedes. */
export class Turbidity extends SimDevice {
  constructor(private readonly o: TurbidityOptions) {
    super({ ...o, kind: 'turbidity' });
  }

  /** Turbidity without sensor noise. */
  ntuAt(t: number): number {
    const r = this.o.rain;
    const lastHour = r.depthAt(t) - r.depthAt(t - HOUR);
    const recession = (r.depthAt(t - HOUR) - r.depthAt(t - 4 * HOUR)) / 3;
    return this.o.baseNtu + this.o.ntuPerInPerHour * (lastHour + 0.5 * recession);
  }

  protected modelNextAt(): number {
    return Number.POSITIVE_INFINITY;
  }

  protected modelStep(): boolean {
    return false;
  }

  protected readings(t: number): Readings {
    return { turbidityNtu: round(Math.max(0, this.ntuAt(t) * Math.exp(this.rng.normal(0, 0.08))), 1) };
  }
}
