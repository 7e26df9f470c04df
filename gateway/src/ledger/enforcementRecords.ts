/**
 * The logged records of enforcement (town law 001, "Enforcement"; town law 000, Sections 5.100 B,
 * 5.030 A 7, 5.010): a notice of violation, each step after it (served, appealed, heard, corrected,
 * approved), a stop-work order, its services and its lifting. Each is the columns of its row
 * (`store/schema/v10.ts`, `v14.ts`), as `records.ts` serialises every record; a column added in v14 is
 * left out when null (and a step's `detail` spread into it), so a row stored before keeps its logged
 * form. Pure: no I/O.
 */

/** A step's details (JSON) spread into its record; none when null. */
const detailOf = (detail: string | null | undefined): Record<string, unknown> =>
  detail ? (JSON.parse(detail) as Record<string, unknown>) : {};

/** The columns of a notice of violation (the `violations` table) that its logged record is made of. */
export interface ViolationFields {
  seq: number;
  id: string;
  site_id: string;
  site_seq: number;
  inspection_id: string | null;
  nature: string;
  remedy: string;
  remedy_due_at: number;
  penalties: string;
  at: number;
  issued_by: string;
  appeal_by: number;
  /** JSON: the landowner, developer and site address the notice was directed to. */
  parties: string;
  /** The law it is under ("001", "000"); null in rows stored before v14 (law 001). */
  law: string | null;
  /** What it orders (one of its law's order kinds); null in rows stored before v14. */
  order_kind: string | null;
}

/** A notice of violation as logged: the six elements of the law, who issued it, when, and the appeal's end. */
export function violationRecord(v: ViolationFields): Record<string, unknown> {
  return {
    seq: v.seq,
    siteSeq: v.site_seq,
    id: v.id,
    siteId: v.site_id,
    inspectionId: v.inspection_id ?? undefined,
    nature: v.nature,
    remedy: v.remedy,
    remedyDueAt: v.remedy_due_at,
    penalties: v.penalties,
    issuedAt: v.at,
    issuedBy: v.issued_by,
    appealBy: v.appeal_by,
    parties: JSON.parse(v.parties) as unknown,
    ...(v.law !== null ? { law: v.law } : {}),
    ...(v.order_kind !== null ? { orderKind: v.order_kind } : {}),
  };
}

/** The columns of a step after a notice (the `violation_events` table). */
export interface ViolationEventFields {
  seq: number;
  violation_id: string;
  kind: string;
  at: number;
  by: string;
  text: string;
  /** JSON: the photos' hashes. */
  photos: string;
  /** JSON: a service's `method`, `party`, `servedAt` (and the first's `appealBy`), a hearing's `heldOn`, `outcome`. */
  detail: string | null;
}

export function violationEventRecord(e: ViolationEventFields): Record<string, unknown> {
  return {
    seq: e.seq,
    violationId: e.violation_id,
    kind: e.kind,
    at: e.at,
    by: e.by,
    text: e.text,
    photos: JSON.parse(e.photos) as unknown,
    ...detailOf(e.detail),
  };
}

/** The columns of a stop-work order (the `stop_work` table). */
export interface StopWorkFields {
  seq: number;
  id: string;
  site_id: string;
  site_seq: number;
  reason: string;
  /** JSON: the notices of violation it names. */
  violation_ids: string;
  at: number;
  issued_by: string;
  /** The law it is under; null in rows stored before v14 (law 001). */
  law: string | null;
}

export function stopWorkRecord(o: StopWorkFields): Record<string, unknown> {
  return {
    seq: o.seq,
    siteSeq: o.site_seq,
    id: o.id,
    siteId: o.site_id,
    reason: o.reason,
    violationIds: JSON.parse(o.violation_ids) as unknown,
    at: o.at,
    issuedBy: o.issued_by,
    ...(o.law !== null ? { law: o.law } : {}),
  };
}

/**
 * The columns of a stop-work order's step (the `stop_work_events` table): its lifting (`override` 1 or
 * 0) or a service (`detail`: method, party, servedAt).
 */
export interface StopWorkEventFields {
  seq: number;
  order_id: string;
  kind: string;
  at: number;
  by: string;
  note: string;
  override: number;
  detail: string | null;
}

export function stopWorkEventRecord(e: StopWorkEventFields): Record<string, unknown> {
  return {
    seq: e.seq,
    orderId: e.order_id,
    kind: e.kind,
    at: e.at,
    by: e.by,
    note: e.note,
    override: e.override === 1,
    ...detailOf(e.detail),
  };
}

/** The columns of a developer's record of a site (the `site_records` table, schema version 14). */
export interface SiteRecordFields {
  seq: number;
  id: string;
  site_id: string;
  site_seq: number;
  kind: string;
  at: number;
  recorded_at: number;
  recorded_by: string;
  /** JSON: the record's fields as given. */
  body: string;
}

/** A developer's record as logged: what it is, the time it speaks of, who recorded it when, its fields. */
export function siteRecordRecord(r: SiteRecordFields): Record<string, unknown> {
  return {
    seq: r.seq,
    siteSeq: r.site_seq,
    id: r.id,
    siteId: r.site_id,
    kind: r.kind,
    at: r.at,
    recordedAt: r.recorded_at,
    recordedBy: r.recorded_by,
    body: JSON.parse(r.body) as unknown,
  };
}
