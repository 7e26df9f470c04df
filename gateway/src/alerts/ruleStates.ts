/**
 * The rules' states: a cache in memory over the `rule_state` rows. A state is read from the cache, else
 * from the store (upgraded when it was stored at an older version of its rule), else made by the
 * evaluator's `init`. A transaction stages the states it changes; they are written with it and reach the
 * cache only once it commits, so the cache never holds what the store does not.
 *
 * The cache is bounded: each state is counted at three times its stored (JSON) size, about what it
 * takes in memory (arrays of numbers take more than their JSON, strings about the same), and past the
 * budget the states changed or read longest ago are dropped, to be read from the store again when next
 * needed. A fleet of many devices with long storm windows thus costs disk reads,
 * not an out-of-memory crash.
 */
import type { SiteRule } from '../rules/index.ts';
import type { RuleContext } from '../rules/types.ts';
import type { RuleStateStore } from './stores/ruleState.ts';

/** States changed in one transaction, by `RuleStates.keyOf`; `bytes` is set when it is written. */
export type StagedStates = Map<string, { rule: SiteRule; state: unknown; bytes?: number }>;

/** Estimated bytes in memory per byte of a state's JSON. */
const MEMORY_PER_JSON_BYTE = 3;

/** What a state made by `init` (not stored yet) is counted at. */
const UNSTORED_BYTES = 512;

/** The version a stored state carries as `v`; without one it is version 1. */
export function stateVersion(state: unknown): number {
  const v = (state as { v?: unknown } | null)?.v;
  return typeof v === 'number' ? v : 1;
}

export class RuleStates {
  /** In order of last change or load, oldest first. */
  private readonly cache = new Map<string, { state: unknown; bytes: number }>();
  private bytes = 0;
  private dropped = 0;

  /** `budgetBytes`: what the cached states may take (estimated), at least one state whatever its size. */
  constructor(
    private readonly store: RuleStateStore,
    private readonly budgetBytes = Number.POSITIVE_INFINITY,
  ) {}

  /** How many states are cached, their estimated bytes, and how many were dropped for the budget so far. */
  stats(): { states: number; bytes: number; dropped: number } {
    return { states: this.cache.size, bytes: this.bytes, dropped: this.dropped };
  }

  /** The key of a binding's state in the cache and in a transaction. */
  keyOf(r: SiteRule): string {
    return `${r.siteId}\u0000${r.stateKey}\u0000${r.deviceId ?? ''}`;
  }

  /** The binding's current state, as this transaction sees it. */
  get(staged: StagedStates, r: SiteRule, ctx: RuleContext): unknown {
    const key = this.keyOf(r);
    const s = staged.get(key);
    if (s) return s.state;
    const cached = this.cache.get(key);
    if (cached) return cached.state;
    const { state, bytes } = this.load(r, ctx);
    this.put(key, state, bytes);
    return state;
  }

  private load(r: SiteRule, ctx: RuleContext): { state: unknown; bytes: number } {
    const stored = this.store.load(r.siteId, r.stateKey, r.deviceId ?? '');
    if (stored === undefined) return { state: r.evaluator.init(ctx, r.deviceId), bytes: UNSTORED_BYTES };
    const bytes = MEMORY_PER_JSON_BYTE * stored.length;
    const state: unknown = JSON.parse(stored);
    const v = stateVersion(state);
    if (v === r.state.version) return { state, bytes };
    if (v > r.state.version)
      throw new Error(
        `the stored state of ${r.id} is version ${v}, newer than this release's ${r.state.version}`,
      );
    return { state: r.state.upgrade(state, v, ctx, r.deviceId), bytes };
  }

  /** Writes the staged states; call inside their transaction. */
  save(staged: StagedStates, now: number): void {
    for (const s of staged.values()) {
      const json = JSON.stringify(s.state) ?? 'null';
      s.bytes = MEMORY_PER_JSON_BYTE * json.length;
      this.store.save(s.rule.siteId, s.rule.stateKey, s.rule.deviceId ?? '', json, now);
    }
  }

  /** Takes the staged states into the cache once their transaction committed. */
  commit(staged: StagedStates): void {
    for (const [key, s] of staged) this.put(key, s.state, s.bytes ?? UNSTORED_BYTES);
  }

  private put(key: string, state: unknown, bytes: number): void {
    const old = this.cache.get(key);
    if (old) {
      this.bytes -= old.bytes;
      this.cache.delete(key);
    }
    this.cache.set(key, { state, bytes });
    this.bytes += bytes;
    while (this.bytes > this.budgetBytes && this.cache.size > 1) {
      const [oldest, entry] = this.cache.entries().next().value as [string, { bytes: number }];
      this.cache.delete(oldest);
      this.bytes -= entry.bytes;
      this.dropped++;
    }
  }
}
