/**
 * The one checker of a report's sections. A section is a table (`sections.ts`): which logged records it
 * lists, the field rows it shows of each (kept beside each DTO in `shared/src/api/`), whether the site's
 * records are numbered without a gap, whether every one logged in the report's period must be listed,
 * and the law's own checks of a record, which no table can say. This file runs such a table against the
 * records the report cites: each listed record is its log entry and shows what the entry says, then the
 * numbering, then what the report left out. Pure, no Node API (it is bundled into verify.html).
 */
import type { FieldKind, FieldRow } from '../../../shared/src/api/fieldRows.ts';
import { canonicalJson } from '../ledger/canonical.ts';
import { findingsDiffer, membersDiffer } from './values.ts';
import {
  capital,
  entryWords,
  inches,
  numbering,
  type Problem,
  problem,
  shown,
  valueWords,
  type Words,
  when,
} from './words.ts';

type Json = Record<string, unknown>;

/** A cited log entry: its place in the log, its place in the report's `evidence.entries`, its record. */
export type CitedBody = { index: number; pos: number; kind: string; body: Json };

/** The cited entry at a log index, if the report carries it. */
export type Cited = (i: number | undefined) => CitedBody | undefined;

/** What every section is checked with: the cited entries, the report's period and the sentences' words. */
export interface Context {
  cited: Cited;
  all: CitedBody[];
  w: Words;
  /** The report's period in ms; a report without one covers all time. */
  from: number;
  to: number;
  /** Whether the report states its period. */
  stated: boolean;
}

/** An ISO time as milliseconds, none when absent. */
export const ms = (iso: unknown): number | undefined => (iso ? Date.parse(iso as string) : undefined);

/** The report's period in ms (a report without one: all time). */
export const periodOf = (r: { period?: { from: string; to: string } }) => ({
  from: ms(r.period?.from) ?? Number.NEGATIVE_INFINITY,
  to: ms(r.period?.to) ?? Number.POSITIVE_INFINITY,
  stated: !!r.period,
});

/** A party in words: "Pat Landowner, 1 Elm St, Chester NY (pat@land.example)", or none. */
function party(p: unknown): string | undefined {
  if (typeof p !== 'object' || p === null) return undefined;
  const { name, address, email } = p as Json;
  return `${String(name)}, ${String(address)}${email === undefined ? '' : ` (${String(email)})`}`;
}

/** A list of names or fingerprints in words, comma-separated ('' when empty). */
export const list = (v: unknown): string => (Array.isArray(v) ? v.map(String).join(', ') : String(v ?? ''));

/** How each kind of field is read on either side and written in a sentence. */
const KINDS: Record<
  FieldKind,
  { shown: (v: unknown) => unknown; logged: (v: unknown) => unknown; write: (v: unknown, w: Words) => string }
> = {
  text: { shown: (v) => v, logged: (v) => v, write: (v, w) => shown(v, w) },
  time: { shown: ms, logged: (v) => v, write: when },
  inches: { shown: (v) => v, logged: (v) => v, write: inches },
  list: { shown: list, logged: list, write: (v, w) => shown(v, w) },
  party: { shown: party, logged: party, write: (v, w) => shown(v, w) },
  items: {
    shown: (v) => canonicalJson(v ?? []),
    logged: (v) => canonicalJson(v ?? []),
    write: (v, w) => valueWords(JSON.parse(String(v)), w),
  },
  findings: {
    shown: (v) => canonicalJson(v ?? []),
    logged: (v) => canonicalJson(v ?? []),
    write: (v, w) => valueWords(JSON.parse(String(v)), w),
  },
  json: {
    shown: (v) => canonicalJson(v ?? null),
    logged: (v) => canonicalJson(v ?? null),
    write: (v, w) => valueWords(JSON.parse(String(v)), w),
  },
  flag: { shown: (v) => v ?? false, logged: (v) => v, write: (v, w) => shown(v, w) },
};

