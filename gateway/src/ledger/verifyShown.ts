/**
 * The verifier's checks of what a report shows against the bodies it cites: each inspection, extension
 * and certification listed says what its logged record says; each duty's rule, start, message and who
 * resolved it are its history's; and completeness: each alert's history entries and each site's
 * inspections carry their running number (`alertSeq`, `siteSeq`, from schema version 6), so a removed
 * one is a gap, and every cited inspection of the period is listed. Pure, no Node-only API (it is
 * bundled into the browser verifier).
 */
type Json = Record<string, unknown>;
export type CitedBody = { kind: string; body: Json };

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
  site?: { id: string };
  period?: { from: string; to: string };
  inspections: Array<{
    id: string;
    at: string;
    kind: string;
    inspector?: string;
    notes?: string;
    recordedAt?: string;
    recordedBy?: string;
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

/** `[field, shown, logged]` pairs that differ, as problems of `where`. */
function compare(where: string, pairs: Array<[string, unknown, unknown]>): string[] {
  return pairs
    .filter(([, shown, logged]) => shown !== undefined && shown !== logged)
    .map(
      ([k, shown, logged]) =>
        `${where}: the report shows ${k} ${JSON.stringify(shown)}, its logged record ${JSON.stringify(logged)}`,
    );
}

/** Entries in the order logged whose running number (`key`) is not their place: something is missing. */
function gaps(where: string, entries: Array<Json>, key: string): string[] {
  const out: string[] = [];
  entries.forEach((b, i) => {
    const n = b[key];
    if (typeof n === 'number' && n !== i + 1)
      out.push(
        `${where}: entry number ${n} is cited in place ${i + 1}: ${n > i + 1 ? `${n - i - 1} entry(ies) before it are missing` : 'it is out of order'}`,
      );
  });
  return out.slice(0, 1);
}

export function checkShown(
  r: ShownReport,
  duties: ShownDuty[],
  cited: (i: number | undefined) => CitedBody | undefined,
  all: Array<{ index: number } & CitedBody>,
): string[] {
  const out: string[] = [];
  const siteId = r.site?.id;
  if (siteId !== undefined)
    for (const e of all)
      if (typeof e.body.siteId === 'string' && e.body.siteId !== siteId)
        out.push(`entry ${e.index}: a record of site ${e.body.siteId}, not of this report's site ${siteId}`);

  // Inspections: each listed one is its record; the site's cited ones are numbered without a gap.
  for (const x of r.inspections) {
    const where = `inspection ${x.id}`;
    const e = cited(x.logIndex);
    if (e?.kind !== 'inspection') {
      out.push(`${where}: its log entry is not cited`);
      continue;
    }
    out.push(
      ...compare(where, [
        ['id', x.id, e.body.id],
        ['time', t(x.at), e.body.at],
        ['kind', x.kind, e.body.kind],
        ['inspector', x.inspector, e.body.inspector],
        ['notes', x.notes, e.body.notes],
        ['recorded time', t(x.recordedAt), e.body.recordedAt],
        ['recorded by', x.recordedBy, e.body.recordedBy],
      ]),
    );
  }
  const inspections = all.filter((e) => e.kind === 'inspection');
  out.push(
    ...gaps(
      `the inspections of the site`,
      inspections.map((e) => e.body),
      'siteSeq',
    ),
  );
  if (r.period) {
    const [from, to] = [Date.parse(r.period.from), Date.parse(r.period.to)];
    const listed = new Set(r.inspections.map((x) => x.logIndex));
    for (const e of inspections)
      if ((e.body.at as number) >= from && (e.body.at as number) < to && !listed.has(e.index))
        out.push(`inspection ${String(e.body.id)}: logged in the period (entry ${e.index}), not listed`);
  }

  for (const x of r.extensions) {
    const where = `the extension of duty ${x.alertId}`;
    const e = cited(x.logIndex);
    if (e?.kind !== 'extension') {
      out.push(`${where}: its log entry is not cited`);
      continue;
    }
    out.push(
      ...compare(where, [
        ['duty', x.alertId, e.body.alertId],
        ['old due time', t(x.oldDueAt), e.body.oldDue],
        ['new due time', t(x.newDueAt), e.body.newDue],
        ['engineer', x.engineer, e.body.engineer],
        ['letter', x.letterRef, e.body.letterRef],
        ['recorded time', t(x.at), e.body.at],
        ['recorded by', x.by, e.body.by],
      ]),
    );
  }

  for (const c of r.certifications ?? []) {
    const where = `the certification by ${c.by}`;
    const e = cited(c.logIndex);
    if (e?.kind !== 'certification') {
      out.push(`${where}: its log entry is not cited`);
      continue;
    }
    out.push(
      ...compare(where, [
        ['who', c.by, e.body.by],
        ['role', c.role, e.body.role],
        ['time', t(c.at), e.body.at],
        ['statement', c.statement, e.body.statement],
        ['period start', t(c.period.from), e.body.from],
        ['period end', t(c.period.to), e.body.to],
      ]),
    );
  }

  // Duties: what the row shows is its history's, and the history is numbered without a gap.
  for (const d of duties) {
    const where = `duty ${d.alertId}`;
    const history = d.historyIndexes.map(cited).filter((h): h is CitedBody => h !== undefined);
    out.push(
      ...gaps(
        `the history of ${where}`,
        history.map((h) => h.body),
        'alertSeq',
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
    out.push(
      ...compare(where, [
        ['rule', d.rule, history[0]?.body.rule],
        ['start', raised ? t(d.began) : undefined, raised?.sourceAt ?? raised?.at],
        ['message', message === undefined ? undefined : d.message, message],
        ['resolved by', resolved ? (d.resolvedBy ?? undefined) : undefined, resolved?.actor],
      ]),
    );
  }
  return out;
}
