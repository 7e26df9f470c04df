import { TYPE_III_24H } from './typeIII.ts';

/**
 * Cumulative rainfall at a place: a piecewise-linear, non-decreasing curve of [epoch ms, inches].
 * Before the first point the depth is 0; after the last it stays at the last value.
 */
export class RainCurve {
  readonly points: readonly (readonly [number, number])[];

  constructor(points: readonly (readonly [number, number])[]) {
    const sorted = [...points].sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < sorted.length; i++)
      if (sorted[i]![1] < sorted[i - 1]![1] - 1e-12) throw new Error('a rain curve must not decrease');
    this.points = sorted;
  }

  static empty(): RainCurve {
    return new RainCurve([]);
  }

  get total(): number {
    return this.points.length ? this.points[this.points.length - 1]![1] : 0;
  }

  /** Cumulative depth (in) at time t. */
  depthAt(t: number): number {
    const p = this.points;
    if (p.length === 0 || t < p[0]![0]) return 0;
    if (t >= p[p.length - 1]![0]) return p[p.length - 1]![1];
    let lo = 0;
    let hi = p.length - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (p[mid]![0] <= t) lo = mid;
      else hi = mid;
    }
    const [t0, c0] = p[lo]!;
    const [t1, c1] = p[hi]!;
    return t1 === t0 ? c1 : c0 + ((t - t0) / (t1 - t0)) * (c1 - c0);
  }

  /** The sum of several curves (rain from several sources falling on one place). */
  static sum(curves: readonly RainCurve[]): RainCurve {
    const nonEmpty = curves.filter((c) => c.points.length > 0);
    if (nonEmpty.length === 0) return RainCurve.empty();
    if (nonEmpty.length === 1) return nonEmpty[0]!;
    const times = [...new Set(nonEmpty.flatMap((c) => c.points.map((p) => p[0])))].sort((a, b) => a - b);
    return new RainCurve(times.map((t) => [t, nonEmpty.reduce((s, c) => s + c.depthAt(t), 0)] as const));
  }

  /**
   * Times at which a tipping bucket of `tipIn` inches tips: each time the accumulated depth reaches
   * a further multiple of the tip size. Counted in tips (with a tolerance for binary fractions), so
   * 0.62 in at 0.01 in gives exactly 62 tips. Times are rounded up to the millisecond.
   */
  tipTimes(tipIn: number, from = Number.NEGATIVE_INFINITY): number[] {
    const out: number[] = [];
    const p = this.points;
    if (p.length === 0) return out;
    const EPS = 1e-9;
    let k = 1;
    const pts = p[0]![1] > 0 ? [[p[0]![0], 0] as const, ...p] : p;
    let t0 = pts[0]![0];
    let u0 = pts[0]![1] / tipIn;
    for (let i = 1; i < pts.length; i++) {
      const t1 = pts[i]![0];
      const u1 = pts[i]![1] / tipIn;
      while (k <= u1 + EPS) {
        const frac = u1 === u0 ? 1 : Math.min(1, Math.max(0, (k - u0) / (u1 - u0)));
        const t = Math.ceil(t0 + frac * (t1 - t0));
        if (t >= from) out.push(t);
        k++;
      }
      t0 = t1;
      u0 = u1;
    }
    return out;
  }
}

/** A Type III storm of `depthIn` inches, its 24-hour shape compressed or stretched to `durationMs`, starting at `start`. */
export function typeIIIStorm(start: number, depthIn: number, durationMs = 86_400_000): RainCurve {
  return new RainCurve(TYPE_III_24H.map(([h, f]) => [start + (h / 24) * durationMs, depthIn * f] as const));
}

/** Rain at a constant intensity: `depthIn` inches spread evenly over `durationMs`. */
export function uniformRain(start: number, depthIn: number, durationMs: number): RainCurve {
  return new RainCurve([
    [start, 0],
    [start + durationMs, depthIn],
  ]);
}

/** Rain recorded as bucket tips: each tip adds `tipIn` inches over the millisecond before its time. */
export function tipsToCurve(tipTimes: readonly number[], tipIn: number): RainCurve {
  const pts: [number, number][] = [];
  let c = 0;
  for (const t of [...tipTimes].sort((a, b) => a - b)) {
    const last = pts[pts.length - 1];
    if (last && last[0] >= t - 1) {
      c += tipIn;
      last[1] = c;
      continue;
    }
    pts.push([t - 1, c]);
    c += tipIn;
    pts.push([t, c]);
  }
  return new RainCurve(pts);
}
