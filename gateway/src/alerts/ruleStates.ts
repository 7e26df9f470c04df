/**
 * The rules' states: a cache in memory over the `rule_state` rows. A state is read from the cache, else
 * from the store (upgraded when it was stored at an older version of its rule), else made by the
 * evaluator's `init`. A transaction stages the states it changes; they are written with it and reach the
 * cache only once it commits.
 */
import type { SiteRule } from '../rules/index.ts';
import type { RuleContext } from '../rules/types.ts';
import type { RuleStateStore } from './stores/ruleState.ts';

/** States changed in one transaction, by `RuleStates.keyOf`. */
export type StagedStates = Map<string, { rule: SiteRule; state: unknown }>;

/** The version a stored state carries as `v`; without one it is version 1. */
export function stateVersion(state: unknown): number {
  const v = (state as { v?: unknown } | null)?.v;
  return typeof v === 'number' ? v : 1;
}

export class RuleStates {
  private readonly cache = new Map<string, unknown>();

  constructor(private readonly store: RuleStateStore) {}

  /** The key of a binding's state in the cache and in a transaction. */
  keyOf(r: SiteRule): string {
    return `${r.siteId}\u0000${r.stateKey}\u0000${r.deviceId ?? ''}`;
  }

  /** The binding's current state, as this transaction sees it. */
  get(staged: StagedStates, r: SiteRule, ctx: RuleContext): unknown {
    const key = this.keyOf(r);
    const s = staged.get(key);
    if (s) return s.state;
    if (this.cache.has(key)) return this.cache.get(key);
    const state = this.load(r, ctx);
    this.cache.set(key, state);
    return state;
  }

  private load(r: SiteRule, ctx: RuleContext): unknown {
    const stored = this.store.load(r.siteId, r.stateKey, r.deviceId ?? '');
    if (stored === undefined) return r.evaluator.init(ctx, r.deviceId);
    const state: unknown = JSON.parse(stored);
    const v = stateVersion(state);
    if (v === r.state.version) return state;
    if (v > r.state.version)
      throw new Error(
        `the stored state of ${r.id} is version ${v}, newer than this release's ${r.state.version}`,
      );
    return r.state.upgrade(state, v, ctx, r.deviceId);
  }

  /** Writes the staged states; call inside their transaction. */
  save(staged: StagedStates, now: number): void {
    for (const { rule, state } of staged.values())
      this.store.save(rule.siteId, rule.stateKey, rule.deviceId ?? '', JSON.stringify(state) ?? 'null', now);
  }

  /** Takes the staged states into the cache once their transaction committed. */
  commit(staged: StagedStates): void {
    for (const [key, s] of staged) this.cache.set(key, s.state);
  }
}
