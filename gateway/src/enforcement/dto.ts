/**
 * Enforcement's rows as the contract's DTOs (`shared/src/api/violations.ts`): a notice of violation with
 * its steps, its law, its first service and the appeal window that service started; a stop-work order
 * with its services and its lifting. A notice's status is derived from its steps (`statusOfSteps`).
 */
import {
  type EnforcementLaw,
  lawIdOfSiteKind,
  lawOf,
  orderKindOf,
} from '../../../shared/src/api/enforcementLaws.ts';
import { statusOfSteps } from '../../../shared/src/api/enforcementWords.ts';
import type {
  Party,
  StopWorkDto,
  ViolationDto,
  ViolationEvent,
  ViolationStatus,
} from '../../../shared/src/api/violations.ts';
import { toIso } from '../../../shared/src/time.ts';
import type { StopWorkEventRow, StopWorkRow, ViolationEventRow, ViolationRow } from './stores/violations.ts';

/** Who and where a notice is directed to, as the site had them when it was issued. */
export interface Parties {
  landowner?: Party | undefined;
  developer?: Party | undefined;
  siteAddress?: string | undefined;
}

/** A service's details, as its step's `detail` keeps them (times epoch ms). */
export interface ServiceDetail {
  method: 'email' | 'mail' | 'in-person';
  party: string;
  servedAt: number;
  /** The end of the appeal window were this service the first (the law's days from it, site's zone). */
  appealBy?: number;
  /** The days to appeal it counted (the town's figure where the law names none; absent in older steps). */
  appealDays?: number;
}

/** A hearing's details, as its step's `detail` keeps them. */
export interface HearingDetail {
  heldOn: string;
  outcome: 'upheld' | 'modified' | 'reversed';
}

/** An approval's details: the re-inspection it rests on (its id, when it was made (ms), by whom). */
export interface ApprovalDetail {
  inspectionId: string;
  inspectedAt: number;
  inspectedBy: string;
}

type Detail = Partial<ServiceDetail> & Partial<HearingDetail> & Partial<ApprovalDetail>;

/** The document of a notice, served by the API. */
export const documentUrlOf = (id: string) => `/api/violations/${encodeURIComponent(id)}/document`;

const leafOf = (hash: string) => Buffer.from(hash, 'hex').toString('base64');

export const detailOf = (detail: string | null): Detail => (detail ? (JSON.parse(detail) as Detail) : {});

/** A notice's status from its steps (a service changes none; a hearing only when it reverses). */
export function statusOf(events: readonly { kind: string; detail?: string | null }[]): ViolationStatus {
  return statusOfSteps(events.map((e) => ({ kind: e.kind, outcome: detailOf(e.detail ?? null).outcome })));
}

/** The first service among a notice's or an order's steps (the earliest time served), if any. */
export function firstService(
  events: readonly { kind: string; detail: string | null }[],
): ServiceDetail | undefined {
  let first: ServiceDetail | undefined;
  for (const e of events) {
    if (e.kind !== 'served') continue;
    const d = detailOf(e.detail) as ServiceDetail;
    if (first === undefined || d.servedAt < first.servedAt) first = d;
  }
  return first;
}

function eventDto(e: ViolationEventRow): ViolationEvent {
  const d = detailOf(e.detail);
  return {
    kind: e.kind as ViolationEvent['kind'],
    at: toIso(e.at),
    by: e.by,
    text: e.text,
    photos: JSON.parse(e.photos) as string[],
    ...(d.method !== undefined ? { method: d.method } : {}),
    ...(d.party !== undefined ? { party: d.party } : {}),
    ...(d.servedAt !== undefined ? { servedAt: toIso(d.servedAt) } : {}),
    ...(d.appealBy !== undefined ? { appealBy: toIso(d.appealBy) } : {}),
    ...(d.heldOn !== undefined ? { heldOn: d.heldOn } : {}),
    ...(d.outcome !== undefined ? { outcome: d.outcome } : {}),
    ...(d.inspectionId !== undefined ? { inspectionId: d.inspectionId } : {}),
    ...(d.inspectedAt !== undefined ? { inspectedAt: toIso(d.inspectedAt) } : {}),
    ...(d.inspectedBy !== undefined ? { inspectedBy: d.inspectedBy } : {}),
    logIndex: e.log_idx,
    leafHash: leafOf(e.hash),
  };
}

