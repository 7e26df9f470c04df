/**
 * The updates a batch of readings makes to one alert, folded before they are applied: a storm moves its
 * inspection's due time at every tip, so an import's slice of a hundred tips would otherwise look its
 * alert up and rewrite its row a hundred times in one transaction, for the one `updated` history row
 * the unit writes anyway (unit.ts).
 *
 * A binding's next `update` of the same alert key is folded into the one before it when no other effect
 * on that key came between and it does not move the due time earlier: applied one after the other or
 * folded, such updates leave the alert the same (the last due time, message and `at`, the evidence of
 * both merged in order), and an engineer's extension is kept the same way. The fold takes the place of
 * the first update, so the alert's live event keeps its place among the transaction's; any other effect
 * on the key (an `open`, a `resolve`) ends the fold. Effects on other keys, and storm records, stay as
 * they were.
 */
import type { RuleId, SiteRule } from '../rules/index.ts';
import type { Effect } from '../rules/types.ts';
import type { RuleWork } from './rules.ts';

type Update = Extract<Effect<RuleId>, { type: 'update' }>;

/** Whether applying `later` after `earlier` is the same as applying their fold. */
function foldable(earlier: Update, later: Update): boolean {
  return earlier.dueAt === undefined || later.dueAt === undefined || later.dueAt >= earlier.dueAt;
}

function fold(earlier: Update, later: Update): Update {
  const out: Update = { type: 'update', key: later.key, at: later.at };
  const dueAt = later.dueAt ?? earlier.dueAt;
  if (dueAt !== undefined) out.dueAt = dueAt;
  const message = later.message ?? earlier.message;
  if (message !== undefined) out.message = message;
  if (earlier.evidence || later.evidence) out.evidence = { ...earlier.evidence, ...later.evidence };
  return out;
}

/** The batch's work with each run of foldable updates to one alert made one, in the place of its first. */
export function coalesceUpdates(work: readonly RuleWork[]): readonly RuleWork[] {
  const effects = work.map((w) => w.effects.slice() as Array<Effect<RuleId> | undefined>);
  /** Where each binding's fold of updates to each key is, while no other effect on that key came. */
  const open = new Map<SiteRule, Map<string, { w: number; i: number }>>();
  let folded = 0;
  work.forEach((w, wi) => {
    let byKey = open.get(w.rule);
    if (!byKey) {
      byKey = new Map();
      open.set(w.rule, byKey);
    }
    const list = effects[wi]!;
    for (let i = 0; i < list.length; i++) {
      const e = list[i]!;
      if (e.type === 'storm') continue;
      if (e.type !== 'update') {
        byKey.delete(e.key);
        continue;
      }
      const prev = byKey.get(e.key);
      if (prev) {
        const p = effects[prev.w]![prev.i] as Update;
        if (foldable(p, e)) {
          effects[prev.w]![prev.i] = fold(p, e);
          list[i] = undefined;
          folded++;
          continue;
        }
      }
      byKey.set(e.key, { w: wi, i });
    }
  });
  if (folded === 0) return work;
  const out: RuleWork[] = [];
  work.forEach((w, wi) => {
    const kept = effects[wi]!.filter((e): e is Effect<RuleId> => e !== undefined);
    if (kept.length > 0) out.push({ rule: w.rule, effects: kept });
  });
  return out;
}
