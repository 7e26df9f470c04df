/**
 * Enforcement (town law 001, "Enforcement"): notices of violation and stop-work orders. A notice is one
 * row, its appeal, corrections and approval rows of its events; an order is one row, its lifting an event
 * row. Every row is an entry of the evidence log, written in the same transaction of the engine's unit of
 * work (`port.ts`) as the notice's remedy duty (the `violation` input the site's rules are fed:
 * `rules/violation-remedy/`). A notice's status and an order's being in effect are derived from their
 * events. The caller's checks (`guard`) run inside the transaction, against the state as it is there, and
 * refuse by throwing.
 */

import { NOTICE_LAW } from '../../../shared/src/api/enforcementLaws.ts';
import type {
  Party,
  StopWorkDto,
  ViolationDto,
  ViolationEvent,
  ViolationIssued,
  ViolationStatus,
} from '../../../shared/src/api/violations.ts';
import { toIso } from '../../../shared/src/time.ts';
import { ulid } from '../alerts/ulid.ts';
import { recordViolationEvent } from '../store/outbox.ts';
import type { Page } from '../store/page.ts';
import type { Db } from '../store/types.ts';
import type { EnforcementPort, ViolationFeed } from './port.ts';
import type { StopWorkRow, ViolationEventRow, ViolationRow, ViolationStore } from './stores/violations.ts';

const DAY_MS = 86_400_000;

/** Who and where a notice is directed to, as the site had them when it was issued. */
export interface Parties {
  landowner?: Party | undefined;
  developer?: Party | undefined;
  siteAddress?: string | undefined;
}

/** A notice as the officer issues it: the site, the nature and the remedy's due time as its rule is fed them. */
export type ViolationInput = Omit<ViolationFeed, 'type' | 'step' | 'id' | 'at' | 'by'> & {
  inspectionId?: string | undefined;
  remedy: string;
  penalties: string;
  parties: Parties;
};

export type ViolationStep = 'appealed' | 'corrected' | 'approved';

/** The document of a notice, served by the API. */
export const documentUrlOf = (id: string) => `/api/violations/${encodeURIComponent(id)}/document`;

const leafOf = (hash: string) => Buffer.from(hash, 'hex').toString('base64');

/** A notice's status: its last step, `issued` before any. */
export function statusOf(events: readonly { kind: string }[]): ViolationStatus {
  return (events.at(-1)?.kind as ViolationStatus | undefined) ?? 'issued';
}

function eventDto(e: ViolationEventRow): ViolationEvent {
  return {
    kind: e.kind as ViolationEvent['kind'],
    at: toIso(e.at),
    by: e.by,
    text: e.text,
    photos: JSON.parse(e.photos) as string[],
    logIndex: e.log_idx,
    leafHash: leafOf(e.hash),
  };
}