/** One compared field: its JSON key, its words, the value shown, the value logged, and its kind. */
export type Pair = [key: string, words: string, shown: unknown, logged: unknown, kind?: FieldKind];

/**
 * How a section's differences read. `compare`: 'given' compares only what the report shows (a field it
 * leaves out is not a difference), 'all' compares every field, absent as none. `sentence`: "the report
 * shows …, its logged record …", "the report gives … as …, its logged record …", or "… is not what its
 * log entry says (the report shows …, the log entry …)".
 */
export interface Says {
  compare: 'given' | 'all';
  sentence: 'shows' | 'gives' | 'differs';
}

/** A member of an object, or of an object in it (`period.from`). */
function member(o: unknown, path: string): unknown {
  let v = o;
  for (const k of path.split('.')) v = typeof v === 'object' && v !== null ? (v as Json)[k] : undefined;
  return v;
}

/** A record's field rows as pairs: what the report shows of it and what its logged body says. */
export function pairsOf(rows: readonly FieldRow[], item: unknown, body: Json): Pair[] {
  return rows.map(([key, words, kind, logged]) => [
    key,
    words,
    KINDS[kind].shown(member(item, key)),
    KINDS[kind].logged(member(body, logged ?? key)),
    kind,
  ]);
}

/** The pairs that differ, as problems of `where` (the JSON object at `base`). */
export function differences(where: string, base: string, pairs: Pair[], says: Says, w: Words): Problem[] {
  const differ =
    says.compare === 'given'
      ? (mine: unknown, logged: unknown) => mine !== undefined && mine !== logged
      : (mine: unknown, logged: unknown) => (mine ?? null) !== (logged ?? null);
  return pairs
    .filter(([, , mine, logged]) => differ(mine, logged))
    .map(([key, words, mine, logged, kind = 'text']) => {
      // Findings are told apart finding by finding, each practice by its label.
      // An object's members are told apart member by member.
      const told =
        kind === 'findings'
          ? findingsDiffer(JSON.parse(String(mine)), JSON.parse(String(logged)), w)
          : undefined;
      if (told) return problem(`${base}.${key}`, `${where}: ${told}`);
      const members =
        kind === 'json' ? membersDiffer(JSON.parse(String(mine)), JSON.parse(String(logged)), w) : undefined;
      if (members) return problem(`${base}.${key}`, `${where}: in ${words}, ${members}`);
      const [a, b] = [KINDS[kind].write(mine, w), KINDS[kind].write(logged, w)];
      const message =
        says.sentence === 'shows'
          ? `${where}: the report shows ${words} ${a}, its logged record ${b}`
          : says.sentence === 'gives'
            ? `${where}: the report gives ${words} as ${a}, its logged record ${b}`
            : `${where}: ${words} is not what its log entry says (the report shows ${a}, the log entry ${b})`;
      return problem(`${base}.${key}`, message);
    });
}

/** Entries in the order logged whose running number (`key`) is not their place: something is missing. */
export function runningGaps(
  where: string,
  field: string,
  entries: Json[],
  key: string,
  what: string,
): Problem[] {
  for (const [i, b] of entries.entries()) {
    const n = b[key];
    if (typeof n !== 'number' || n === i + 1) continue;
    const missing = n - i - 1;
    const why =
      missing > 0
        ? `so ${missing} ${what}${missing === 1 ? ' before it is' : 's before it are'} missing`
        : 'out of order';
    return [problem(field, `${where} skips one: ${what} number ${n} comes in place ${i + 1}, ${why}`)];
  }
  return [];
}

/** A record the report shows, checked against the log entry it cites. */
export interface Listed<T> {
  /** The kind of logged record it cites. */
  record: string;
  /** The member of the shown record holding its log index. */
  cites: Extract<keyof T, string>;
  /** The logged member that names the record it belongs to (a step: its notice), checked against `parent`. */
  of?: string;
  fields: readonly FieldRow[];
  says: Says;
  /** What it is called in a sentence, by what it shows (and its logged body once cited). */
  where(item: T, body: Json | undefined, ctx: Context, parent?: string): string;
  /** The sentence when its log entry is not in the report. */
  missing: string;
}

