/**
 * The storm rule's window of recent rain readings, sorted by source time, kept in chunks so that the
 * state the engine writes after every reading stays small and cheap to write however many readings the
 * window holds: the newest chunk is a plain list, older ones are sealed into one string each. Each chunk
 * also carries what the readings before it left (the last counter value, the interval-rain total, the
 * previous reading's time), so the increment of any reading is found from its own chunk alone.
 *
 * Interval rain (`rainIn`) is added up in whole nano-inches, so a running total does not depend on the
 * order it was summed in.
 */

import { lowerBound } from '../util.ts';

/** A rain reading: [source ts, 0 = counter (rainTips) | 1 = interval inches (rainIn), value, receivedAt]. */
export type StormEntry = [number, 0 | 1, number, number];

/** What the readings before a point left: the counter, the interval-rain total (nano-inches), their time. */
export interface EntryContext {
  counter: number | null;
  sumN: number;
  ts: number | null;
}

export interface WindowChunk {
  /** How many entries it holds. */
  n: number;
  /** Source ts of its first and last entry. */
  t0: number;
  t1: number;
  /** What the entries before it left (pruned ones included). */
  before: EntryContext;
  /** Sealed: its entries, encoded (`encodeChunk`). */
  d?: string;
  /** The newest chunk: its entries. */
  e?: StormEntry[];
}

export interface StormWindow {
  chunks: WindowChunk[];
  /** Entries at the start of the first chunk that were pruned: `base` holds what they left. */
  skip: number;
  /** Entries in the window, the pruned ones not counted. */
  size: number;
  /** What every entry (pruned ones included) left: the context after the newest. */
  end: EntryContext;
}

/** Entries in the newest chunk before it is sealed; a sealed chunk a late reading grows is split at twice this. */
export const CHUNK = 64;

export const NANO = 1e9;

/** Interval inches in whole nano-inches. */
export function nanoInches(inches: number): number {
  return Math.round(inches * NANO);
}

export function emptyWindow(base: EntryContext): StormWindow {
  return { chunks: [], skip: 0, size: 0, end: base };
}

const num = (n: number): string => (Number.isSafeInteger(n) ? n.toString(36) : `~${n}`);
const unnum = (s: string): number => (s.startsWith('~') ? Number(s.slice(1)) : Number.parseInt(s, 36));

/**
 * One entry after another, `;` between them: `dt,value[,delay]`. dt: ts after the previous entry's (the
 * first: 0). value: a counter's change from the chunk's previous counter value (its first: the value;
 * a value that is not a whole number after `=`), an interval reading's inches after `*`. delay: receivedAt - ts, left out when the previous entry's
 * was the same. Integers in base 36; other numbers after `~`.
 */
export function encodeChunk(entries: readonly StormEntry[]): string {
  let prevTs = entries[0]?.[0] ?? 0;
  let prevCounter = 0;
  let prevDelay = 0;
  const parts: string[] = [];
  for (const [ts, kind, value, rec] of entries) {
    const v =
      kind === 1
        ? `*${num(value)}`
        : Number.isSafeInteger(value - prevCounter)
          ? num(value - prevCounter)
          : `=${num(value)}`;
    if (kind === 0) prevCounter = value;
    const delay = rec - ts;
    parts.push(delay === prevDelay ? `${num(ts - prevTs)},${v}` : `${num(ts - prevTs)},${v},${num(delay)}`);
    prevTs = ts;
    prevDelay = delay;
  }
  return parts.join(';');
}

/**
 * Decoded sealed chunks by their encoding, the most recently used last (the window reads the same few
 * chunks again, its first one at every reading). Keyed by the chunk's own string, whose hash the string
 * keeps, so a hit costs no new key; the entries are the same for the same encoding and first ts.
 */
const decoded = new Map<string, { t0: number; entries: readonly StormEntry[] }>();
const DECODED_MAX = 32;

export function decodeChunk(t0: number, d: string): readonly StormEntry[] {
  const hit = decoded.get(d);
  if (hit && hit.t0 === t0) {
    decoded.delete(d);
    decoded.set(d, hit);
    return hit.entries;
  }
  const out: StormEntry[] = [];
  let ts = t0;
  let counter = 0;
  let delay = 0;
  for (const part of d.split(';')) {
    const [dt, v, dr] = part.split(',') as [string, string, string | undefined];
    ts += unnum(dt);
    if (dr !== undefined) delay = unnum(dr);
    if (v.startsWith('*')) out.push([ts, 1, unnum(v.slice(1)), ts + delay]);
    else {
      counter = v.startsWith('=') ? unnum(v.slice(1)) : counter + unnum(v);
      out.push([ts, 0, counter, ts + delay]);
    }
  }
  decoded.delete(d);
  decoded.set(d, { t0, entries: out });
  if (decoded.size > DECODED_MAX) decoded.delete(decoded.keys().next().value!);
  return out;
}

export function entriesOf(c: WindowChunk): readonly StormEntry[] {
  return c.e ?? decodeChunk(c.t0, c.d!);
}

/** A chunk holding `entries` (sorted, not empty), after `before`; sealed unless `open`. */
export function makeChunk(entries: StormEntry[], before: EntryContext, open: boolean): WindowChunk {
  const c: WindowChunk = { n: entries.length, t0: entries[0]![0], t1: entries.at(-1)![0], before };
  if (open) c.e = entries;
  else c.d = encodeChunk(entries);
  return c;
}

/** The context after `e`, given the one before it. */
export function after(ctx: EntryContext, e: StormEntry): EntryContext {
  return e[1] === 0
    ? { counter: e[2], sumN: ctx.sumN, ts: e[0] }
    : { counter: ctx.counter, sumN: ctx.sumN + nanoInches(e[2]), ts: e[0] };
}

