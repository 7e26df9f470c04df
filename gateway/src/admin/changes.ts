/**
 * Change records: every change to a site, a device, its secret, a site's recipients, an account or a
 * personal token is a row of `changes` and an entry of the evidence log, written in the same transaction
 * as the change itself: who made it, when, the old and the new value (secrets never: only that one was
 * set), and the time it takes effect. The entry's body is `type: "change"` with these members
 * (README "Evidence anyone can verify").
 */

import type { CHANGE_ENTITIES, ChangeResponse } from '../../../shared/src/admin.ts';
import { recordBody } from '../ledger/records.ts';
import type { EvidenceLog } from '../store/evidenceLog.ts';
import { type Page, pageSql } from '../store/page.ts';
import type { Db } from '../store/types.ts';
import { where } from '../store/where.ts';

export type ChangeEntity = (typeof CHANGE_ENTITIES)[number];

export interface ChangeInput {
  entity: ChangeEntity;
  action: string;
  by: string;
  siteId?: string;
  deviceId?: string;
  /** The record's own id when it is not a site or device (an account, a token). */
  ref?: string;
  old?: unknown;
  new?: unknown;
  /** When the change takes effect (default: when it is made). */
  effectiveAt?: number;
}

interface ChangeRow {
  id: number;
  at: number;
  effective_at: number;
  actor: string;
  entity: ChangeEntity;
  action: string;
  site_id: string | null;
  device_id: string | null;
  ref: string | null;
  old: string | null;
  new: string | null;
  log_idx: number;
}

type ChangeRecord = Omit<
  ChangeResponse,
  'at' | 'effectiveAt' | 'logIndex' | 'leafHash' | 'siteId' | 'deviceId' | 'ref'
> & {
  at: number;
  effectiveAt: number;
  siteId?: string;
  deviceId?: string;
  ref?: string;
};

/** The canonical record of a change, as its evidence entry logs it. */
export function changeRecord(r: ChangeRow): ChangeRecord {
  return {
    id: r.id,
    at: r.at,
    effectiveAt: r.effective_at,
    by: r.actor,
    entity: r.entity,
    action: r.action,
    siteId: r.site_id ?? undefined,
    deviceId: r.device_id ?? undefined,
    ref: r.ref ?? undefined,
    old: r.old === null ? undefined : (JSON.parse(r.old) as unknown),
    new: r.new === null ? undefined : (JSON.parse(r.new) as unknown),
  };
}

export interface ChangeQuery {
  siteId?: string;
  /** Only these sites (a scoped caller's). */
  sites?: readonly string[];
  from?: number;
  to?: number;
  /** One page, newest first (the API's list); without it, every change in effective order. */
  page?: Page;
}

export class ChangeLog {
  private readonly stmts;

  constructor(
    private readonly db: Db,
    private readonly log: EvidenceLog,
    private readonly now: () => number,
  ) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO changes (at, effective_at, actor, entity, action, site_id, device_id, ref, old, new, log_idx)
         VALUES (@at, @effective_at, @actor, @entity, @action, @site_id, @device_id, @ref, @old, @new, @log_idx)`,
      ),
      next: db.prepare<[], { id: number | null }>('SELECT MAX(id) AS id FROM changes'),
    };
  }

  /** Records a change and logs it: call inside the transaction that makes the change. */
  record(c: ChangeInput): { id: number; logIndex: number } {
    const at = this.now();
    const row: ChangeRow = {
      id: (this.stmts.next.get()?.id ?? 0) + 1,
      at,
      effective_at: c.effectiveAt ?? at,
      actor: c.by,
      entity: c.entity,
      action: c.action,
      site_id: c.siteId ?? null,
      device_id: c.deviceId ?? null,
      ref: c.ref ?? null,
      old: c.old === undefined ? null : JSON.stringify(c.old),
      new: c.new === undefined ? null : JSON.stringify(c.new),
      log_idx: this.log.nextIndex(),
    };
    const body = recordBody('change', { ...changeRecord(row) });
    const [logIndex] = this.log.append([{ kind: 'change', ref: String(row.id), at, body, keepBody: true }]);
    row.log_idx = logIndex!;
    this.stmts.insert.run(row);
    return { id: row.id, logIndex: row.log_idx };
  }

  /** Changes in effect order; a period [from, to) is of their effective time. */
  list(q: ChangeQuery = {}): ChangeResponse[] {
    const page = pageSql('effective_at', 'id', q.page, 'effective_at, id');
    const sites = q.sites ? `site_id IN (${q.sites.map(() => '?').join(',') || 'NULL'})` : undefined;
    const w = where([
      ['site_id = ?', q.siteId],
      [sites ?? '', sites ? [...(q.sites ?? [])] : undefined],
      ['effective_at >= ?', q.from],
      ['effective_at < ?', q.to],
      page.cond,
    ]);
    const rows = this.db
      .prepare<unknown[], ChangeRow>(`SELECT * FROM changes ${w.sql} ${page.tail}`)
      .all(...w.params);
    return rows.map((r) => this.view(r));
  }

  private view(r: ChangeRow): ChangeResponse {
    const {
      at,
      effectiveAt,
      siteId,
      deviceId,
      ref,
      old,
      new: next,
      ...rest
    } = changeRecord(r) as ChangeRecord;
    return {
      ...rest,
      at: new Date(at).toISOString(),
      effectiveAt: new Date(effectiveAt).toISOString(),
      siteId: siteId ?? null,
      deviceId: deviceId ?? null,
      ref: ref ?? null,
      old: old ?? null,
      new: next ?? null,
      logIndex: r.log_idx,
      leafHash: this.log.entry(r.log_idx)?.leaf.toString('base64') ?? '',
    };
  }
}
