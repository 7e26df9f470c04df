/**
 * What the inspections soak and its short form share: the largest inspection the contract's schema
 * accepts (its bounds read from the schema itself, so a change of bound changes the test), and reading a
 * list page by page, following `Link: <…>; rel="next"`.
 */

import { z } from 'zod';
import { inspectionBody } from '../../shared/src/api/findings.ts';
import { nextPageOf } from '../../shared/src/links.ts';

/** The lists the API answers, with the filters that are always given. */
export const LIST_PATHS = [
  '/api/alerts',
  '/api/inspections',
  '/api/notifications',
  '/api/violations',
  '/api/notices',
  '/api/storms',
  '/api/extensions',
  '/api/rejections',
  '/api/changes',
  '/api/evidence/entries?from=0',
] as const;

interface Json {
  maxLength?: number;
  maxItems?: number;
  properties?: Record<string, Json>;
  items?: Json;
}

const schema = z.toJSONSchema(inspectionBody, { io: 'input', unrepresentable: 'any' }) as Json;
const props = schema.properties!;
const finding = props.findings!.items!.properties!;

/** The schema's bounds (undefined where there is none). */
export const INSPECTION_BOUNDS = {
  inspector: props.inspector!.maxLength,
  notes: props.notes!.maxLength,
  findings: props.findings!.maxItems,
  findingNote: finding.note!.maxLength,
};

/** Readable text of exactly `n` characters, ending in a letter (a name's spaces at its ends are trimmed). */
export function text(n: number, seed: number): string {
  const words = `Inspection ${seed}: silt fence sagging along the east boundary, sediment in the swale, outlet riprap sound. `;
  const t = words.repeat(Math.ceil(n / words.length)).slice(0, n);
  return /\s$/.test(t) ? `${t.slice(0, -1)}x` : t;
}

/**
 * The largest inspection the schema accepts at a site with `practices` practices (p-0 …): every text at
 * its bound, as many findings as it may have. `inspectorChars` sends only an inspector's name of that
 * length (for a gateway without bounds); `overBy` makes the inspector's name that much longer than its
 * bound.
 */
export function largestInspection(
  siteId: string,
  at: Date,
  practices: number,
  seed: number,
  o: { inspectorChars?: number; overBy?: number } = {},
): Record<string, unknown> {
  const base = { siteId, at: at.toISOString(), kind: 'routine' as const };
  if (o.inspectorChars !== undefined) return { ...base, inspector: text(o.inspectorChars, seed) };
  const b = INSPECTION_BOUNDS;
  if (b.inspector === undefined || b.notes === undefined || b.findings === undefined || !b.findingNote)
    throw new Error('the inspection schema has an unbounded field: give --inspector-chars');
  return {
    ...base,
    inspector: text(b.inspector + (o.overBy ?? 0), seed),
    notes: text(b.notes, seed),
    findings: Array.from({ length: Math.min(b.findings, practices) }, (_, i) => ({
      practice: `p-${i}`,
      status: 'maintenance',
      note: text(b.findingNote!, seed + i),
      photos: [],
    })),
  };
}

/** The items of a list answer: the array itself, or its `items` / `entries`. */
function itemsOf(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  const o = body as { items?: unknown[]; entries?: unknown[] };
  return o.items ?? o.entries ?? [];
}

/** Every page of a list (at most `maxPages`), following rel="next"; fails on an answer other than 200. */
export async function readAllPages(
  base: string,
  path: string,
  headers: Record<string, string>,
  maxPages = 10_000,
): Promise<{ pages: number; items: number }> {
  let url: string | undefined = `${base}${path}`;
  let pages = 0;
  let items = 0;
  while (url && pages < maxPages) {
    const r = await fetch(url, { headers });
    if (r.status !== 200) throw new Error(`${url}: ${r.status} ${(await r.text()).slice(0, 300)}`);
    items += itemsOf(await r.json()).length;
    pages++;
    const next = nextPageOf(r.headers.get('link'));
    url = next ? new URL(next, base).toString() : undefined;
  }
  return { pages, items };
}
