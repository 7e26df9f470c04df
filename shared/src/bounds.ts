/**
 * The bounds of every input: every string and list a request or a device may send has a maximum, so that
 * no one account, device or page can make the gateway keep or read without end. The API's schemas are
 * built from these; `test/api/bounds.test.ts` walks the OpenAPI document and fails on any input without
 * one. A refusal over a bound names the field and its maximum ("at most 200 characters").
 */
import { z } from 'zod';

export const MAX = {
  /** Ids: sites, devices, alerts, notices, tokens, cursors. */
  id: 128,
  /** A person's, a practice's or a document's name. */
  name: 200,
  /** A note, a reason, a finding. */
  text: 4000,
  /** An inspection's notes. */
  notes: 10_000,
  /** An ISO 8601 time (`2026-05-01T14:00:00.000+00:00` is 29). */
  time: 40,
  email: 254,
  url: 2048,
  /** The keys a body may add for the rules' parameters. */
  params: 40,
} as const;

/** An id in a path, a query or a body. */
export const idText = () => z.string().min(1).max(MAX.id);

/** A time in a body: ISO 8601 with its offset. */
export const timeText = () => z.iso.datetime({ offset: true }).max(MAX.time);

/**
 * An object that takes further keys (a site's rule parameters): at most `n` keys in all, each one's
 * value bounded by `value`. Documented as `maxProperties` and checked when parsed.
 */
export function boundedKeys<T extends z.ZodType<Record<string, unknown>>>(schema: T, n: number = MAX.params) {
  return schema
    .refine((o) => Object.keys(o).length <= n, { message: `at most ${n} settings at once` })
    .meta({ maxProperties: n });
}

const key = z.string().max(64);
const scalar = z.union([z.number(), z.boolean(), z.string().max(64), z.null()]);
const row = z.union([scalar, z.array(scalar).max(4)]);
/**
 * The value of a rule's parameter as a request carries it (the rule's own schema then checks it): a
 * number, a word, a table of up to 100 rows (a trap's stage-storage table, a gauge's calibrations) or a
 * small object of those.
 */
export const ruleParamValue = z.union([
  scalar,
  z.array(z.union([row, boundedKeys(z.record(key, scalar), 8)])).max(100),
  boundedKeys(z.record(key, row), 16),
]);