export function violationDto(v: ViolationRow, rows: readonly ViolationEventRow[]): ViolationDto {
  const parties = JSON.parse(v.parties) as Parties;
  const approved = rows.find((e) => e.kind === 'approved');
  return {
    id: v.id,
    siteId: v.site_id,
    siteSeq: v.site_seq,
    ...(v.inspection_id !== null ? { inspectionId: v.inspection_id } : {}),
    status: statusOf(rows),
    nature: v.nature,
    remedy: v.remedy,
    remedyDueAt: toIso(v.remedy_due_at),
    penalties: v.penalties,
    issuedAt: toIso(v.at),
    issuedBy: v.issued_by,
    appealBy: toIso(v.appeal_by),
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

export function stopWorkDto(
  o: StopWorkRow,
  events: readonly {
    kind: string;
    at: number;
    by: string;
    note: string;
    override: number;
    log_idx: number;
  }[],
): StopWorkDto {
  const lift = events.find((e) => e.kind === 'lifted');
  return {
    id: o.id,
    siteId: o.site_id,
    siteSeq: o.site_seq,
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
    logIndex: o.log_idx,
    leafHash: leafOf(o.hash),
  };
}

export class Violations {
  constructor(
    private readonly store: ViolationStore,
    private readonly port: Pick<EnforcementPort, 'run'>,
    /** The store, for the notification outbox: the notice is served by e-mail (`notify/`). */
    private readonly db: Db,
  ) {}

  /** Issues a notice now, served now: the appeal runs the law's days x 24 h from it; opens its remedy duty. */
  issue(input: ViolationInput, actor: string): ViolationIssued {
    return this.port.run((u) => {
      const id = `nov-${ulid(u.now)}`;
      const appealBy = u.now + NOTICE_LAW.appealDays * DAY_MS;
      this.store.append({
        id,
        site_id: input.siteId,
        inspection_id: input.inspectionId ?? null,
        nature: input.nature,
        remedy: input.remedy,
        remedy_due_at: input.remedyDueAt,
        penalties: input.penalties,
        at: u.now,
        issued_by: actor,
        appeal_by: appealBy,
        parties: JSON.stringify(input.parties),
      });
      u.feedViolation({
        type: 'violation',
        step: 'issued',
        siteId: input.siteId,
        id,
        at: u.now,
        remedyDueAt: input.remedyDueAt,
        nature: input.nature,
        by: actor,
      });
      // Served on the developer and owner through the outbox, committed with the notice.
      const row = this.store.byId(id)!;
      recordViolationEvent(this.db, {
        eventId: `violation:${id}`,
        violation: violationDto(row, []),
        createdAt: u.now,
      });
      u.notified();
      return {
        id,
        issuedAt: toIso(u.now),
        appealBy: toIso(appealBy),
        status: 'issued',
        documentUrl: documentUrlOf(id),
      };
    });
  }

  /**
   * Records a step of a notice now. `guard` sees the notice as stored (and the time) and throws to refuse;
   * an approval also closes the notice's remedy duty. Returns the notice as committed.
   */
  step(
    id: string,
    kind: ViolationStep,
    s: { text: string; photos?: readonly string[]; by: string },
    guard: (v: ViolationDto, now: number) => void,
  ): ViolationDto | undefined {
    const vs = this.store;
    return this.port.run((u) => {
      const row = vs.byId(id);
      if (!row) return undefined;
      guard(violationDto(row, vs.events(id)), u.now);
      vs.appendEvent({
        violation_id: id,
        kind,
        at: u.now,
        by: s.by,
        text: s.text,
        photos: JSON.stringify(s.photos ?? []),
      });
      if (kind === 'approved')
        u.feedViolation({
          type: 'violation',
          step: 'approved',
          siteId: row.site_id,
          id,
          at: u.now,
          remedyDueAt: row.remedy_due_at,
          nature: row.nature,
          by: s.by,
        });
      return violationDto(row, vs.events(id));
    });
  }

  get(id: string): ViolationDto | undefined {
    const vs = this.store;
    const row = vs.byId(id);
    return row ? violationDto(row, vs.events(id)) : undefined;
  }

  /** Notices issued in the range (inclusive), of one site or every site, in time order. */
  list(
    q: {
      siteId?: string | undefined;
      from?: number | undefined;
      to?: number | undefined;
      page?: Page | undefined;
      siteIds?: readonly string[] | undefined;
      status?: ViolationStatus | undefined;
    } = {},
  ): ViolationDto[] {
    const vs = this.store;
    return vs.query(q).map((r) => violationDto(r, vs.events(r.id)));
  }

  /** Issues a stop-work order now; `guard` sees the order in effect (if any) and throws to refuse. */
  stopWork(
    siteId: string,
    o: { reason: string; violationIds: readonly string[]; by: string },
    guard: (inEffect: StopWorkDto | undefined) => void,
  ): StopWorkDto {
    const vs = this.store;
    return this.port.run((u) => {
      guard(this.inEffect(siteId));
      const id = `stop-${ulid(u.now)}`;
      vs.appendOrder({
        id,
        site_id: siteId,
        reason: o.reason,
        violation_ids: JSON.stringify(o.violationIds),
        at: u.now,
        issued_by: o.by,
      });
      return this.order(id)!;
    });
  }

  /** Lifts the site's order in effect now; `guard` sees it (undefined when none) and throws to refuse. */
  lift(
    siteId: string,
    l: { note: string; override: boolean; by: string },
    guard: (inEffect: StopWorkDto | undefined) => asserts inEffect is StopWorkDto,
  ): StopWorkDto {
    const vs = this.store;
    return this.port.run((u) => {
      const current = this.inEffect(siteId);
      guard(current);
      vs.appendOrderEvent({
        order_id: current.id,
        kind: 'lifted',
        at: u.now,
        by: l.by,
        note: l.note,
        override: l.override ? 1 : 0,
      });
      return this.order(current.id)!;
    });
  }

  order(id: string): StopWorkDto | undefined {
    const vs = this.store;
    const row = vs.orderById(id);
    return row ? stopWorkDto(row, vs.orderEvents(id)) : undefined;
  }

  /** The site's stop-work order in effect, if any. */
  inEffect(siteId: string): StopWorkDto | undefined {
    const vs = this.store;
    const row = vs.orderInEffect(siteId);
    return row ? stopWorkDto(row, vs.orderEvents(row.id)) : undefined;
  }

  /** A site's orders (or every site's) issued up to `to`, in time order. */
  orders(q: { siteId?: string | undefined; to?: number | undefined } = {}): StopWorkDto[] {
    const vs = this.store;
    return vs.orders(q).map((r) => stopWorkDto(r, vs.orderEvents(r.id)));
  }
}
