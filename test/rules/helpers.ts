/** Shared helpers for the rule evaluator tests: sites with defaults, readings, and a tiny effect sink. */

import { type SiteConfig, siteSchema } from '../../gateway/src/config/schema.ts';
import type { RuleParams } from '../../gateway/src/rules/context.ts';
import type { Effect, Evaluator, RuleContext, RuleInput, StormEvent } from '../../gateway/src/rules/types.ts';
import type { Reading } from '../../shared/src/telemetry.ts';

export const MIN = 60_000;
export const HOUR = 60 * MIN;
export const DAY = 24 * HOUR;
export const T0 = Date.UTC(2026, 3, 1, 12, 0, 0); // 2026-04-01 12:00Z

export function site(raw: Record<string, unknown>) {
  return siteSchema.parse({ id: 's1', ...raw });
}

/**
 * The context the engine runs every evaluator with: the configured site (which is every rule's view of
 * it) and its time zone.
 */
export interface SiteContext {
  site: SiteConfig;
  timezone: string;
}

export function ctxOf(raw: Record<string, unknown>, timezone = 'America/New_York'): SiteContext {
  return { site: site(raw), timezone };
}

export function reading(
  deviceId: string,
  ts: number,
  values: Reading['values'] = {},
  extra: Partial<Reading> = {},
): RuleInput {
  return {
    type: 'reading',
    reading: {
      siteId: 's1',
      deviceId,
      deviceKind: 'rain-gauge',
      ts,
      receivedAt: ts,
      transport: 'mqtt',
      values,
      ...extra,
    },
  };
}

export const tick = (now: number): RuleInput => ({ type: 'tick', now });

export interface SimAlert {
  key: string;
  rule?: string;
  status: 'open' | 'resolved';
  at: number;
  dueAt: number | undefined;
  message: string;
  evidence: Record<string, unknown>;
  resolvedAt?: number;
  resolution?: Record<string, unknown>;
  updates: number;
}

/**
 * Applies effects the way the engine does: one alert per key, never reopened; storms upserted by id.
 * An `open` for an existing open key updates it, including `at` (the source time the condition began):
 * late data can move a storm's crossing earlier.
 */
export class Sink {
  alerts = new Map<string, SimAlert>();
  storms = new Map<string, StormEvent>();
  effects: Effect[] = [];

  apply(effects: readonly Effect[]): void {
    for (const e of effects) {
      this.effects.push(e);
      if (e.type === 'storm') this.storms.set(e.event.id, e.event);
      else if (e.type === 'open') {
        const a = this.alerts.get(e.key);
        if (!a)
          this.alerts.set(e.key, {
            key: e.key,
            rule: e.rule,
            status: 'open',
            at: e.at,
            dueAt: e.dueAt,
            message: e.message,
            evidence: e.evidence,
            updates: 0,
          });
        else if (a.status === 'open') Object.assign(a, { at: e.at, dueAt: e.dueAt, message: e.message });
      } else if (e.type === 'update') {
        const a = this.alerts.get(e.key);
        if (a && a.status === 'open') {
          if (e.dueAt !== undefined) a.dueAt = e.dueAt;
          if (e.message !== undefined) a.message = e.message;
          if (e.evidence) a.evidence = { ...a.evidence, ...e.evidence };
          a.updates++;
        }
      } else if (e.type === 'resolve') {
        const a = this.alerts.get(e.key);
        if (a && a.status === 'open') {
          a.status = 'resolved';
          a.resolvedAt = e.at;
          a.resolution = e.evidence;
        }
      }
    }
  }

  count(type: Effect['type']): number {
    return this.effects.filter((e) => e.type === type).length;
  }

  /** Storms that are still storms (not superseded), sorted by start. */
  liveStorms(): StormEvent[] {
    return [...this.storms.values()]
      .filter((s) => s.supersededBy === undefined)
      .sort((a, b) => a.start - b.start);
  }

  /** Alerts that were not superseded or withdrawn by late data. */
  liveAlerts(): SimAlert[] {
    return [...this.alerts.values()]
      .filter((a) => !a.resolution?.superseded && !a.resolution?.withdrawn)
      .sort((a, b) => a.key.localeCompare(b.key));
  }
}

/**
 * Feeds inputs one at a time, round-tripping the state through JSON at every step (the engine stores it
 * as JSON), and checks that the evaluator never mutates the state it is given.
 */
export function run<S, P extends RuleParams>(
  ev: Evaluator<S, string, P>,
  ctx: RuleContext<P>,
  inputs: Iterable<RuleInput>,
  opts: { deviceId?: string; state?: S; sink?: Sink; checkPurity?: boolean; json?: boolean } = {},
): { state: S; sink: Sink } {
  const sink = opts.sink ?? new Sink();
  let state = opts.state ?? ev.init(ctx, opts.deviceId);
  if (opts.json === false) {
    for (const input of inputs) {
      const out = ev.evaluate(state, input, ctx);
      state = out.state;
      sink.apply(out.effects);
    }
    return { state, sink };
  }
  for (const input of inputs) {
    const json = JSON.stringify(state);
    const out = ev.evaluate(JSON.parse(json) as S, input, ctx);
    if (opts.checkPurity) {
      const before = JSON.parse(json) as S;
      const again = ev.evaluate(before, input, ctx);
      if (JSON.stringify(before) !== json) throw new Error('evaluate mutated its input state');
      if (JSON.stringify(again) !== JSON.stringify(out)) throw new Error('evaluate is not deterministic');
    }
    state = JSON.parse(JSON.stringify(out.state)) as S;
    sink.apply(out.effects);
  }
  return { state, sink };
}

/** A seeded PRNG (mulberry32) so shuffles are reproducible. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffle<T>(arr: readonly T[], seed: number): T[] {
  const r = rng(seed);
  const out = [...arr];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
