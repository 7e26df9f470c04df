/**
 * People's commands: acknowledge, resolve with a note, extend by an engineer's letter, and record an
 * inspection. Each is checked, then runs as one unit of work; refusals are `AlertError`s with a code.
 */

import { type AlertDto, INSPECTION_KINDS, type InspectionDto } from '../../../shared/src/api/alerts.ts';
import { MIN_SOURCE_TS } from '../../../shared/src/telemetry.ts';
import { toIso } from '../../../shared/src/time.ts';
import { canonicalJson } from '../ledger/canonical.ts';
import { allowsExtension, manualResolveRefusal, rulesFedBy } from '../rules/index.ts';
import type { RuleInput } from '../rules/types.ts';
import { checkRemedied } from './deficiencies.ts';
import { AlertError } from './errors.ts';
import type { Lifecycle } from './lifecycle.ts';
import { inspectionDto } from './mapping.ts';
import type { RuleRunner } from './rules.ts';
import type { AlertStores } from './stores/index.ts';
import type { AlertRow, ExtensionInput, InspectionInput, InspectionRow } from './types.ts';
import { ulid } from './ulid.ts';
import type { UnitOfWork } from './unit.ts';

const DAY_MS = 86_400_000;

/** Whether an inspection sent again says what the recorded one says (its findings as canonical JSON). */
function sameInspection(
  row: InspectionRow,
  input: InspectionInput,
  findings: string,
  details: string,
  signature: string | null,
): boolean {
  return (
    row.site_id === input.siteId &&
    row.at === input.at &&
    row.inspector === input.inspector.trim() &&
    row.kind === input.kind &&
    row.notes === (input.notes ?? '') &&
    row.findings === findings &&
    (row.details || '{}') === details &&
    (row.signature ?? null) === signature
  );
}

/**
 * An inspection's coverage of its site's practices (undefined at a site without any), after refusing one
 * with nothing in it: at a site with practices it has a finding for at least one of them; elsewhere,
 * findings, notes, or what a wastewater inspection records (deficiencies, remedied ones, a hauler). Refused before anything is stored, in words for the person who filled the form.
 */
function coverageOf(input: InspectionInput): { covered: number; of: number } | undefined {
  const practices = input.practices ?? [];
  const found = new Set((input.findings ?? []).map((f) => f.practice));
  if (practices.length > 0) {
    const covered = practices.filter((p) => found.has(p)).length;
    if (covered === 0)
      throw new AlertError(
        'EMPTY_INSPECTION',
        `This inspection has no findings. Record what was found at each of the site's ${practices.length} erosion and sediment control practices.`,
      );
    return { covered, of: practices.length };
  }
  const d = input.details;
  const recorded = (d?.deficiencies?.length ?? 0) + (d?.remedied?.length ?? 0) + (d?.hauler ? 1 : 0);
  if (found.size === 0 && !input.notes?.trim() && recorded === 0)
    throw new AlertError(
      'EMPTY_INSPECTION',
      'This inspection has nothing in it. Write down what was inspected and what was found.',
    );
  return undefined;
}

/** Future inspections are refused beyond this clock skew. */
const INSPECTION_FUTURE_SLACK_MS = 5 * 60_000;
/**
 * How far back an inspection may be recorded: five years (records kept on paper, entered late), and never
 * before 2000-01-01, the earliest source time the gateway takes from a device (a date before it is a
 * clock never set, or a typing error).
 */
export const INSPECTION_MAX_AGE_MS = 5 * 365 * DAY_MS;
/**
 * How far an engineer's letter may move a deadline: at most a year after the deadline the rule set. The
 * law's extensions are for engineering delays (a part on order, a season to wait for a repair), not open
 * ended.
 */
export const EXTENSION_MAX_MS = 365 * DAY_MS;

export interface CommandsOptions {
  unit: UnitOfWork;
  stores: AlertStores;
  lifecycle: Lifecycle;
  rules: RuleRunner;
  now: () => number;
}

export class Commands {
  constructor(private readonly o: CommandsOptions) {}

