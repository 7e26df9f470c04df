/**
 * A construction site's practices over time, without zod (the dashboard's bundle imports it): which are
 * in force at a time (a retired practice is not inspected, nor counted in "every practice", from its
 * retirement on), the id a new practice takes from its label (unique within the site, never one the site
 * has), and a change of the list in words for the site's change history.
 */
import { formatLong } from '../time.ts';
import { PRACTICE_KIND_LABELS, type PracticeKind } from './enforcementWords.ts';

/** An ISO time in a zone, e.g. "Dec 7, 2026, 4:12 PM EST". */
const timeText = (iso: string, tz: string) => formatLong(Date.parse(iso), tz);

/** What these need of a practice (`practiceSchema`). */
export interface PracticeLike {
  id: string;
  label: string;
  kind: string;
  retired?: string | undefined;
}

/** Whether a practice is retired at `at` (ms): from its retirement time on. */
export const retiredAt = (p: PracticeLike, at: number): boolean =>
  p.retired !== undefined && Date.parse(p.retired) <= at;

/** The practices in force at `at` (ms): those not retired by then, in the site's order. */
export function practicesInForce<P extends PracticeLike>(list: readonly P[] | undefined, at: number): P[] {
  return (list ?? []).filter((p) => !retiredAt(p, at));
}

/**
 * The id a new practice takes from its label: its words in lower case joined by "-" ("Silt fence, north
 * boundary" -> "silt-fence-north-boundary"), with "-2", "-3", … when the site has (or had) that id.
 */
export function practiceIdFor(label: string, taken: Iterable<string>): string {
  const have = new Set(taken);
  const base =
    label
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 56)
      .replace(/-+$/, '') || 'practice';
  if (!have.has(base)) return base;
  for (let n = 2; ; n++) if (!have.has(`${base}-${n}`)) return `${base}-${n}`;
}

const kindWords = (k: string) => (PRACTICE_KIND_LABELS[k as PracticeKind] ?? k).toLowerCase();
const asList = (v: unknown): PracticeLike[] =>
  Array.isArray(v)
    ? v.filter(
        (p): p is PracticeLike =>
          typeof p === 'object' && p !== null && typeof (p as PracticeLike).id === 'string',
      )
    : [];

/**
 * A change of a site's practices in words, one phrase per practice: "practice 'Sediment trap no. 1'
 * added (sediment trap)", "practice 'Silt fence' renamed 'Silt fence, north boundary'", "practice 'Inlet
 * protection, CB-2' changed from inlet protection to other practice", "practice 'Temporary seeding'
 * retired from Dec 7, 2026, 4:12 PM EST", "practice 'Sediment trap no. 2' removed". Times in `tz`.
 */
export function practiceChanges(old: unknown, next: unknown, tz: string): string[] {
  const before = new Map(asList(old).map((p) => [p.id, p]));
  const after = asList(next);
  const out: string[] = [];
  for (const p of after) {
    const was = before.get(p.id);
    const name = `practice '${p.label}'`;
    if (!was) {
      out.push(
        `${name} added (${kindWords(p.kind)})${p.retired ? `, retired from ${timeText(p.retired, tz)}` : ''}`,
      );
      continue;
    }
    if (was.label !== p.label) out.push(`practice '${was.label}' renamed '${p.label}'`);
    if (was.kind !== p.kind) out.push(`${name} changed from ${kindWords(was.kind)} to ${kindWords(p.kind)}`);
    if (was.retired !== p.retired)
      out.push(
        p.retired
          ? `${name} retired from ${timeText(p.retired, tz)}`
          : `${name} no longer retired (it was from ${timeText(was.retired ?? '', tz)})`,
      );
  }
  const kept = new Set(after.map((p) => p.id));
  for (const p of before.values()) if (!kept.has(p.id)) out.push(`practice '${p.label}' removed`);
  return out;
}
