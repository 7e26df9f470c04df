/**
 * Enforcement under the law of the site (town law 001, "Enforcement"; town law 000, Sections 5.100 B,
 * 5.030 A 7, 5.010): notices of violation and stop-work orders. A notice is one row, its services, appeal,
 * hearing, corrections and approval rows of its events; an order is one row, its services and lifting
 * event rows. Every row is an entry of the evidence log, written in the same transaction of the engine's
 * unit of work (`port.ts`) as the notice's remedy duty (the `violation` input the site's rules are fed:
 * `rules/violation-remedy/`). A notice's status, its first service and appeal window, and an order's being
 * in effect are derived from their events (`dto.ts`). The caller's checks (`guard`) run inside the
 * transaction, against the state as it is there, and refuse by throwing.
 */

import {
  ENFORCEMENT_LAWS,
  type EnforcementLaw,
  type EnforcementLawId,
  lawOf,
  TOWN_APPEAL_DEFAULT,
  type TownAppeal,
  withTownAppeal,
} from '../../../shared/src/api/enforcementLaws.ts';
import type {
  StopWorkDto,
  StopWorkServed,
  ViolationDto,
  ViolationIssued,
  ViolationStatus,
} from '../../../shared/src/api/violations.ts';
import { withinDays } from '../../../shared/src/days.ts';
import { toIso } from '../../../shared/src/time.ts';
import { ulid } from '../alerts/ulid.ts';
import { recordStopWorkEvent, recordViolationEvent } from '../store/outbox.ts';
import type { Page } from '../store/page.ts';
import type { Db } from '../store/types.ts';
import {
  type ApprovalDetail,
  documentUrlOf,
  type HearingDetail,
  type Parties,
  type ServiceDetail,
  stopWorkDto,
  violationDto,
} from './dto.ts';
import type { EnforcementPort, ViolationFeed } from './port.ts';
import type { ViolationEventRow, ViolationRow, ViolationStore } from './stores/violations.ts';

export { documentUrlOf, type Parties, statusOf, stopWorkDto, violationDto } from './dto.ts';

/** A notice as the officer issues it: the site, its law, the nature and the remedy's due time. */
export type ViolationInput = Omit<ViolationFeed, 'type' | 'step' | 'id' | 'at' | 'by' | 'cite'> & {
  law: EnforcementLawId;
  orderKind: string;
  inspectionId?: string | undefined;
  remedy: string;
  penalties: string;
  parties: Parties;
};

export type ViolationStep = 'appealed' | 'corrected' | 'approved';

/** A service as recorded: how, on whom, when (epoch ms), by whom, with an optional note. */
export interface ServiceInput {
  method: ServiceDetail['method'];
  party: string;
  servedAt: number;
  by: string;
  note?: string | undefined;
}

/** The words a remedy duty cites for a law ("law 000, Sections 5.100 B, …"). */
const citeOf = (law: EnforcementLawId) => `law ${law}, ${ENFORCEMENT_LAWS[law].part}`;

export class Violations {
  constructor(
    private readonly store: ViolationStore,
    private readonly port: Pick<EnforcementPort, 'run'>,
    /** The store, for the notification outbox: the notice is served by e-mail (`notify/`). */
    private readonly db: Db,
    /** A site's time zone (the appeal window's days are its local days). */
    private readonly tzOf: (siteId: string) => string,
    /** The town's choice of the days to appeal where the law names none (law 000, Section 5.010). */
    private readonly appeal: TownAppeal = TOWN_APPEAL_DEFAULT,
  ) {}

  /** A law with the town's choices applied (the days to appeal, where the law names none). */
  private readonly townLaw = (id: string | null | undefined): EnforcementLaw => {
    const law = lawOf(id);
    return law.appealDaysChosen === undefined ? law : withTownAppeal(law, this.appeal);
  };

  /** A notice as the API answers it, with the town's choices of today. */
  private dto(row: ViolationRow, events: readonly ViolationEventRow[]): ViolationDto {
    return violationDto(row, events, this.townLaw);
  }