/** The context after the first `i` entries of chunk `c`. */
export function contextIn(c: WindowChunk, i: number): EntryContext {
  const es = entriesOf(c);
  let ctx = c.before;
  for (let k = 0; k < i; k++) ctx = after(ctx, es[k]!);
  return ctx;
}

/** A position in the window: chunk index and entry index within it. */
export interface Pos {
  c: number;
  i: number;
}

/** The first position whose entry has ts >= `ts` (past the end when none). */
export function seek(w: StormWindow, ts: number): Pos {
  const c = lowerBound(w.chunks, ts, (chunk) => chunk.t1);
  if (c === w.chunks.length) return { c, i: 0 };
  const i = lowerBound(entriesOf(w.chunks[c]!), ts, (e) => e[0]);
  return { c, i: c === 0 ? Math.max(i, w.skip) : i };
}

export function entryAt(w: StormWindow, p: Pos): StormEntry | undefined {
  const c = w.chunks[p.c];
  return c ? entriesOf(c)[p.i] : undefined;
}

export function nextPos(w: StormWindow, p: Pos): Pos {
  return p.i + 1 < w.chunks[p.c]!.n ? { c: p.c, i: p.i + 1 } : { c: p.c + 1, i: 0 };
}

/** The position before `p`, or null at the window's start (before it come the pruned entries). */
export function prevPos(w: StormWindow, p: Pos): Pos | null {
  if (p.i > (p.c === 0 ? w.skip : 0)) return { c: p.c, i: p.i - 1 };
  if (p.c === 0) return null;
  return { c: p.c - 1, i: w.chunks[p.c - 1]!.n - 1 };
}

export function firstPos(w: StormWindow): Pos {
  return { c: 0, i: w.skip };
}

/** The context before the entry at `p` (what every entry before it, pruned ones included, left). */
export function contextAt(w: StormWindow, p: Pos): EntryContext {
  const c = w.chunks[p.c];
  return c ? contextIn(c, p.i) : w.end;
}

export function newestTs(w: StormWindow): number | null {
  return w.chunks.at(-1)?.t1 ?? null;
}

/** A copy of the window the caller may change (chunks are replaced, never changed in place). */
export function copyWindow(w: StormWindow): StormWindow {
  return { chunks: w.chunks.slice(), skip: w.skip, size: w.size, end: w.end };
}

/** Appends an entry newer than every other (changes `w`, a copy). */
export function append(w: StormWindow, e: StormEntry): void {
  const last = w.chunks.at(-1);
  if (last?.e && last.n < CHUNK) {
    // The newest chunk is copied, at most CHUNK entries: the state given stays as it was.
    const es = [...last.e, e];
    w.chunks[w.chunks.length - 1] = { ...last, n: es.length, t1: e[0], e: es };
  } else {
    if (last?.e) w.chunks[w.chunks.length - 1] = makeChunk(last.e, last.before, false);
    w.chunks.push(makeChunk([e], w.end, true));
  }
  w.end = after(w.end, e);
  w.size++;
}

/**
 * Inserts an entry at `p` (before the entry there; ts unique), older than the newest: the chunks after
 * it get their `before` again (changes `w`, a copy).
 */
export function insertAt(w: StormWindow, p: Pos, e: StormEntry): void {
  const ci = p.c < w.chunks.length ? p.c : w.chunks.length - 1;
  let i = p.c < w.chunks.length ? p.i : w.chunks[ci]!.n;
  let c = w.chunks[ci]!;
  let es = [...entriesOf(c)];
  if (ci === 0 && w.skip > 0) {
    // The pruned entries go first: the chunk is built again from the window's first entry.
    c = { ...c, before: contextIn(c, w.skip) };
    es = es.slice(w.skip);
    i -= w.skip;
    w.skip = 0;
  }
  es.splice(i, 0, e);
  const open = c.e !== undefined;
  const parts = !open && es.length > 2 * CHUNK ? [es.slice(0, CHUNK), es.slice(CHUNK)] : [es];
  const made: WindowChunk[] = [];
  let before = c.before;
  for (const part of parts) {
    made.push(makeChunk(part, before, open));
    before = contextIn(made.at(-1)!, part.length);
  }
  w.chunks.splice(ci, 1, ...made);
  // Context passes on until a chunk's `before` comes out as it was.
  for (let k = ci + made.length; k < w.chunks.length; k++) {
    const ck = w.chunks[k]!;
    if (sameContext(ck.before, before)) break;
    w.chunks[k] = { ...ck, before };
    before = contextIn(w.chunks[k]!, ck.n);
  }
  w.end = contextIn(w.chunks.at(-1)!, w.chunks.at(-1)!.n);
  w.size++;
}

function sameContext(a: EntryContext, b: EntryContext): boolean {
  return a.counter === b.counter && a.sumN === b.sumN && a.ts === b.ts;
}

/** Removes the oldest entry of the window and returns it (changes `w`, a copy). */
export function shift(w: StormWindow): StormEntry {
  const first = w.chunks[0]!;
  const e = entriesOf(first)[w.skip]!;
  w.skip++;
  w.size--;
  if (w.skip >= first.n) {
    w.chunks.shift();
    w.skip = 0;
  }
  return e;
}

/** Builds a window from sorted entries after `base` (an upgrade, a test). */
export function windowOf(entries: readonly StormEntry[], base: EntryContext): StormWindow {
  const w = emptyWindow(base);
  for (const e of entries) append(w, e);
  return w;
}

/** Every entry of the window, oldest first (tests, diagnostics). */
export function windowEntries(w: StormWindow): StormEntry[] {
  const out: StormEntry[] = [];
  w.chunks.forEach((c, k) => {
    out.push(...entriesOf(c).slice(k === 0 ? w.skip : 0));
  });
  return out;
}
