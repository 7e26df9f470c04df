/**
 * What a report shows that is not a list of records: every record it cites is of its site, and each
 * duty's rule, start, message and who resolved it are its history's, the history numbered without a gap
 * (`alertSeq`, from schema version 6). The lists of records (inspections, extensions, certifications,
 * ...) are the tables of `sections.ts`. Pure, no Node API (it is bundled into verify.html).
 */
import type { ResolutionCause } from '../../../shared/src/api/resolutionCause.ts';
import { causeWords } from '../../../shared/src/api/resolutionWords.ts';
import type { Certification } from '../../../shared/src/api/system.ts';
import { formatLong } from '../../../shared/src/time.ts';
import { type CitedBody, differences, ms, type Pair, runningGaps } from './checker.ts';
import { capital, dutyWords, entryWords, type Problem, problem, type Words } from './words.ts';

type Json = Record<string, unknown>;

/** A certification as a report shows it (the report's own adds the checkpoint it was made at). */
export type ShownCertification = Omit<Certification, 'checkpoint'>;

/** An inspection as a report shows it. */
export interface ShownInspection {
  id: string;
  at: string;
  kind: string;
  inspector?: string;
  notes?: string;
  recordedAt?: string;
  recordedBy?: string;
  /** What it found at each practice, with the photos' hashes. */
  findings?: unknown[];
  /** Whose it is, and how many of the site's practices it covered (`inspected.ts`). */
  side?: string;
  coverage?: { covered: number; of: number };
  /** The inspector's signature: the name, how it was signed, a drawing (reports before have none). */
  signature?: { name: string; method: string; drawing?: string };
  logIndex?: number;
}

/** An engineer's extension as a report shows it. */
export interface ShownExtension {
  alertId: string;
  newDueAt: string;
  oldDueAt?: string;
  engineer?: string;
  letterRef?: string;
  at?: string;
  by?: string;
  logIndex?: number;
}

/** The parts of the report these checks read. */
export interface ShownReport {
  /** The site; its practices' labels name them in sentences (reports of earlier releases have none). */
  site?: { id: string; name?: string; timezone?: string; practices?: Array<{ id: string; label: string }> };
  period?: { from: string; to: string };
  inspections: ShownInspection[];
  extensions: ShownExtension[];
  certifications?: ShownCertification[];
}

export interface ShownDuty {
  alertId: string;
  rule: string;
  began?: string;
  message?: string;
  resolvedBy?: string | null;
  /** What closed it (its resolution's cause), and that in words, as the report shows them. */
  cause?: unknown;
  resolution?: string;
  historyIndexes: number[];
}

/** A duty of the report and where it is in the JSON (`routine[0]`). */
export interface DutyAt<D extends ShownDuty = ShownDuty> {
  d: D;
  at: string;
}

/** Every cited record that names a site names the report's. */
export function checkSite(r: ShownReport, all: CitedBody[], w: Words): Problem[] {
  const siteId = r.site?.id;
  if (siteId === undefined) return [];
  return all
    .filter((e) => typeof e.body.siteId === 'string' && e.body.siteId !== siteId)
    .map((e) =>
      problem(
        `evidence.entries[${e.pos}]`,
        `Log entry ${e.index}, ${entryWords(e.body, w)}, is a record of site '${e.body.siteId}', not of this report's site '${w.site}'`,
      ),
    );
}

/** A cause as a report or a log entry holds it (untyped JSON), when it is one. */
function causeIn(v: unknown): ResolutionCause | undefined {
  return typeof v === 'object' && v !== null && typeof (v as Json).kind === 'string'
    ? (v as ResolutionCause)
    : undefined;
}

/**
 * What closed a duty, where its logged resolution holds it (from schema version 18): the cause the report
 * shows, and its words, are the log entry's, compared in words (times in the report's zone).
 */
function causePairs(d: ShownDuty, detail: unknown, w: Words): Pair[] {
  const logged = causeIn((detail as Json | undefined)?.cause);
  if (!logged) return [];
  const words = (c: ResolutionCause) => causeWords(c, (iso) => formatLong(Date.parse(iso), w.tz));
  const shown = causeIn(d.cause);
  return [
    [
      'cause',
      'what closed it as',
      d.cause === undefined ? undefined : shown ? words(shown) : String(d.cause),
      words(logged),
    ],
    ['resolution', 'what closed it as', d.resolution, words(logged)],
  ];
}

/** Duties: what the row shows is its history's, and the history is numbered without a gap. */
export function checkDutiesShown(
  duties: DutyAt[],
  cited: (i: number | undefined) => CitedBody | undefined,
  w: Words,
): Problem[] {
  const out: Problem[] = [];
  for (const { d, at } of duties) {
    const where = capital(dutyWords(d));
    const history = d.historyIndexes.map(cited).filter((h): h is CitedBody => h !== undefined);
    out.push(
      ...runningGaps(
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
      ['began', 'its start', raised ? ms(d.began) : undefined, raised?.sourceAt ?? raised?.at, 'time'],
      ['message', 'its message', message === undefined ? undefined : d.message, message],
      ['resolvedBy', 'who resolved it', resolved ? (d.resolvedBy ?? undefined) : undefined, resolved?.actor],
      ...causePairs(d, resolved?.detail, w),
    ];
    out.push(...differences(where, at, pairs, { compare: 'given', sentence: 'shows' }, w));
  }
  return out;
}
