/**
 * The rules' states: a cache in memory over the `rule_state` rows. A state is read from the cache, else
 * from the store (upgraded when it was stored at an older version of its rule), else made by the
 * evaluator's `init`. A transaction stages the states it changes; they are written with it and reach the
 * cache only once it commits, so the cache never holds what the store does not.
 *
 * The cache is bounded: a small state (its JSON at most `JSON_CACHED_MAX` characters: most devices'
 * states) is kept as the JSON the store holds, counted at its length, and parsed when read (a few
 * microseconds; as objects, 10,000 devices' states took twice the memory, and every state replaced at a
 * reading left an object graph for the full collector); a larger one (a rain gauge's storm window) is
 * kept as its object, counted at three times its JSON, about what it takes in memory. Past the budget
 * the states changed or read longest ago are dropped, to be read from the store again when next needed.
 * A fleet of many devices with long storm windows thus costs disk reads, not an out-of-memory crash.
 */
import type { SiteRule } from '../rules/index.ts';
import type { RuleContext } from '../rules/types.ts';
import type { RuleStateStore } from './stores/ruleState.ts';

/** States changed in one transaction, by `RuleStates.keyOf`; `json` is set when it is written. */
export type StagedStates = Map<string, { rule: SiteRule; state: unknown; json?: string }>;

/** Estimated bytes in memory per byte of a state's JSON. */
const MEMORY_PER_JSON_BYTE = 3;

/** What a state made by `init` (not stored yet) is counted at. */
const UNSTORED_BYTES = 512;

/** States whose JSON is at most this long are cached as their JSON. */
export const JSON_CACHED_MAX = 4096;

/** A cached state: its JSON (a small one) or its object, and what it is counted at. */
interface Cached {
  json?: string;
  state?: unknown;
  bytes: number;
}

/** The cache entry for a state stored as `json`. */
function cachedOf(state: unknown, json: string): Cached {
  if (json.length > JSON_CACHED_MAX) return { state, bytes: MEMORY_PER_JSON_BYTE * json.length };
  // A string's header and map entry, and two bytes a character when any is beyond Latin-1.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the Latin-1 range starts at U+0000
  const perChar = /[^\u0000-\u00ff]/.test(json) ? 2 : 1;
  return { json, bytes: 64 + perChar * json.length };
}

/** The version a stored state carries as `v`; without one it is version 1. */
export function stateVersion(state: unknown): number {
  const v = (state as { v?: unknown } | null)?.v;
  return typeof v === 'number' ? v : 1;
}

export class RuleStates {
  /** In order of last change or load, oldest first. */
  private readonly cache = new Map<string, Cached>();
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
    return r.stateId;
  }

  /** The binding's current state, as this transaction sees it. */
  get(staged: StagedStates, r: SiteRule, ctx: RuleContext): unknown {
    const key = this.keyOf(r);
    const s = staged.get(key);
    if (s) return s.state;
    const cached = this.cache.get(key);
    // A fresh object from the JSON: evaluators never change the state they are given, but a caller
    // holding a state never sees it change under it either way.
    if (cached) return cached.json !== undefined ? JSON.parse(cached.json) : cached.state;
    const { state, entry } = this.load(r, ctx);
    this.put(key, entry);
    return state;
  }

  private load(r: SiteRule, ctx: RuleContext): { state: unknown; entry: Cached } {
    const stored = this.store.load(r.siteId, r.stateKey, r.deviceId ?? '');
    if (stored === undefined) {
      const state = r.evaluator.init(ctx, r.deviceId);
      return { state, entry: { state, bytes: UNSTORED_BYTES } };
    }
    const state: unknown = JSON.parse(stored);
    const v = stateVersion(state);
    if (v === r.state.version) return { state, entry: cachedOf(state, stored) };
    if (v > r.state.version)
      throw new Error(
        `the stored state of ${r.id} is version ${v}, newer than this release's ${r.state.version}`,
      );
    // Upgraded: the cache holds the upgraded object until the state is next written.
    const upgraded = r.state.upgrade(state, v, ctx, r.deviceId);
    return { state: upgraded, entry: { state: upgraded, bytes: MEMORY_PER_JSON_BYTE * stored.length } };
  }

  /** Writes the staged states; call inside their transaction. */
  save(staged: StagedStates, now: number): void {
    for (const s of staged.values()) {
      const json = JSON.stringify(s.state) ?? 'null';
      s.json = json;
      this.store.save(s.rule.siteId, s.rule.stateKey, s.rule.deviceId ?? '', json, now);
    }
  }

  /** Takes the staged states into the cache once their transaction committed. */
  commit(staged: StagedStates): void {
    for (const [key, s] of staged)
      this.put(
        key,
        s.json !== undefined ? cachedOf(s.state, s.json) : { state: s.state, bytes: UNSTORED_BYTES },
      );
  }

  private put(key: string, entry: Cached): void {
    const old = this.cache.get(key);
    if (old) {
      this.bytes -= old.bytes;
      this.cache.delete(key);
    }
    this.cache.set(key, entry);
    this.bytes += entry.bytes;
    while (this.bytes > this.budgetBytes && this.cache.size > 1) {
      const [oldest, gone] = this.cache.entries().next().value as [string, Cached];
      this.cache.delete(oldest);
      this.bytes -= gone.bytes;
      this.dropped++;
    }
  }
}