  acknowledge(id: string, actor: string, note?: string): AlertDto {
    return this.o.unit.runForAlert(this.o.now(), id, (u) => {
      const row = this.mustGet(id);
      if (row.status === 'resolved') throw new AlertError('ALREADY_RESOLVED', `alert ${id} is resolved`);
      if (row.status === 'acknowledged')
        throw new AlertError(
          'ALREADY_ACKNOWLEDGED',
          `alert ${id} was acknowledged by ${row.acknowledged_by}`,
        );
      this.o.lifecycle.acknowledge(u, row, actor, note);
    });
  }

  /**
   * Closes an alert by hand; the note is the evidence. `whileActive`: the device still reported the alarm
   * as active, and the person confirmed it; the history entry says so.
   */
  resolve(id: string, actor: string, note: string, whileActive = false): AlertDto {
    const text = typeof note === 'string' ? note.trim() : '';
    if (text === '') throw new AlertError('NOTE_REQUIRED', 'a manual resolution needs a note');
    return this.o.unit.runForAlert(this.o.now(), id, (u) => {
      const row = this.mustGet(id);
      if (row.status === 'resolved')
        throw new AlertError('ALREADY_RESOLVED', `alert ${id} is already resolved`);
      const notByHand = manualResolveRefusal(row.rule);
      if (notByHand) throw new AlertError('NOT_BY_HAND', notByHand);
      this.o.lifecycle.resolve(u, row, {
        how: 'manual',
        by: actor,
        at: u.now,
        evidence: { note: text, ...(whileActive ? { resolvedWhileActive: true } : {}) },
        cause: { kind: 'person', by: actor },
      });
      this.o.rules.feedClosed(u, row, 'manual', u.now);
    });
  }

  /**
   * Records an engineer's extension letter: moves the due time later, keeps the old one in history.
   * Only for rules whose module allows it (the law lets a letter extend a remedy deadline, nothing else).
   */
  extend(id: string, actor: string, ext: ExtensionInput): AlertDto {
    if (!Number.isFinite(ext.newDueAt)) throw new AlertError('BAD_EXTENSION', 'newDueAt must be a time');
    if (!ext.engineer?.trim()) throw new AlertError('BAD_EXTENSION', 'the engineer is required');
    if (!ext.letterRef?.trim()) throw new AlertError('BAD_EXTENSION', 'the letter reference is required');
    return this.o.unit.runForAlert(this.o.now(), id, (u) => {
      const row = this.mustGet(id);
      if (row.status === 'resolved') throw new AlertError('ALREADY_RESOLVED', `alert ${id} is resolved`);
      if (!allowsExtension(row.rule))
        throw new AlertError('BAD_EXTENSION', `the ${row.rule} rule allows no extension of its deadline`);
      const due = row.due_at;
      if (due === null) throw new AlertError('BAD_EXTENSION', `alert ${id} has no deadline to extend`);
      if (ext.newDueAt <= due)
        throw new AlertError(
          'BAD_EXTENSION',
          `an extension must move the deadline later than ${toIso(due)}, not to ${toIso(ext.newDueAt)}`,
        );
      const latest = (row.original_due_at ?? due) + EXTENSION_MAX_MS;
      if (ext.newDueAt > latest)
        throw new AlertError(
          'BAD_EXTENSION',
          `an extension may move the deadline at most a year after the one the rule set: to ${toIso(latest)} at the latest, not ${toIso(ext.newDueAt)}`,
        );
      this.o.lifecycle.extend(u, { ...row, due_at: due }, actor, ext);
    });
  }

