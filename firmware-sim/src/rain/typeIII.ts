/**
 * NRCS (SCS) Type III 24-hour rainfall distribution: cumulative fraction of the 24-hour depth.
 *
 * Source: USDA SCS, Urban Hydrology for Small Watersheds, Technical Release 55 (TR-55, 1986),
 * Appendix B, Type III tabulated values. Public copies of the table disagree: one hourly copy shifts
 * every value after hour 10 by an hour (0.500 at 11 h), and a half-hourly copy drifts from the
 * distribution's symmetry after 15 h. The curve is symmetric about 12 h, F(24 - t) = 1 - F(t), so
 * this table keeps the first half (hourly, plus 11.5 h) and mirrors it. Cross-checks, also asserted
 * in test/sim/rain.test.ts: F(12) = 0.500; the curve is monotone; F(24) = 1.000; F(11.5) = 0.298 and
 * F(12.5) = 0.702 (about 0.3 and 0.7); F(14) = 0.811 and F(20) = 0.957 agree with the tabulated
 * second half.
 */
const FIRST_HALF: readonly (readonly [hour: number, fraction: number])[] = [
  [0, 0.0],
  [1, 0.01],
  [2, 0.02],
  [3, 0.031],
  [4, 0.043],
  [5, 0.057],
  [6, 0.072],
  [7, 0.089],
  [8, 0.115],
  [9, 0.148],
  [10, 0.189],
  [11, 0.25],
  [11.5, 0.298],
  [12, 0.5],
];

/** [hour, cumulative fraction] from 0 to 24 h. */
export const TYPE_III_24H: readonly (readonly [number, number])[] = [
  ...FIRST_HALF,
  ...FIRST_HALF.slice(0, -1)
    .reverse()
    .map(([h, f]) => [24 - h, Math.round((1 - f) * 1000) / 1000] as const),
];

/** Cumulative fraction at `hour` (0..24), linear between tabulated points. */
export function typeIIIFraction(hour: number): number {
  if (hour <= 0) return 0;
  if (hour >= 24) return 1;
  for (let i = 1; i < TYPE_III_24H.length; i++) {
    const [h1, f1] = TYPE_III_24H[i]!;
    if (hour <= h1) {
      const [h0, f0] = TYPE_III_24H[i - 1]!;
      return f0 + ((hour - h0) / (h1 - h0)) * (f1 - f0);
    }
  }
  return 1;
}