/** The site's records are numbered 1, 2, … (`siteSeq`) and the report cites them all: a gap is one left out. */
export type Numbered =
  | { sentence: 'site'; one: string; many: string }
  | { sentence: 'running'; where: string; one: string };

/** Every record logged in the report's period is listed. */
export interface InPeriod {
  /** The logged member of its time. */
  at: string;
  /**
   * 'stated': checked when the report states its period and carries the list (reports of earlier
   * releases carry neither); 'open': a report without a period covers all time, one without the list
   * lists none.
   */
  period: 'stated' | 'open';
  /** What an unlisted one is called ("the notice of violation no. 2 of …"); else its log entry's words. */
  name?: (body: Json, w: Words) => string;
}

/** A section: the list a report shows, each record against its entry, the numbering, what was left out. */
export interface Section<T> extends Listed<T> {
  /** The report's list (its JSON member). */
  list: string;
  numbered?: Numbered;
  inPeriod?: InPeriod;
  /** The law's checks of a listed record beyond its fields, after them. */
  law?: (item: T, e: CitedBody, at: { base: string; where: string }, ctx: Context) => Problem[];
}

/** One shown record against its log entry: the entry if it is the record's, and the problems. */
export function checkListed<T>(
  s: Listed<T>,
  item: T,
  base: string,
  ctx: Context,
  parent?: { id: string; where: string },
): { e?: CitedBody; problems: Problem[] } {
  const e = ctx.cited(item[s.cites] as number | undefined);
  if (e?.kind !== s.record || (s.of !== undefined && e.body[s.of] !== parent?.id))
    return {
      problems: [
        problem(`${base}.${s.cites}`, `${s.where(item, undefined, ctx, parent?.where)}: ${s.missing}`),
      ],
    };
  const where = s.where(item, e.body, ctx, parent?.where);
  return { e, problems: differences(where, base, pairsOf(s.fields, item, e.body), s.says, ctx.w) };
}

/** Runs a section's table on the report's list (absent in reports of releases before it). */
export function checkSection<T>(s: Section<T>, items: T[] | undefined, ctx: Context): Problem[] {
  const out: Problem[] = [];
  (items ?? []).forEach((item, i) => {
    const base = `${s.list}[${i}]`;
    const { e, problems } = checkListed(s, item, base, ctx);
    out.push(...problems);
    if (e && s.law) out.push(...s.law(item, e, { base, where: s.where(item, e.body, ctx) }, ctx));
  });
  const logged = ctx.all.filter((e) => e.kind === s.record);
  const n = s.numbered;
  if (n?.sentence === 'site') out.push(...numbering(logged, s.list, [n.one, n.many], ctx.w));
  if (n?.sentence === 'running')
    out.push(
      ...runningGaps(
        n.where,
        s.list,
        logged.map((e) => e.body),
        'siteSeq',
        n.one,
      ),
    );
  const p = s.inPeriod;
  if (p && (p.period === 'open' || (ctx.stated && items))) {
    const listed = new Set<unknown>((items ?? []).map((item) => item[s.cites]));
    for (const e of logged) {
      const at = e.body[p.at] as number;
      if (!(at >= ctx.from && at < ctx.to) || listed.has(e.index)) continue;
      out.push(
        problem(
          s.list,
          p.name
            ? `${capital(p.name(e.body, ctx.w))}, issued ${when(at, ctx.w)} (log entry ${e.index}), is in the report's period but the report does not list it`
            : capital(
                `${entryWords(e.body, ctx.w)} is logged in the report's period (log entry ${e.index}) but the report does not list it`,
              ),
        ),
      );
    }
  }
  return out;
}
