/**
 * The small port enforcement runs on: the alert engine's unit of work. A change of enforcement (a notice
 * issued, a step recorded, an order issued or lifted, a milestone notice filed) is one transaction of the
 * engine, so its rows, their evidence-log entries, the remedy duty the violation-remedy rule opens or
 * closes, and its notification event are committed together or not at all. `enginePort` adapts the engine
 * (`ComplianceEngine.inUnit`, `appendEvidence` and `settle`) to it; enforcement needs nothing else of it.
 */
import type { ComplianceEngine } from '../alerts/engine.ts';
import type { RuleInput } from '../rules/types.ts';
import type { EvidenceLog } from '../store/evidenceLog.ts';

/** A notice of violation's step as the violation-remedy rule is fed it. */
export type ViolationFeed = Extract<RuleInput, { type: 'violation' }>;
/** A developer's record (or a milestone notice) as the developer-records rule is fed it. */
export type SiteRecordFeed = Extract<RuleInput, { type: 'site-record' }>;

/** What a change may do inside the engine's transaction, besides writing its own rows. */
export interface EnforcementTx {
  /** The change's time (the engine's clock): its rows' `at`. */
  readonly now: number;
  /** Feeds the notice's site's rules its step: the violation-remedy duty opens (issued) or closes (approved). */
  feedViolation(input: ViolationFeed): void;
  /** Feeds the site's rules a developer's record or a milestone notice (the developer-records duties). */
  feedRecord(input: SiteRecordFeed): void;
  /** The change wrote a notification event (the notice served by e-mail): the dispatcher is told after the commit. */
  notified(): void;
}

export interface EnforcementPort {
  /**
   * Runs `change` in one unit of work of the engine (the open slice of readings committed first); a throw
   * rolls all of it back. Returns what `change` returns, once committed.
   */
  run<T>(change: (tx: EnforcementTx) => T): T;
  /** Appends a row's entries to the evidence log, inside `run` only (refused outside a unit of work). */
  appendEvidence: EvidenceLog['append'];
  /** Commits the engine's open slice of readings, so a list read next includes every reading acknowledged. */
  settle(): void;
}

/** The port over the alert engine. */
export function enginePort(
  engine: Pick<ComplianceEngine, 'inUnit' | 'appendEvidence' | 'settle'>,
): EnforcementPort {
  return {
    run: (change) =>
      engine.inUnit((w) =>
        change({
          now: w.now,
          feedViolation: (input) => w.feed(input.siteId, input),
          feedRecord: (input) => w.feed(input.siteId, input),
          notified: w.notified,
        }),
      ),
    appendEvidence: (entries) => engine.appendEvidence(entries),
    settle: () => engine.settle(),
  };
}