  /**
   * Records an inspection (append-only), feeds it to the site's evaluators, and then closes the site's
   * open alerts of the rules it meets whose module has the engine close them (raised at or before it).
   */
  recordInspection(
    input: InspectionInput,
    actor: string,
  ): { inspection: InspectionDto; closedAlertIds: string[]; replayed: boolean } {
    const { stores, rules, unit } = this.o;
    if (!rules.hasSite(input.siteId)) throw new AlertError('UNKNOWN_SITE', `no site "${input.siteId}"`);
    const findings = canonicalJson(input.findings ?? []);
    const details = canonicalJson(input.details ?? {});
    const signature = input.signature ? canonicalJson(input.signature) : null;
    const first = input.clientId ? stores.inspections.byClientId(input.clientId) : undefined;
    if (first) {
      // Sent again (a browser that did not see the answer): the first is the answer, nothing is recorded.
      if (!sameInspection(first, input, findings, details, signature))
        throw new AlertError(
          'INSPECTION_RESENT_CHANGED',
          'This inspection was sent before with different contents. The first one sent is the one recorded; record the changes as a new inspection.',
        );
      return { inspection: inspectionDto(first), closedAlertIds: [], replayed: true };
    }
    if (!(INSPECTION_KINDS as readonly string[]).includes(input.kind))
      throw new AlertError('BAD_INSPECTION', `kind must be one of ${INSPECTION_KINDS.join(', ')}`);
    if (!Number.isFinite(input.at)) throw new AlertError('BAD_INSPECTION', 'at must be a time');
    if (!input.inspector?.trim()) throw new AlertError('BAD_INSPECTION', 'the inspector is required');
    const now = this.o.now();
    if (input.at > now + INSPECTION_FUTURE_SLACK_MS)
      throw new AlertError(
        'BAD_INSPECTION',
        `an inspection cannot be recorded in the future (${toIso(input.at)})`,
      );
    const earliest = Math.max(MIN_SOURCE_TS, now - INSPECTION_MAX_AGE_MS);
    if (input.at < earliest)
      throw new AlertError(
        'BAD_INSPECTION',
        `an inspection can be recorded for the last five years, from ${toIso(earliest)}, not ${toIso(input.at)}`,
      );
    checkRemedied(stores.inspections, input.siteId, input.at, input.details);
    const coverage = coverageOf(input);
    const side = input.side ?? 'developer';
    return unit.run(now, (u) => {
      const id = `insp-${ulid(u.now)}`;
      const inspector = input.inspector.trim();
      stores.inspections.append({
        id,
        site_id: input.siteId,
        at: input.at,
        inspector,
        kind: input.kind,
        notes: input.notes ?? '',
        recorded_at: u.now,
        recorded_by: actor,
        findings,
        client_id: input.clientId ?? null,
        details,
        side,
        practices: coverage?.of ?? null,
        covered: coverage?.covered ?? null,
        signature,
      });
      const feed: RuleInput = {
        type: 'inspection',
        siteId: input.siteId,
        at: input.at,
        receivedAt: u.now,
        kind: input.kind,
        inspector,
        id,
        ...(input.details ? { details: input.details } : {}),
      };
      // Each evaluator has only the inspections that meet its rule's duty: a partial inspection, or the
      // town's of a developer's duty, is recorded and shown, and closes nothing.
      const facts = {
        kind: input.kind,
        side,
        everyPractice: coverage === undefined || coverage.covered >= coverage.of,
      };
      const fed = rulesFedBy(facts);
      rules.feedSite(u, input.siteId, feed, (r) => r.rules.some((id) => fed.includes(id)));
      // Every alert the inspection closed: each rule closes its own on the inspection's feed (a routine
      // period met, a storm inspected after its end).
      const closedAlertIds = [...new Set(u.resolved)];
      const inspection = inspectionDto(stores.inspections.byId(id)!);
      // The developer's report goes to the officer (law 001: "delivered to the Stormwater Management
      // Officer"), by e-mail through the outbox, committed with it; the agenda lists it from now.
      if (side === 'developer') u.reports.push(inspection);
      u.notified++;
      if (u.live) u.events.push({ type: 'inspection', inspection });
      return { inspection, closedAlertIds, replayed: false };
    });
  }

  private mustGet(id: string): AlertRow {
    const row = this.o.stores.alerts.byId(id);
    if (!row) throw new AlertError('NOT_FOUND', `no alert "${id}"`);
    return row;
  }
}
