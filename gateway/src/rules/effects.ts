/**
 * Shared helpers for the effects every rule builds: an alert's key, its `open` effect and its `resolve`.
 */
import type { Effect, Evidence } from './types.ts';

/** Whose alert it is: the site, and the device for a per-device rule. */
export interface AlertOwner {
  siteId: string;
  deviceId?: string;
}

/** An occurrence's key: `rule:site[:device]:parts...` (the engine keeps one alert per key). */
export function alertKey(rule: string, owner: AlertOwner, ...parts: Array<string | number>): string {
  const head = owner.deviceId === undefined ? [rule, owner.siteId] : [rule, owner.siteId, owner.deviceId];
  return [...head, ...parts].join(':');
}

/** The `open` effect of a rule's alert; `at` is the source time the condition began. */
export function openAlert<Id extends string>(
  rule: Id,
  owner: AlertOwner,
  a: { key: string; at: number; dueAt?: number | undefined; message: string; evidence: Evidence },
): Effect<Id> {
  return {
    type: 'open',
    rule,
    siteId: owner.siteId,
    ...(owner.deviceId !== undefined ? { deviceId: owner.deviceId } : {}),
    key: a.key,
    at: a.at,
    ...(a.dueAt !== undefined ? { dueAt: a.dueAt } : {}),
    message: a.message,
    evidence: a.evidence,
  };
}

/** The `resolve` effect of an alert; `at` is the source time the condition ended (or was met). */
export function resolveAlert<Id extends string>(
  key: string,
  at: number,
  r: { message: string; evidence: Evidence },
): Effect<Id> {
  return { type: 'resolve', key, at, message: r.message, evidence: r.evidence };
}

/**
 * The `resolve` of an alert a record superseded: its clock ran from a start the record shows was not the
 * last one (an inspection or a pump-out on record, or logged late, dated before the alert began). It is
 * closed at its own start and never as met: `superseded: true` in its evidence tells the engine to give it
 * no deadline outcome, and the report shows it as superseded by the record.
 */
export function supersededAlert<Id extends string>(
  key: string,
  began: number,
  r: { message: string; evidence: Evidence },
): Effect<Id> {
  return {
    type: 'resolve',
    key,
    at: began,
    message: r.message,
    evidence: { superseded: true, ...r.evidence },
  };
}
