/**
 * The canonical serialisation of every record the evidence log holds: what is hashed into its leaf
 * (SHA-256 of 0x00 followed by these UTF-8 bytes), so that another program can recompute it.
 *
 * Each record is a JSON object with a `type` member, serialised canonically: object members sorted by
 * key (code-unit order, as JavaScript sorts strings), no whitespace, members whose value is absent left
 * out, numbers and strings as JSON.stringify writes them (times are integers: milliseconds since
 * 1970-01-01T00:00:00Z, UTC). The types and their members are listed in README.md ("The evidence log").
 * Pure: no I/O.
 */
import type { Reading } from '../../../shared/src/telemetry.ts';
import { canonicalJson } from './canonical.ts';

/** Stored by position: append new types at the end, never reorder ('reading' is 0, which an index uses). */
export const ENTRY_TYPES = [
  'reading',
  'storm',
  'alert-history',
  'inspection',
  'extension',
  'certification',
  'change',
  'legacy-chains',
  'retention',
  'notice',
  'violation',
  'violation-event',
  'stop-work',
  'stop-work-event',
  'site-record',
] as const;
export type EntryType = (typeof ENTRY_TYPES)[number];

/** A reading as logged: its identity, when and how it arrived, and its values. */
export function readingRecord(r: Reading): Record<string, unknown> {
  return {
    type: 'reading',
    siteId: r.siteId,
    deviceId: r.deviceId,
    deviceKind: r.deviceKind,
    ts: r.ts,
    seq: r.seq,
    receivedAt: r.receivedAt,
    transport: r.transport,
    values: r.values,
    alarms: r.alarms,
  };
}

/** The sorted, quoted keys of an object's key set (readings repeat a few sets, so they are kept). */
const keyOrders = new Map<string, Array<[key: string, quoted: string]>>();

/** Sorted, flat object of numbers or booleans as canonical JSON (the values and alarms of a reading). */
function flat(o: Record<string, number | boolean | undefined>): string {
  const names = Object.keys(o);
  const id = names.join(',');
  let order = keyOrders.get(id);
  if (!order) {
    order = names.sort().map((k) => [k, JSON.stringify(k)]);
    if (keyOrders.size < 1000) keyOrders.set(id, order);
  }
  let s = '{';
  for (const [k, q] of order) {
    const v = o[k];
    if (v === undefined) continue;
    s += `${s.length > 1 ? ',' : ''}${q}:${v}`;
  }
  return `${s}}`;
}

/**
 * canonicalJson(readingRecord(r)), written out by hand: a reading is logged at the full ingest rate, and
 * this is several times cheaper than sorting a generic object tree. A test holds the two equal.
 */
export function readingBody(r: Reading): string {
  return readingStrings(r).body;
}

/**
 * A reading's canonical body and its stored `data` ({"v": values, "a": alarms}), from one serialisation
 * of its values and alarms (the store keeps both; building them together costs one pass).
 */
export function readingStrings(r: Reading): { body: string; data: string } {
  const v = flat(r.values);
  const a = r.alarms ? flat(r.alarms) : undefined;
  let s = '{';
  if (a !== undefined) s += `"alarms":${a},`;
  s += `"deviceId":${JSON.stringify(r.deviceId)},"deviceKind":${JSON.stringify(r.deviceKind)},`;
  s += `"receivedAt":${r.receivedAt},`;
  if (r.seq !== undefined) s += `"seq":${r.seq},`;
  s += `"siteId":${JSON.stringify(r.siteId)},"transport":${JSON.stringify(r.transport)},"ts":${r.ts},`;
  s += `"type":"reading","values":${v}}`;
  return { body: s, data: a === undefined ? `{"v":${v}}` : `{"v":${v},"a":${a}}` };
}

/** The canonical body of any other record: `type` first in meaning, sorted like every member. */
export function recordBody(type: Exclude<EntryType, 'reading'>, record: Record<string, unknown>): string {
  return canonicalJson({ ...record, type });
}

/** An alert's site and rule, which its history entries and extensions name. */
export interface AlertOf {
  siteId: string;
  rule: string;
}

/** An alert history entry as logged; `detail` is stored as canonical JSON and logged as the object. */
export function historyRecord(
  h: {
    seq: number;
    alert_id: string;
    at: number;
    source_at: number | null;
    actor: string;
    action: string;
    detail: string;
    /** Its place in its alert's history, 1, 2, … (rows logged before schema version 6 have none). */
    alert_seq?: number | null;
  },
  alert: AlertOf,
): Record<string, unknown> {
  return {
    seq: h.seq,
    alertSeq: h.alert_seq ?? undefined,
    alertId: h.alert_id,
    siteId: alert.siteId,
    rule: alert.rule,
    at: h.at,
    sourceAt: h.source_at ?? undefined,
    actor: h.actor,
    action: h.action,
    detail: JSON.parse(h.detail) as unknown,
  };
}