/**
 * The appeal window of a notice: from its first service; a notice stored before notices were served
 * (`appeal_by` set at issue) was taken as served when issued.
 */
function windowOf(v: ViolationRow, rows: readonly ViolationEventRow[]) {
  const first = firstService(rows);
  if (first) return { servedAt: first.servedAt, appealBy: first.appealBy, appealDays: first.appealDays };
  if (v.appeal_by > 0) return { servedAt: v.at, appealBy: v.appeal_by };
  return {};
}

/**
 * A notice as the API answers it; `townLaw` gives its law with the town's choices of today applied (the
 * days to appeal where the law names none), for a notice not yet served.
 */
/** The days to appeal a notice and, where they are the town's choice of today, its reason. */
function appealOf(
  w: { appealBy?: number | undefined; appealDays?: number | undefined },
  written: EnforcementLaw,
  town: EnforcementLaw,
): { appealDays: number; appealReason?: string } {
  const days = w.appealDays ?? (w.appealBy !== undefined ? written : town).appealDays;
  return town.appealDaysChosen !== undefined && town.appealReason !== undefined && days === town.appealDays
    ? { appealDays: days, appealReason: town.appealReason }
    : { appealDays: days };
}

export function violationDto(
  v: ViolationRow,
  rows: readonly ViolationEventRow[],
  townLaw: (id: string) => EnforcementLaw = lawOf,
): ViolationDto {
  const parties = JSON.parse(v.parties) as Parties;
  const approved = rows.find((e) => e.kind === 'approved');
  const law = v.law ?? '001';
  const w = windowOf(v, rows);
  return {
    id: v.id,
    siteId: v.site_id,
    siteSeq: v.site_seq,
    law,
    orderKind: orderKindOf(lawOf(law), v.order_kind).id,
    ...(v.inspection_id !== null ? { inspectionId: v.inspection_id } : {}),
    status: statusOf(rows),
    nature: v.nature,
    remedy: v.remedy,
    remedyDueAt: toIso(v.remedy_due_at),
    penalties: v.penalties,
    issuedAt: toIso(v.at),
    issuedBy: v.issued_by,
    ...(w.servedAt !== undefined ? { servedAt: toIso(w.servedAt) } : {}),
    ...(w.appealBy !== undefined ? { appealBy: toIso(w.appealBy) } : {}),
    // Served before services kept their days: the law's entry then (the town's choice came later).
    ...appealOf(w, lawOf(law), townLaw(law)),
    ...(parties.landowner ? { landowner: parties.landowner } : {}),
    ...(parties.developer ? { developer: parties.developer } : {}),
    ...(parties.siteAddress ? { siteAddress: parties.siteAddress } : {}),
    ...(approved ? { onTime: approved.at <= v.remedy_due_at } : {}),
    events: rows.map(eventDto),
    documentUrl: documentUrlOf(v.id),
    logIndex: v.log_idx,
    leafHash: leafOf(v.hash),
  };
}

export function stopWorkDto(o: StopWorkRow, events: readonly StopWorkEventRow[]): StopWorkDto {
  const lift = events.find((e) => e.kind === 'lifted');
  const services = events
    .filter((e) => e.kind === 'served')
    .map((e) => {
      const d = detailOf(e.detail) as ServiceDetail;
      return {
        method: d.method,
        party: d.party,
        servedAt: toIso(d.servedAt),
        at: toIso(e.at),
        by: e.by,
        note: e.note,
        logIndex: e.log_idx,
      };
    });
  const first = firstService(events);
  return {
    id: o.id,
    siteId: o.site_id,
    siteSeq: o.site_seq,
    law: o.law ?? '001',
    since: toIso(o.at),
    reason: o.reason,
    issuedBy: o.issued_by,
    violationIds: JSON.parse(o.violation_ids) as string[],
    ...(lift
      ? {
          liftedAt: toIso(lift.at),
          liftedBy: lift.by,
          liftNote: lift.note,
          liftLogIndex: lift.log_idx,
          ...(lift.override === 1 ? { override: true } : {}),
        }
      : {}),
    services,
    ...(first ? { servedAt: toIso(first.servedAt) } : {}),
    logIndex: o.log_idx,
    leafHash: leafOf(o.hash),
  };
}

/** The law of a site of kind `kind`, by id (`ENFORCEMENT_LAWS`). */
export const lawIdOf = (site: { kind: string }) => lawIdOfSiteKind(site.kind);
