/**
 * Rows as stored to the DTOs of the contract (`shared/src/api/alerts.ts`): times to ISO 8601 UTC, JSON
 * columns parsed, flags to booleans.
 */
import type {
  AlertDto,
  AlertHistoryEntry,
  ExtensionDto,
  InspectionDto,
  StormDto,
} from '../../../shared/src/api/alerts.ts';
import {
  deficiencyId,
  type Finding,
  type InspectionDetails,
  type Signature,
} from '../../../shared/src/api/findings.ts';
import type { ResolutionCause } from '../../../shared/src/api/resolutionCause.ts';
import { toIso } from '../../../shared/src/time.ts';
import type { Evidence } from '../rules/types.ts';
import type { AlertRow, ExtensionListRow, HistoryRow, InspectionRow, StormRow } from './types.ts';

/**
 * An alert's DTO. `history` is its rows, or a function that reads them: then the DTO's `history` is read
 * (once) only when something reads it, so building the DTO of an alert with a long history costs no more
 * than that of a new one. The function must return the history as it was when the DTO was built (e.g.
 * the rows up to the last seq at that time: the history is append-only).
 */
export function alertDto(r: AlertRow, history: HistoryRow[] | (() => HistoryRow[]), now: number): AlertDto {
  const dto: AlertDto = {
    id: r.id,
    rule: r.rule,
    siteId: r.site_id,
    status: r.status,
    overdue: r.status !== 'resolved' && r.due_at !== null && now > r.due_at,
    raisedAt: toIso(r.raised_at),
    dueAt: r.due_at === null ? null : toIso(r.due_at),
    message: r.message,
    evidence: JSON.parse(r.evidence) as Evidence,
    history: typeof history === 'function' ? [] : history.map(historyEntry),
  };
  if (typeof history === 'function') lazyHistory(dto, history);
  if (r.device_id !== null) dto.deviceId = r.device_id;
  if (r.original_due_at !== null) dto.originalDueAt = toIso(r.original_due_at);
  if (r.acknowledged_at !== null) dto.acknowledgedAt = toIso(r.acknowledged_at);
  if (r.acknowledged_by !== null) dto.acknowledgedBy = r.acknowledged_by;
  if (r.resolved_at !== null) dto.resolvedAt = toIso(r.resolved_at);
  if (r.within_deadline !== null) dto.withinDeadline = r.within_deadline === 1;
  if (r.resolution !== null) {
    dto.resolution = {
      how: r.resolution,
      by: r.resolved_by ?? 'system',
      evidence: JSON.parse(r.resolution_evidence ?? '{}') as Evidence,
    };
    if (r.resolution_message !== null) dto.resolution.message = r.resolution_message;
    if (r.resolution_cause) dto.resolution.cause = JSON.parse(r.resolution_cause) as ResolutionCause;
  }
  return dto;
}

/** A record's place in the evidence log, as DTOs show it. */
/** Where a logged record stands in the evidence log: its entry's index and leaf hash (base64). */
export function logged(r: { log_idx?: number | null; leaf?: Buffer | null }): {
  logIndex?: number;
  leafHash?: string;
} {
  const out: { logIndex?: number; leafHash?: string } = {};
  if (r.log_idx !== null && r.log_idx !== undefined) out.logIndex = r.log_idx;
  if (r.leaf) out.leafHash = r.leaf.toString('base64');
  return out;
}

/** Makes `dto.history` an enumerable property that reads and maps the rows on first access, then keeps them. */
function lazyHistory(dto: AlertDto, load: () => HistoryRow[]): void {
  let entries: AlertHistoryEntry[] | undefined;
  Object.defineProperty(dto, 'history', {
    enumerable: true,
    configurable: true,
    get: () => {
      entries ??= load().map(historyEntry);
      return entries;
    },
    set: (v: AlertHistoryEntry[]) => {
      entries = v;
    },
  });
}

function historyEntry(h: HistoryRow): AlertHistoryEntry {
  const e: AlertHistoryEntry = {
    seq: h.seq,
    at: toIso(h.at),
    actor: h.actor,
    action: h.action,
    detail: JSON.parse(h.detail) as Evidence,
    ...logged(h),
  };
  if (h.source_at !== null) e.sourceAt = toIso(h.source_at);
  return e;
}

/** An inspection's deficiencies (each with its id), deficiencies remedied and hauler, when it has them. */
function detailsDto(i: InspectionRow): Pick<InspectionDto, 'deficiencies' | 'remedied' | 'hauler'> {
  const d = JSON.parse(i.details || '{}') as InspectionDetails;
  return {
    ...(d.deficiencies?.length
      ? { deficiencies: d.deficiencies.map((x, n) => ({ ...x, id: deficiencyId(i.id, n) })) }
      : {}),
    ...(d.remedied?.length ? { remedied: d.remedied } : {}),
    ...(d.hauler ? { hauler: d.hauler } : {}),
  };
}

export function inspectionDto(i: InspectionRow): InspectionDto {
  return {
    id: i.id,
    siteId: i.site_id,
    at: toIso(i.at),
    inspector: i.inspector,
    kind: i.kind,
    notes: i.notes,
    findings: JSON.parse(i.findings || '[]') as Finding[],
    ...detailsDto(i),
    side: i.side === 'town' ? 'town' : 'developer',
    ...(i.practices ? { coverage: { covered: i.covered ?? 0, of: i.practices } } : {}),
    ...(i.signature ? { signature: JSON.parse(i.signature) as Signature } : {}),
    recordedAt: toIso(i.recorded_at),
    recordedBy: i.recorded_by,
    hash: i.hash,
    ...logged(i),
  };
}

export function extensionDto(e: ExtensionListRow): ExtensionDto {
  const dto: ExtensionDto = {
    seq: e.seq,
    alertId: e.alert_id,
    siteId: e.site_id,
    rule: e.rule,
    oldDueAt: toIso(e.old_due),
    newDueAt: toIso(e.new_due),
    engineer: e.engineer,
    letterRef: e.letter_ref,
    at: toIso(e.at),
    by: e.by,
    hash: e.hash,
    ...logged(e),
  };
  if (e.note !== null) dto.note = e.note;
  return dto;
}

/** A storm record with the status of its inspection: the first one meeting it (`inspection`), or none. */
export function stormDto(
  s: StormRow,
  inspection: InspectionRow | undefined,
  now: number,
  during: readonly InspectionRow[] = [],
): StormDto {
  const dto: StormDto = {
    id: s.id,
    siteId: s.site_id,
    deviceId: s.device_id,
    start: toIso(s.start),
    end: toIso(s.end),
    tips: s.tips,
    inches: s.inches,
    qualified: s.qualified === 1,
    closed: s.closed === 1,
    inspection: { status: 'not-required' },
    ...logged(s),
  };
  if (s.threshold_at !== null) dto.thresholdAt = toIso(s.threshold_at);
  if (s.due_at !== null) dto.dueAt = toIso(s.due_at);
  if (s.qualified === 1) {
    if (inspection) {
      // The due time is the last instant on time, as the engine counts an alert's (`resolved <= due`).
      const late = s.due_at !== null && inspection.at > s.due_at;
      dto.inspection = {
        status: late ? 'late' : 'on-time',
        inspectionId: inspection.id,
        inspectedAt: toIso(inspection.at),
      };
    } else {
      dto.inspection = { status: s.due_at !== null && now > s.due_at ? 'missing' : 'pending' };
    }
    if (during.length)
      dto.inspectedDuring = during.map((i) => ({ inspectionId: i.id, inspectedAt: toIso(i.at) }));
  }
  return dto;
}