export function inspectionRecord(i: {
  seq: number;
  id: string;
  site_id: string;
  at: number;
  inspector: string;
  kind: string;
  notes: string;
  recorded_at: number;
  recorded_by: string;
  /** Its place among its site's inspections, 1, 2, … (rows logged before schema version 6 have none). */
  site_seq?: number | null;
  /**
   * What it found at each practice, with the photos' hashes: canonical JSON of an array (schema version
   * 9). None or `[]` is logged as no member at all, so an entry logged before findings existed reads the same.
   */
  findings?: string | null;
  /**
   * Its deficiencies, deficiencies remedied and hauler: canonical JSON of an object (schema version 14).
   * None or `{}` is logged as no member at all, so an entry logged before reads the same.
   */
  details?: string | null;
  /**
   * Whose it is, and the practices it covered of the site's (schema version 17). None is logged as no
   * member, so an entry logged before reads the same.
   */
  side?: string | null;
  practices?: number | null;
  covered?: number | null;
  /**
   * The inspector's signature: canonical JSON of an object (schema version 19), logged as that object, so
   * a signature changed afterwards is not what its entry says. None is logged as no member.
   */
  signature?: string | null;
}): Record<string, unknown> {
  const findings = i.findings ? (JSON.parse(i.findings) as unknown[]) : [];
  const details = i.details ? (JSON.parse(i.details) as Record<string, unknown>) : {};
  return {
    seq: i.seq,
    siteSeq: i.site_seq ?? undefined,
    id: i.id,
    siteId: i.site_id,
    at: i.at,
    inspector: i.inspector,
    kind: i.kind,
    notes: i.notes,
    recordedAt: i.recorded_at,
    recordedBy: i.recorded_by,
    findings: findings.length > 0 ? findings : undefined,
    details: Object.keys(details).length > 0 ? details : undefined,
    side: i.side ?? undefined,
    practices: i.practices ?? undefined,
    covered: i.covered ?? undefined,
    signature: i.signature ? (JSON.parse(i.signature) as Record<string, unknown>) : undefined,
  };
}

/** The columns of a milestone notice (the `notices` table) that its logged record is made of. */
export interface NoticeFields {
  seq: number;
  id: string;
  site_id: string;
  milestone: string;
  at: number;
  filed_at: number;
  filed_by: string;
  late: number;
  site_seq: number;
}

/** A milestone notice as logged: what was announced for when, filed when and by whom, and whether late. */
export function noticeRecord(n: NoticeFields): Record<string, unknown> {
  return {
    seq: n.seq,
    siteSeq: n.site_seq,
    id: n.id,
    siteId: n.site_id,
    milestone: n.milestone,
    at: n.at,
    filedAt: n.filed_at,
    filedBy: n.filed_by,
    late: n.late === 1,
  };
}

/** The columns of an extension (the `extensions` table) that its logged record is made of. */
export interface ExtensionFields {
  seq: number;
  alert_id: string;
  old_due: number;
  new_due: number;
  engineer: string;
  letter_ref: string;
  note: string | null;
  at: number;
  by: string;
}

export function extensionRecord(e: ExtensionFields, alert: AlertOf): Record<string, unknown> {
  return {
    seq: e.seq,
    alertId: e.alert_id,
    siteId: alert.siteId,
    rule: alert.rule,
    oldDue: e.old_due,
    newDue: e.new_due,
    engineer: e.engineer,
    letterRef: e.letter_ref,
    note: e.note ?? undefined,
    at: e.at,
    by: e.by,
  };
}

/**
 * What a storm's totals were computed with, as its record logs it: the calibration in force and the
 * threshold, and for a gauge recalibrated, the earlier calibrations (readings before `until` counted at
 * that entry's inches per tip).
 */
export interface StormBasis {
  inchesPerTip: number;
  thresholdIn: number;
  calibrations?: Array<{ until: number; inchesPerTip: number }>;
}

/** The columns of a storm (the `storms` table, store/schema/) that its logged record is made of. */
export interface StormFields {
  id: string;
  site_id: string;
  device_id: string;
  start: number;
  end: number;
  tips: number;
  inches: number;
  qualified: number;
  threshold_at: number | null;
  due_at: number | null;
  closed: number;
  superseded_by: string | null;
}

/** The readings a storm record rests on: how many of its gauge's readings fall from its start to its end. */
export interface StormReadings {
  count: number;
}

/** A storm record as logged: the event, and the readings (of its gauge, start to end) it was computed from. */
export function stormRecord(
  s: StormFields,
  readings: StormReadings,
  supersedes: number | null,
  basis?: StormBasis,
): Record<string, unknown> {
  return {
    id: s.id,
    siteId: s.site_id,
    deviceId: s.device_id,
    start: s.start,
    end: s.end,
    tips: s.tips,
    inches: s.inches,
    qualified: s.qualified === 1,
    thresholdAt: s.threshold_at ?? undefined,
    dueAt: s.due_at ?? undefined,
    closed: s.closed === 1,
    supersededBy: s.superseded_by ?? undefined,
    readings,
    supersedes: supersedes ?? undefined,
    basis,
  };
}
