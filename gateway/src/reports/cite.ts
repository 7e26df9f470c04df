/**
 * Which evidence-log entries a compliance report cites: each storm's record and the readings it rests
 * on (its gauge's readings from start to end, and the one before, which a counter's first increment is
 * measured from), each duty's history entries and the readings behind them (the crossing, the cleanout,
 * the start and end of a gap: the device's reading at each entry's source time), every inspection of
 * the site and every milestone notice (numbered, so a removed one is a gap), the extensions and
 * certifications.
 *
 * A report's size is bounded: it cites at most `maxReadings` readings of storms (`reports.maxCitedReadings`). A storm whose readings
 * do not fit (a months-long drizzle) is cited by its record, the reading before it and its first and last
 * readings, and is listed in `longStorms`: the verifier then checks its record, not its readings' sum.
 * The work is done in slices that leave the event loop free between them.
 */
import type { AlertDto, ExtensionDto, InspectionDto, StormDto } from '../../../shared/src/api/alerts.ts';
import type { NoticeDto } from '../../../shared/src/api/notices.ts';
import type { StopWorkDto, ViolationDto } from '../../../shared/src/api/violations.ts';
import { type Citations, citeSliced, readingIndexAt } from '../evidence/citations.ts';
import type { EvidenceLog } from '../store/evidenceLog.ts';
import type { Db } from '../store/types.ts';

export interface Cited {
  siteId: string;
  storms: StormDto[];
  alerts: AlertDto[];
  inspections: InspectionDto[];
  notices: NoticeDto[];
  /** The notices of violation and stop-work orders the report lists. */
  violations: ViolationDto[];
  stopWork: StopWorkDto[];
  extensions: ExtensionDto[];
  certifications: Array<{ logIndex: number }>;
  changes: Array<{ logIndex: number }>;
  /** The developer's records the report lists. */
  records?: Array<{ logIndex?: number | undefined }>;
}

/** A storm cited by its record and its first and last readings: too many readings to carry them all. */
export interface LongStorm {
  stormId: string;
  /** How many readings of its gauge fall from its start to its end. */
  readings: number;
  /** The log entries of its first and last reading. */
  first: number;
  last: number;
}

export interface ReportCitations extends Citations {
  longStorms: LongStorm[];
}

export async function reportCitations(
  db: Db,
  log: EvidenceLog,
  r: Cited,
  size: number,
  /** Storm readings the report carries at most (`reports.maxCitedReadings`, 10,000: about 4 MB of JSON). */
  maxReadings: number,
): Promise<ReportCitations> {
  const idx: number[] = [];
  const longStorms: LongStorm[] = [];
  const q = stormQueries(db);
  let budget = maxReadings;
  // The duties' history first, before anything lets the event loop go: it is read (once) as it is now.
  const readingAt = readingIndexAt(db);
  for (const a of r.alerts) {
    for (const h of a.history) {
      if (h.logIndex !== undefined) idx.push(h.logIndex);
      if (a.deviceId && h.sourceAt) {
        const at = readingAt(a.siteId, a.deviceId, Date.parse(h.sourceAt));
        if (at !== undefined) idx.push(at);
      }
    }
  }
  for (const s of r.storms) {
    if (s.logIndex !== undefined) idx.push(s.logIndex);
    const [from, to] = [Date.parse(s.start), Date.parse(s.end)];
    const before = q.before.get(s.siteId, s.deviceId, from, size)?.log_idx;
    if (before !== undefined && before !== null) idx.push(before);
    const n = q.count.get(s.siteId, s.deviceId, from, to)!.n;
    if (n <= budget) {
      budget -= n;
      for (const row of q.within.all(s.siteId, s.deviceId, from, to, size))
        if (row.log_idx !== null) idx.push(row.log_idx);
    } else {
      const first = q.first.get(s.siteId, s.deviceId, from, to, size)?.log_idx;
      const last = q.last.get(s.siteId, s.deviceId, from, to, size)?.log_idx;
      if (first !== undefined && first !== null && last !== undefined && last !== null) {
        idx.push(first, last);
        longStorms.push({ stormId: s.id, readings: n, first, last });
      }
    }
    await slice();
  }
  // Every inspection of the site up to the checkpoint, not only the period's: numbered, they show a gap.
  for (const row of q.inspections.all(r.siteId, size)) idx.push(row.log_idx);
  // And every milestone notice of the site, likewise numbered.
  for (const row of q.notices.all(r.siteId, size)) idx.push(row.log_idx);
  // And every notice of violation and stop-work order of the site, numbered; the listed ones' steps.
  for (const row of q.violations.all(r.siteId, size)) idx.push(row.log_idx);
  for (const row of q.stopWork.all(r.siteId, size)) idx.push(row.log_idx);
  // And every developer's record of the site, numbered.
  for (const row of q.records.all(r.siteId, size)) idx.push(row.log_idx);
  for (const x of r.records ?? []) if (x.logIndex !== undefined) idx.push(x.logIndex);
  for (const v of r.violations) for (const e of v.events) if (e.logIndex !== undefined) idx.push(e.logIndex);
  for (const o of r.stopWork) if (o.liftLogIndex !== undefined) idx.push(o.liftLogIndex);
  for (const o of r.stopWork)
    for (const s of o.services ?? []) if (s.logIndex !== undefined) idx.push(s.logIndex);
  for (const x of [...r.inspections, ...r.notices, ...r.violations, ...r.stopWork, ...r.extensions])
    if (x.logIndex !== undefined) idx.push(x.logIndex);
  for (const c of [...r.certifications, ...r.changes]) idx.push(c.logIndex);
  return { ...(await citeSliced(db, log, idx, size)), longStorms };
}

