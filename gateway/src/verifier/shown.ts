/**
 * The verifier's checks of what a report shows against the bodies it cites: each inspection, extension
 * and certification listed says what its logged record says; each duty's rule, start, message and who
 * resolved it are its history's; and completeness: each alert's history entries and each site's
 * inspections carry their running number (`alertSeq`, `siteSeq`, from schema version 6), so a removed
 * one is a gap, and every cited inspection of the period is listed. Pure, no Node API (it is bundled
 * into verify.html).
 */
import { canonicalJson } from '../ledger/canonical.ts';
import { capital, dutyWords, entryWords, type Problem, problem, shown, type Words, when } from './words.ts';

type Json = Record<string, unknown>;
/** A cited log entry: its place in the log, its place in the report's `evidence.entries`, its record. */
export type CitedBody = { index: number; pos: number; kind: string; body: Json };

const t = (iso: string | null | undefined) => (iso ? Date.parse(iso) : undefined);

/** A certification as a report shows it (the report's own adds the checkpoint it was made at). */
export interface ShownCertification {
  logIndex: number;
  by: string;
  role: string;
  at: string;
  statement: string;
  period: { from: string; to: string };
}

/** The parts of the report these checks read. */
export interface ShownReport {
  site?: { id: string; name?: string; timezone?: string };
  period?: { from: string; to: string };
  inspections: Array<{
    id: string;
    at: string;
    kind: string;
    inspector?: string;
    notes?: string;
    recordedAt?: string;
    recordedBy?: string;
    /** What it found at each practice, with the photos' hashes. */
    findings?: unknown[];
    logIndex?: number;
  }>;
  extensions: Array<{
    alertId: string;
    newDueAt: string;
    oldDueAt?: string;
    engineer?: string;
    letterRef?: string;
    at?: string;
    by?: string;
    logIndex?: number;
  }>;
  certifications?: ShownCertification[];
}

export interface ShownDuty {
  alertId: string;
  rule: string;
  began?: string;
  message?: string;
  resolvedBy?: string | null;
  historyIndexes: number[];
}

/** A duty of the report and where it is in the JSON (`routine[0]`). */
export interface DutyAt<D extends ShownDuty = ShownDuty> {
  d: D;
  at: string;
}

/** One shown field: its JSON key, its words, the value shown, the value logged, and how to write them. */
type Pair = [key: string, words: string, shown: unknown, logged: unknown, kind?: 'time' | 'text'];

/** The pairs that differ, as problems of `where` (the JSON object at `base`). */
function compare(where: string, base: string, pairs: Pair[], w: Words): Problem[] {
  return pairs
    .filter(([, , mine, logged]) => mine !== undefined && mine !== logged)
    .map(([key, words, mine, logged, kind]) =>
      problem(
        `${base}.${key}`,
        `${where}: the report shows ${words} ${shown(mine, w, kind)}, its logged record ${shown(logged, w, kind)}`,
      ),
    );
}

