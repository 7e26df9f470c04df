/**
 * Each route reads at most the bytes its body's schema allows. The bound is worked out from the route's
 * documented body schema (every string has a `maxLength`, every list a `maxItems`: test/api/bounds.test.ts),
 * counting three bytes a character of free text (the most UTF-8 takes for one UTF-16 unit, and more
 * than an escaped newline or quote takes) and one of an id, a hash or a time (a pattern's), plus room for the JSON's own punctuation and whitespace. A route with no body
 * schema reads at most NO_BODY_LIMIT bytes; a route that takes a file sets its own `bodyLimit`. The bound
 * is published in the OpenAPI document as the operation's `x-body-limit`. A larger body is refused with
 * 413 TOO_LARGE before it is parsed.
 */
import type { FastifyInstance } from 'fastify';

/** What a route without a body schema (a POST with nothing to say) reads at most. */
export const NO_BODY_LIMIT = 4 * 1024;
const KEY_BYTES = 3 * 128 + 3;

type Schema = Record<string, unknown>;

/** The most bytes a JSON value of this schema takes; undefined when nothing bounds it. */
export function maxJsonBytes(schema: unknown): number | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  const s = schema as Schema;
  if (Array.isArray(s.enum))
    return Math.max(...(s.enum as unknown[]).map((v) => JSON.stringify(v)?.length ?? 4));
  if ('const' in s) return JSON.stringify(s.const)?.length ?? 4;
  const alternatives = ['anyOf', 'oneOf', 'allOf'].flatMap((k) =>
    Array.isArray(s[k]) ? (s[k] as unknown[]) : [],
  );
  if (alternatives.length > 0) {
    const each = alternatives.map(maxJsonBytes);
    return each.some((b) => b === undefined) ? undefined : Math.max(...(each as number[]));
  }
  const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
  let most = 0;
  for (const type of types) {
    const b = bytesOfType(type, s);
    if (b === undefined) return undefined;
    most = Math.max(most, b);
  }
  return most;
}

function bytesOfType(type: string, s: Schema): number | undefined {
  switch (type) {
    case 'null':
      return 4;
    case 'boolean':
      return 5;
    case 'number':
    case 'integer':
      return 24;
    case 'string':
      // A string of a pattern or a format (an id, a hash, a time) is of plain ASCII characters.
      if (typeof s.maxLength !== 'number') return undefined;
      return (s.pattern !== undefined || s.format !== undefined ? 1 : 3) * s.maxLength + 2;
    case 'array': {
      const item = maxJsonBytes(s.items);
      return typeof s.maxItems === 'number' && item !== undefined ? 2 + s.maxItems * (item + 1) : undefined;
    }
    case 'object': {
      let n = 2;
      for (const [k, v] of Object.entries((s.properties as Schema) ?? {})) {
        const b = maxJsonBytes(v);
        if (b === undefined) return undefined;
        n += k.length + 4 + b;
      }
      const extra = s.additionalProperties;
      if (extra !== undefined && extra !== false) {
        const b = maxJsonBytes(extra);
        if (typeof s.maxProperties !== 'number' || b === undefined) return undefined;
        n += s.maxProperties * (KEY_BYTES + b + 1);
      }
      return n;
    }
    default:
      return undefined;
  }
}

/** The bodyLimit of a body schema: its most bytes, a quarter more for whitespace, in whole KiB. */
export function bodyLimitOf(schema: unknown): number | undefined {
  const b = maxJsonBytes(schema);
  return b === undefined ? undefined : Math.ceil((b * 1.25 + 1024) / 1024) * 1024;
}

/** Sets every route's bodyLimit from its body schema (unless it sets its own), and documents it. */
export function boundBodies(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = route.schema as (Schema & { body?: unknown; hide?: boolean }) | undefined;
    if (route.bodyLimit === undefined) {
      const limit = schema?.body === undefined ? NO_BODY_LIMIT : bodyLimitOf(schema.body);
      // A body schema without bounds keeps the server's limit; the bounds test names it.
      if (limit !== undefined) route.bodyLimit = limit;
    }
    if (schema && !schema.hide && schema.body !== undefined && route.bodyLimit !== undefined)
      schema['x-body-limit'] = route.bodyLimit;
  });
}