  /**
   * Issues a notice now under its law; opens its remedy duty and writes its notification event (served by
   * e-mail on the parties on file). It is not served until a delivery reaches a party or the officer
   * records a service (`serve`): the appeal window has not started.
   */
  issue(input: ViolationInput, actor: string): ViolationIssued {
    return this.port.run((u) => {
      const id = `nov-${ulid(u.now)}`;
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
        // 0: the appeal window runs from the first service (its step), not from the issue.
        appeal_by: 0,
        parties: JSON.stringify(input.parties),
        law: input.law,
        order_kind: input.orderKind,
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
        cite: citeOf(input.law),
      });
      // To be served on the parties through the outbox, committed with the notice.
      const row = this.store.byId(id)!;
      recordViolationEvent(this.db, {
        eventId: `violation:${id}`,
        violation: this.dto(row, []),
        createdAt: u.now,
      });
      u.notified();
      return {
        id,
        law: input.law,
        issuedAt: toIso(u.now),
        appealDays: this.townLaw(input.law).appealDays,
        status: 'issued',
        documentUrl: documentUrlOf(id),
      };
    });
  }

  /**
   * Records a service of a notice on a party. Each service keeps the end of the appeal window it would
   * start (the law's days from it, in the site's zone); the window is the earliest service's. `guard` sees
   * the notice as stored and throws to refuse; a second e-mail service on the same party is not recorded
   * again (undefined returned then, as for a notice not found).
   */
  serve(
    id: string,
    s: ServiceInput,
    guard: (v: ViolationDto, now: number) => void,
  ): ViolationDto | undefined {
    const vs = this.store;
    return this.port.run((u) => {
      const row = vs.byId(id);
      if (!row) return undefined;
      const events = vs.events(id);
      guard(this.dto(row, events), u.now);
      const again = events.some((e) => {
        if (e.kind !== 'served' || s.method !== 'email') return false;
        const d = JSON.parse(e.detail ?? '{}') as Partial<ServiceDetail>;
        return d.method === 'email' && d.party === s.party;
      });
      if (again) return undefined;
      const appealDays = this.townLaw(row.law).appealDays;
      const appealBy = withinDays(s.servedAt, appealDays, this.tzOf(row.site_id));
      const detail: ServiceDetail = {
        method: s.method,
        party: s.party,
        servedAt: s.servedAt,
        appealBy,
        appealDays,
      };
      vs.appendEvent({
        violation_id: id,
        kind: 'served',
        at: u.now,
        by: s.by,
        text: s.note ?? '',
        photos: '[]',
        detail: JSON.stringify(detail),
      });
      return this.dto(row, vs.events(id));
    });
  }

  /**
   * Records the hearing of a notice's appeal (its date and outcome); a reversal closes the notice and its
   * remedy duty. `guard` sees the notice as stored and throws to refuse.
   */
  hear(
    id: string,
    h: HearingDetail & { note: string; by: string },
    guard: (v: ViolationDto, now: number) => void,
  ): ViolationDto | undefined {
    const vs = this.store;
    return this.port.run((u) => {
      const row = vs.byId(id);
      if (!row) return undefined;
      guard(this.dto(row, vs.events(id)), u.now);
      const detail: HearingDetail = { heldOn: h.heldOn, outcome: h.outcome };
      vs.appendEvent({
        violation_id: id,
        kind: 'heard',
        at: u.now,
        by: h.by,
        text: h.note,
        photos: '[]',
        detail: JSON.stringify(detail),
      });
      if (h.outcome === 'reversed')
        u.feedViolation({
          type: 'violation',
          step: 'reversed',
          siteId: row.site_id,
          id,
          at: u.now,
          remedyDueAt: row.remedy_due_at,
          nature: row.nature,
          by: h.by,
          ...(row.site_seq != null ? { number: row.site_seq } : {}),
        });
      return this.dto(row, vs.events(id));
    });
  }

  /**
   * Records a step of a notice now. `guard` sees the notice as stored (and the time) and throws to refuse;
   * for an approval it answers the re-inspection the approval rests on, kept in the step's `detail` (and
   * so in its log entry). An approval also closes the notice's remedy duty. Returns the notice as committed.
   */
  step(
    id: string,
    kind: ViolationStep,
    s: { text: string; photos?: readonly string[]; by: string },
    // biome-ignore lint/suspicious/noConfusingVoidType: a guard that only refuses answers nothing.
    guard: (v: ViolationDto, now: number) => ApprovalDetail | undefined | void,
  ): ViolationDto | undefined {
    const vs = this.store;
    return this.port.run((u) => {
      const row = vs.byId(id);
      if (!row) return undefined;
      // The guard may answer what the step rests on (an approval: its re-inspection), kept with it.
      const detail = guard(this.dto(row, vs.events(id)), u.now);
      vs.appendEvent({
        violation_id: id,
        kind,
        at: u.now,
        by: s.by,
        text: s.text,
        photos: JSON.stringify(s.photos ?? []),
        detail: detail ? JSON.stringify(detail) : null,
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
          ...(row.site_seq != null ? { number: row.site_seq } : {}),
        });
      return this.dto(row, vs.events(id));
    });
  }

  get(id: string): ViolationDto | undefined {
    const vs = this.store;
    const row = vs.byId(id);
    return row ? this.dto(row, vs.events(id)) : undefined;
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
    return vs.query(q).map((r) => this.dto(r, vs.events(r.id)));
  }

  /**
   * Issues a stop-work order now and writes its notification event (served by e-mail on the parties on
   * file, `parties`, the site's as they are now); `guard` sees the order in effect (if any) and throws to
   * refuse.
   */
  stopWork(
    siteId: string,
    o: {
      reason: string;
      violationIds: readonly string[];
      by: string;
      law: EnforcementLawId;
      parties: Parties;
    },
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
        law: o.law,
      });
      const order = this.order(id)!;
      this.toServe('issued', order, o.parties, u.now);
      u.notified();
      return order;
    });
  }

  /** The order's notification event (its service, or the notice of its lifting), in the unit of work. */
  private toServe(step: 'issued' | 'lifted', order: StopWorkDto, parties: Parties, now: number): void {
    recordStopWorkEvent(this.db, {
      step,
      order: { ...order, ...parties } satisfies StopWorkServed,
      createdAt: now,
    });
  }

  /**
   * Lifts the site's order in effect now and writes the notice that it is lifted (e-mailed to the parties
   * on file, `parties`); `guard` sees the order (undefined when none) and throws to refuse.
   */
  lift(
    siteId: string,
    l: { note: string; override: boolean; by: string; parties: Parties },
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
        detail: null,
      });
      const order = this.order(current.id)!;
      this.toServe('lifted', order, l.parties, u.now);
      u.notified();
      return order;
    });
  }

  /**
   * Records a service of a stop-work order on a party; `guard` sees the order and throws to refuse. A
   * second e-mail service on the same party is not recorded again (undefined returned then, as for an
   * order not found).
   */
  serveOrder(
    id: string,
    s: ServiceInput,
    guard: (o: StopWorkDto, now: number) => void,
  ): StopWorkDto | undefined {
    const vs = this.store;
    return this.port.run((u) => {
      const current = this.order(id);
      if (!current) return undefined;
      guard(current, u.now);
      const again =
        s.method === 'email' &&
        (current.services ?? []).some((x) => x.method === 'email' && x.party === s.party);
      if (again) return undefined;
      const detail: ServiceDetail = { method: s.method, party: s.party, servedAt: s.servedAt };
      vs.appendOrderEvent({
        order_id: id,
        kind: 'served',
        at: u.now,
        by: s.by,
        note: s.note ?? '',
        override: 0,
        detail: JSON.stringify(detail),
      });
      return this.order(id)!;
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
