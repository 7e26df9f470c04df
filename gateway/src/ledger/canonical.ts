/**
 * Canonical JSON: object keys sorted at every level (code-unit order, as JavaScript sorts strings), no
 * whitespace, undefined members left out. The form every logged record body is hashed in, so that
 * another program can recompute it. Pure.
 */

/** JSON with object keys sorted at every level and undefined members left out: the form that is hashed. */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(sortKeys(v));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    const src = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(src).sort()) if (src[k] !== undefined) out[k] = sortKeys(src[k]);
    return out;
  }
  return v;
}
