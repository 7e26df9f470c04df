/** The inspections: append-only, each row logged (`logged.ts`). */
import { loggedRowsInRange } from '../../store/page.ts';
import type { PhotoCitation } from '../../store/photos.ts';
import type { Db, InspectionQuery, InspectionRow } from '../types.ts';
import type { LoggedRows } from './logged.ts';

/** An inspection's findings cite photos: the photo store asks this (`main.ts` registers it). */
export const INSPECTION_PHOTOS: PhotoCitation = {
  // A cheap text match first, then the findings' photo lists.
  sitesCiting: (sha) =>
    `SELECT i.site_id AS siteId FROM inspections i, json_each(i.findings) f, json_each(f.value, '$.photos') p
       WHERE i.findings != '[]' AND instr(i.findings, ${sha}) > 0 AND p.value = ${sha}`,
  hashes: `SELECT p.value AS sha256 FROM inspections i, json_each(i.findings) f, json_each(f.value, '$.photos') p
    WHERE i.findings != '[]'`,
};

export class InspectionStore {
  private readonly stmts;

  constructor(
    private readonly db: Db,
    private readonly logged: LoggedRows,
  ) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO inspections (seq, id, site_id, at, inspector, kind, notes, recorded_at, recorded_by,
           prev_hash, hash, log_idx, site_seq, findings, client_id, details, side, practices, covered, signature)
         VALUES (@seq, @id, @site_id, @at, @inspector, @kind, @notes, @recorded_at, @recorded_by,
           @prev_hash, @hash, @log_idx, @site_seq, @findings, @client_id, @details, @side, @practices, @covered, @signature)`,
      ),
      withViolations: db.prepare<[string], InspectionRow>(
        `SELECT *, (SELECT leaf FROM log_entries WHERE idx = log_idx) AS leaf FROM inspections
           WHERE site_id = ? AND instr(findings, '"status":"violation"') > 0 ORDER BY at, seq`,
      ),
      count: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM inspections WHERE site_id = ?'),

      byId: db.prepare<[string], InspectionRow>(
        'SELECT *, (SELECT leaf FROM log_entries WHERE idx = log_idx) AS leaf FROM inspections WHERE id = ?',
      ),
      byClientId: db.prepare<[string], InspectionRow>(
        'SELECT *, (SELECT leaf FROM log_entries WHERE idx = log_idx) AS leaf FROM inspections WHERE client_id = ?',
      ),
      firstMeeting: db.prepare<[string, number, string, string], InspectionRow>(
        `SELECT *, (SELECT leaf FROM log_entries WHERE idx = log_idx) AS leaf FROM inspections WHERE site_id = ? AND at >= ?
           AND kind IN (SELECT value FROM json_each(?))
           AND coalesce(side, 'developer') IN (SELECT value FROM json_each(?))
           AND (practices IS NULL OR covered >= practices) ORDER BY at, seq LIMIT 1`,
      ),
      within: db.prepare<[string, number, number, string], InspectionRow>(
        `SELECT *, (SELECT leaf FROM log_entries WHERE idx = log_idx) AS leaf FROM inspections WHERE site_id = ?
           AND at >= ? AND at <= ? AND kind IN (SELECT value FROM json_each(?)) ORDER BY at, seq`,
      ),
    };
  }

  append(
    i: Omit<InspectionRow, 'seq' | 'prev_hash' | 'hash' | 'site_seq' | 'details'> & { details?: string },
  ): number {
    // Its place among the site's inspections: a report citing them all shows a removed one as a gap.
    const site_seq = this.stmts.count.get(i.site_id)!.n + 1;
    const row = {
      ...i,
      client_id: i.client_id ?? null,
      details: i.details ?? '{}',
      side: i.side ?? null,
      practices: i.practices ?? null,
      covered: i.covered ?? null,
      signature: i.signature ?? null,
      site_seq,
    };
    return this.logged.append('inspections', row, this.stmts.insert).seq;
  }

  /** The inspection a browser sent with this id, if it was recorded. */
  byClientId(clientId: string): InspectionRow | undefined {
    return this.stmts.byClientId.get(clientId);
  }

  byId(id: string): InspectionRow | undefined {
    return this.stmts.byId.get(id);
  }

  /** The first inspection of one of these kinds at the site at or after `notBefore`. */
  /**
   * The first inspection at or after a time that meets a duty: of one of its kinds and sides, covering
   * every practice the site had (rows of a site without practices, or recorded before coverage was kept,
   * count as covering).
   */
  firstMeeting(
    siteId: string,
    notBefore: number,
    kinds: readonly string[],
    sides: readonly string[],
  ): InspectionRow | undefined {
    return this.stmts.firstMeeting.get(siteId, notBefore, JSON.stringify(kinds), JSON.stringify(sides));
  }

  /** A site's inspections with a finding of violation (its findings are canonical JSON), oldest first. */
  withViolations(siteId: string): InspectionRow[] {
    return this.stmts.withViolations.all(siteId);
  }

  /** The site's inspections of these kinds made from `from` to `to` (both included), oldest first. */
  within(siteId: string, from: number, to: number, kinds: readonly string[]): InspectionRow[] {
    return this.stmts.within.all(siteId, from, to, JSON.stringify(kinds));
  }

  query(q: InspectionQuery): InspectionRow[] {
    return loggedRowsInRange(this.db, 'inspections', q, {
      time: 'at',
      order: 'at, seq',
      extra: [
        ['kind = ?', q.kind],
        ["coalesce(side, 'developer') = ?", q.side],
      ],
    });
  }
}
