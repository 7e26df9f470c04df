/**
 * The contract between the pure rule evaluators and the deadline engine.
 * Evaluators are pure: (state, input, site) -> (new state, effects). The engine persists
 * state and alerts in the store and turns effects into alert lifecycle changes.
 *
 * The types are generic in the rule ids an evaluator serves (`Id`), so each rule's evaluator is held to
 * its own ids; the list of every rule id is the registry's (`registry.ts`).
 */
import type { InspectionDetails } from '../../../shared/src/api/findings.ts';
import type { Reading } from '../../../shared/src/telemetry.ts';
import type { StormBasis } from '../ledger/records.ts';
import type { RuleContext, RuleParams } from './context.ts';

export type { RuleContext } from './context.ts';

/** JSON-serialisable evidence attached to an alert change. */
export type Evidence = Record<string, unknown>;

/**
 * Effects an evaluator returns. `key` identifies one occurrence of a rule (e.g. one storm event,
 * one alarm episode); the engine keeps at most one alert per key, so `open` for an existing key
 * acts as `update` (fire once per occurrence).
 */
export type Effect<Id extends string = string> =
  | {
      type: 'open';
      rule: Id;
      siteId: string;
      deviceId?: string;
      key: string;
      /** Source time the condition began (remedy clocks start here). */
      at: number;
      dueAt?: number;
      message: string;
      evidence: Evidence;
    }
  | { type: 'update'; key: string; at: number; dueAt?: number; message?: string; evidence?: Evidence }
  | { type: 'resolve'; key: string; at: number; message: string; evidence: Evidence }
  | { type: 'storm'; event: StormEvent };

/** A storm event at one rain gauge (a record for /api/storms and the compliance report). */
/** What a storm's totals were computed with (the ledger's, as the storm record logs it). */
export type { StormBasis } from '../ledger/records.ts';

export interface StormEvent {
  /** Stable id: `${siteId}:${deviceId}:${startTs}`. */
  id: string;
  siteId: string;
  deviceId: string;
  start: number;
  /** Time of the last tip so far. */
  end: number;
  tips: number;
  inches: number;
  qualified: boolean;
  /** When the running total crossed the threshold (source time), if it did. */
  thresholdAt?: number;
  /** Inspection due time, if qualified. */
  dueAt?: number;
  /** True once the dry period (interEventHours) after `end` has passed: the event can no longer grow. */
  closed: boolean;
  /**
   * Set (optional, added compatibly) on the last record of an event that late or out-of-order data
   * merged into, or moved to, another event: the id of that event. The record is no longer a storm of
   * its own; the engine should hide it (or mark it superseded) rather than report it as a storm.
   */
  supersededBy?: string;
  /** The calibration and threshold the totals were computed with (logged with the storm record). */
  basis?: StormBasis;
}

/** What drives evaluators: readings in source-time order per device, clock ticks, people's actions. */
export type RuleInput =
  | { type: 'reading'; reading: Reading }
  | { type: 'tick'; now: number }
  /**
   * An inspection: `at` is when the work was done (as given); `receivedAt` when the gateway received it
   * (the submittal, the server's clock at `POST /api/inspections`; absent for a record of the site's
   * history, which is then `at`). A rule's `duty.measure` says which of the two meets its deadline.
   * `details`: what it records beyond its kind (deficiencies, remedied, hauler).
   */
  | {
      type: 'inspection';
      siteId: string;
      at: number;
      kind: string;
      inspector: string;
      id: string;
      receivedAt?: number;
      details?: InspectionDetails;
    }
  | { type: 'alert-closed'; key: string; at: number; how: 'manual' | 'auto' }
  /**
   * A notice of violation (town law 001, Enforcement; 000, Section 5.100 B) as the record shows it: issued
   * with its remedy's due time, approved by the officer (the remedy done), or reversed on appeal. `at` is
   * the step's time.
   */
  | {
      type: 'violation';
      /** Issued, approved by the officer, or reversed on appeal (the hearing's decision). */
      step: 'issued' | 'approved' | 'reversed';
      siteId: string;
      id: string;
      at: number;
      remedyDueAt: number;
      nature: string;
      by: string;
      /** The law and part it is under, in words ("law 000, Section 5.100 B"); 001's when absent. */
      cite?: string | undefined;
      /** Its number among the site's notices (1, 2, ...), when it has one. */
      number?: number | undefined;
    }
  /**
   * A developer's record of a construction site (town law 001), or a milestone notice filed
   * (`enforcement/siteRecords.ts`, `notices.ts`): `at` is the time it speaks of (signed, on site since,
   * expected, accepted, inspected; a notice's filing time), `milestone` a milestone's id, `acceptable` a
   * one-year inspection's finding.
   */
  | {
      type: 'site-record';
      kind:
        | 'certification'
        | 'swppp'
        | 'expected-milestone'
        | 'final-acceptance'
        | 'one-year-inspection'
        | 'final-stabilization'
        | 'stabilization-confirmation'
        | 'notice';
      siteId: string;
      id: string;
      at: number;
      by: string;
      milestone?: string;
      acceptable?: boolean;
    }
  /** A reading of a device quarantined for a timestamp ahead of the gateway's clock (at: its arrival). */
  | { type: 'clock-ahead'; siteId: string; deviceId: string; at: number; aheadMs: number; waiting: number }
  /** Quarantined readings of a device released with a clock correction; `waiting`: those still kept. */
  | {
      type: 'clock-corrected';
      siteId: string;
      deviceId: string;
      at: number;
      by: string;
      offsetMs: number;
      released: number;
      waiting: number;
    };

/** A pure evaluator; it reads only the site facts and its rule's own parameters (`P`). */
export interface Evaluator<S, Id extends string = string, P extends RuleParams = RuleParams> {
  /** The rule id(s) its effects carry: a rule module's ids are its evaluator's. */
  readonly rule: Id | readonly Id[];
  /** Initial state for a site (and device, for per-device rules). */
  init(ctx: RuleContext<P>, deviceId?: string): S;
  evaluate(state: S, input: RuleInput, ctx: RuleContext<P>): Evaluation<S, Id>;
  /**
   * A slice of readings of this binding, in order, with one copy of the state for the slice: the same
   * state and, applied in order, the same alerts and storm records as `evaluate` given each in turn
   * (`evaluateSlice` of `slice.ts`); a change may be reported once per slice rather than per reading.
   * Optional: without it the readings are evaluated one by one.
   */
  evaluateReadings?(state: S, readings: readonly Reading[], ctx: RuleContext<P>): Evaluation<S, Id>;
}

export interface Evaluation<S, Id extends string = string> {
  state: S;
  effects: Effect<Id>[];
  /**
   * When a tick would change something the evaluator waits for (e.g. held alerts that may open then):
   * the engine ticks at that time at the latest, rather than at the next minute.
   */
  wakeAt?: number;
}