/** Entries in the order logged whose running number (`key`) is not their place: something is missing. */
function gaps(where: string, field: string, entries: Json[], key: string, what: string): Problem[] {
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

export function checkShown(
  r: ShownReport,
  duties: DutyAt[],
  cited: (i: number | undefined) => CitedBody | undefined,
  all: CitedBody[],
  w: Words,
): Problem[] {
  const out: Problem[] = [];
  const siteId = r.site?.id;
  if (siteId !== undefined)
    for (const e of all)
      if (typeof e.body.siteId === 'string' && e.body.siteId !== siteId)
        out.push(
          problem(
            `evidence.entries[${e.pos}]`,
            `Log entry ${e.index}, ${entryWords(e.body, w)}, is a record of site '${e.body.siteId}', not of this report's site '${w.site}'`,
          ),
        );

  // Inspections: each listed one is its record; the site's cited ones are numbered without a gap.
  r.inspections.forEach((x, i) => {
    const where = `The inspection of ${when(t(x.at), w)} by ${x.inspector ?? 'an inspector'}`;
    const e = cited(x.logIndex);
    if (e?.kind !== 'inspection') {
      out.push(problem(`inspections[${i}].logIndex`, `${where}: its logged record is not in the report`));
      return;
    }
    const pairs: Pair[] = [
      ['id', 'its number', x.id, e.body.id],
      ['at', 'its time', t(x.at), e.body.at, 'time'],
      ['kind', 'its kind', x.kind, e.body.kind],
      ['inspector', 'its inspector', x.inspector, e.body.inspector],
      ['notes', 'its notes', x.notes, e.body.notes],
      ['recordedAt', 'the time it was recorded', t(x.recordedAt), e.body.recordedAt, 'time'],
      ['recordedBy', 'who recorded it', x.recordedBy, e.body.recordedBy],
      // Its findings and their photos' hashes, as one canonical text (an entry without findings has none).
      [
        'findings',
        'its findings (the practices, what was found, the notes and the photos)',
        canonicalJson(x.findings ?? []),
        canonicalJson(e.body.findings ?? []),
      ],
    ];
    out.push(...compare(where, `inspections[${i}]`, pairs, w));
  });
  const inspections = all.filter((e) => e.kind === 'inspection');
  out.push(
    ...gaps(
      "The site's inspections in the report",
      'inspections',
      inspections.map((e) => e.body),
      'siteSeq',
      'inspection',
    ),
  );
  if (r.period) {
    const [from, to] = [Date.parse(r.period.from), Date.parse(r.period.to)];
    const listed = new Set(r.inspections.map((x) => x.logIndex));
    for (const e of inspections)
      if ((e.body.at as number) >= from && (e.body.at as number) < to && !listed.has(e.index))
        out.push(
          problem(
            'inspections',
            capital(
              `${entryWords(e.body, w)} is logged in the report's period (log entry ${e.index}) but the report does not list it`,
            ),
          ),
        );
  }

  r.extensions.forEach((x, i) => {
    const duty = duties.find((d) => d.d.alertId === x.alertId);
    const where = `The engineer's extension of ${dutyWords(duty?.d ?? x)}`;
    const e = cited(x.logIndex);
    if (e?.kind !== 'extension') {
      out.push(problem(`extensions[${i}].logIndex`, `${where}: its logged record is not in the report`));
      return;
    }
    const pairs: Pair[] = [
      ['alertId', 'its duty', x.alertId, e.body.alertId],
      ['oldDueAt', 'the old due time', t(x.oldDueAt), e.body.oldDue, 'time'],
      ['newDueAt', 'the new due time', t(x.newDueAt), e.body.newDue, 'time'],
      ['engineer', 'the engineer', x.engineer, e.body.engineer],
      ['letterRef', 'the letter', x.letterRef, e.body.letterRef],
      ['at', 'the time it was recorded', t(x.at), e.body.at, 'time'],
      ['by', 'who recorded it', x.by, e.body.by],
    ];
    out.push(...compare(where, `extensions[${i}]`, pairs, w));
  });

  (r.certifications ?? []).forEach((c, i) => {
    const where = `The certification by ${c.by}`;
    const e = cited(c.logIndex);
    if (e?.kind !== 'certification') {
      out.push(problem(`certifications[${i}].logIndex`, `${where}: its logged record is not in the report`));
      return;
    }
    const pairs: Pair[] = [
      ['by', 'who certified', c.by, e.body.by],
      ['role', 'their role', c.role, e.body.role],
      ['at', 'its time', t(c.at), e.body.at, 'time'],
      ['statement', 'the statement', c.statement, e.body.statement],
      ['period.from', 'the period start', t(c.period.from), e.body.from, 'time'],
      ['period.to', 'the period end', t(c.period.to), e.body.to, 'time'],
    ];
    out.push(...compare(where, `certifications[${i}]`, pairs, w));
  });

  // Duties: what the row shows is its history's, and the history is numbered without a gap.
  for (const { d, at } of duties) {
    const where = capital(dutyWords(d));
    const history = d.historyIndexes.map(cited).filter((h): h is CitedBody => h !== undefined);
    out.push(
      ...gaps(
        `${where}: its history in the report`,
        `${at}.historyIndexes`,
        history.map((h) => h.body),
        'alertSeq',
        'entry',
      ),
    );
    const raised = history.find((h) => h.body.action === 'raised')?.body;
    let message: unknown;
    for (const h of history) {
      const detail = (h.body.detail ?? {}) as Json;
      if ((h.body.action === 'raised' || h.body.action === 'updated') && 'message' in detail)
        message = detail.message;
    }
    const resolved = history.find((h) => h.body.action === 'resolved')?.body;
    const pairs: Pair[] = [
      ['rule', 'its rule', d.rule, history[0]?.body.rule],
      ['began', 'its start', raised ? t(d.began) : undefined, raised?.sourceAt ?? raised?.at, 'time'],
      ['message', 'its message', message === undefined ? undefined : d.message, message],
      ['resolvedBy', 'who resolved it', resolved ? (d.resolvedBy ?? undefined) : undefined, resolved?.actor],
    ];
    out.push(...compare(where, at, pairs, w));
  }
  return out;
}