const slice = () => new Promise<void>((resolve) => setImmediate(resolve));

type Idx = { log_idx: number | null };
type Span = [site: string, device: string, from: number, to: number, size: number];

function stormQueries(db: Db) {
  const range = 'site_id = ? AND device_id = ? AND ts >= ? AND ts <= ? AND log_idx < ?';
  return {
    // Counted on the index alone (a storm still going on may count a reading after the checkpoint).
    count: db.prepare<[string, string, number, number], { n: number }>(
      'SELECT COUNT(*) AS n FROM readings WHERE site_id = ? AND device_id = ? AND ts >= ? AND ts <= ?',
    ),
    within: db.prepare<Span, Idx>(`SELECT log_idx FROM readings WHERE ${range} ORDER BY ts`),
    first: db.prepare<Span, Idx>(`SELECT log_idx FROM readings WHERE ${range} ORDER BY ts LIMIT 1`),
    last: db.prepare<Span, Idx>(`SELECT log_idx FROM readings WHERE ${range} ORDER BY ts DESC LIMIT 1`),
    before: db.prepare<[string, string, number, number], Idx>(
      'SELECT log_idx FROM readings WHERE site_id = ? AND device_id = ? AND ts < ? AND log_idx < ? ORDER BY ts DESC LIMIT 1',
    ),
    inspections: db.prepare<[string, number], { log_idx: number }>(
      'SELECT log_idx FROM inspections WHERE site_id = ? AND log_idx IS NOT NULL AND log_idx < ? ORDER BY seq',
    ),
    notices: db.prepare<[string, number], { log_idx: number }>(
      'SELECT log_idx FROM notices WHERE site_id = ? AND log_idx < ? ORDER BY seq',
    ),
    violations: db.prepare<[string, number], { log_idx: number }>(
      'SELECT log_idx FROM violations WHERE site_id = ? AND log_idx < ? ORDER BY seq',
    ),
    stopWork: db.prepare<[string, number], { log_idx: number }>(
      'SELECT log_idx FROM stop_work WHERE site_id = ? AND log_idx < ? ORDER BY seq',
    ),
    records: db.prepare<[string, number], { log_idx: number }>(
      'SELECT log_idx FROM site_records WHERE site_id = ? AND log_idx < ? ORDER BY seq',
    ),
  };
}
