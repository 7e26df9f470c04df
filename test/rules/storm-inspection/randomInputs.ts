/**
 * Random rain gauge histories for the storm rule's property test: counter (`rainTips`) or interval
 * (`rainIn`) gauges with storms, drizzle, dry spells, heartbeats, counter resets, long silences and
 * duplicates; delivered in order, shuffled, as late backlogs, reversed or in locally shuffled blocks;
 * with clock ticks and inspections among them. Seeded, so a failure names the seed that reproduces it.
 */
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { DAY, HOUR, MIN, reading, rng, shuffle, T0 } from '../helpers.ts';

export interface GaugeHistory {
  kind: 'counter' | 'interval' | 'mixed';
  inchesPerTip: number;
  /** Readings in source order: [ts, values]. */
  readings: Array<{ ts: number; values: { rainTips?: number; rainIn?: number } }>;
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const int = (r: () => number, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

/**
 * Interval rain in multiples of 0.002 in (0.01 in tips) or 0.0001 in (0.2 mm tips): the running totals
 * then never fall on half a tip, where rounding would depend on the order floating-point sums are taken.
 */
function intervalInches(r: () => number, tips: number, inchesPerTip: number): number {
  if (tips === 0) return 0;
  const step = inchesPerTip === 0.01 ? 0.002 : 0.0001;
  const raw = tips * inchesPerTip * (0.6 + r() * 0.8);
  return Math.max(step, Math.round(raw / step)) * step;
}

/** A history of `n` readings at most `maxDays` long. */
export function gaugeHistory(seed: number, n: number, maxDays = 20): GaugeHistory {
  const r = rng(seed);
  const kind = pick(r, ['counter', 'counter', 'interval', 'mixed'] as const);
  const inchesPerTip = pick(r, [0.01, 0.007874]);
  const readings: GaugeHistory['readings'] = [];
  let t = T0 + int(r, 0, 59) * MIN;
  let counter = int(r, 0, 3) * 1000;
  const end = t + maxDays * DAY;
  while (readings.length < n && t < end) {
    const mode = pick(r, ['storm', 'storm', 'drizzle', 'dry', 'silence', 'reset', 'heavy']);
    const steps = mode === 'silence' || mode === 'reset' ? 1 : int(r, 3, 60);
    for (let i = 0; i < steps && readings.length < n; i++) {
      let gap: number;
      let tips: number;
      switch (mode) {
        case 'storm':
          gap = int(r, 1, 10) * MIN;
          tips = int(r, 0, 3);
          break;
        case 'heavy':
          gap = int(r, 10, 90) * 1000;
          tips = int(r, 1, 6);
          break;
        case 'drizzle':
          gap = int(r, 20, 170) * MIN;
          tips = r() < 0.5 ? 1 : 0;
          break;
        case 'dry':
          gap = int(r, 30, 60) * MIN;
          tips = 0;
          break;
        case 'silence':
          gap = int(r, 5, 12) * HOUR + int(r, 0, 59) * MIN;
          tips = int(r, 0, 80);
          break;
        default:
          gap = int(r, 1, 5) * MIN;
          tips = 0;
          counter = int(r, 0, 4);
          break;
      }
      t += gap;
      counter += tips;
      const useCounter = kind === 'counter' || (kind === 'mixed' && r() < 0.5);
      readings.push({
        ts: t,
        values: useCounter ? { rainTips: counter } : { rainIn: intervalInches(r, tips, inchesPerTip) },
      });
    }
    // Now and then an exact 6 h dry gap, which splits.
    if (r() < 0.1) t += 6 * HOUR - (r() < 0.5 ? MIN : 0);
  }
  return { kind, inchesPerTip, readings };
}

export type Delivery = 'in-order' | 'shuffled' | 'late-backlog' | 'newest-first' | 'blocks' | 'reversed';
export const DELIVERIES: readonly Delivery[] = [
  'in-order',
  'shuffled',
  'late-backlog',
  'newest-first',
  'blocks',
  'reversed',
];

/** The order the gateway receives the readings in (indices into the history). */
function order(seed: number, n: number, how: Delivery): number[] {
  const idx = Array.from({ length: n }, (_, i) => i);
  const r = rng(seed * 7 + 1);
  switch (how) {
    case 'in-order':
      return idx;
    case 'shuffled':
      return shuffle(idx, seed);
    case 'reversed':
      return idx.reverse();
    case 'late-backlog': {
      // A stretch the gauge buffered arrives after the readings that followed it, in order.
      const a = Math.floor(r() * n * 0.7);
      const b = Math.min(n, a + 1 + Math.floor(r() * n * 0.3));
      return [...idx.slice(0, a), ...idx.slice(b), ...idx.slice(a, b)];
    }
    case 'newest-first': {
      // Buffered, then the backlog shuffled behind the newest readings.
      const a = Math.floor(r() * n * 0.5);
      const b = Math.min(n, a + 1 + Math.floor(r() * n * 0.4));
      const c = Math.min(n, b + 3);
      return [...idx.slice(0, a), ...idx.slice(b, c), ...shuffle(idx.slice(a, b), seed + 3), ...idx.slice(c)];
    }
    case 'blocks': {
      const out: number[] = [];
      for (let i = 0; i < n; i += 12) out.push(...shuffle(idx.slice(i, i + 12), seed + i));
      return out;
    }
  }
}

/**
 * The inputs of one delivery: readings stamped with their arrival (`receivedAt`, never before their
 * source time), a few duplicates, ticks now and then, and inspections at random times.
 */
export function deliveryInputs(h: GaugeHistory, seed: number, how: Delivery): RuleInput[] {
  const r = rng(seed * 13 + 5);
  const ix = order(seed, h.readings.length, how);
  const out: RuleInput[] = [];
  let arrival = h.readings[0]?.ts ?? T0;
  let inspections = 0;
  for (const i of ix) {
    const rd = h.readings[i]!;
    arrival = Math.max(arrival + int(r, 1, 30) * 1000, how === 'in-order' ? rd.ts : arrival);
    const receivedAt = Math.max(arrival, rd.ts);
    const input = reading('rg', rd.ts, rd.values, { receivedAt });
    out.push(input);
    if (r() < 0.02) out.push(input);
    if (r() < 0.05) out.push({ type: 'tick', now: receivedAt + int(r, 0, 12) * HOUR });
    if (r() < 0.02 && inspections < 8) {
      inspections++;
      out.push({
        type: 'inspection',
        siteId: 's1',
        at: rd.ts + int(r, -2, 30) * HOUR,
        kind: pick(r, ['storm', 'routine', 'annual']),
        inspector: 'I. Inspector',
        id: `insp-${seed}-${inspections}`,
      });
    }
  }
  out.push({ type: 'tick', now: arrival + 2 * DAY });
  return out;
}

/** A counter every 30 s for two days (6,000 readings): the window's 5,000-reading cap prunes it. */
export function denseCounterHistory(seed: number, t0: number): GaugeHistory {
  const r = rng(seed);
  let c = 0;
  return {
    kind: 'counter',
    inchesPerTip: 0.01,
    readings: Array.from({ length: 6000 }, (_, i) => {
      c += r() < 0.3 ? Math.floor(r() * 3) : 0;
      return { ts: t0 + i * 30_000, values: { rainTips: c } };
    }),
  };
}
