/**
 * What closed an alert, from what the rules were given when they closed it (`ResolutionCause`): the
 * readings (the device, the reading's time), an inspection (who, when, what kind, a pump-out's hauler), a
 * notice of violation's step (approved by the officer, reversed on appeal, with its number), a
 * developer's record, a device's clock corrected, or the gateway's schedule (a tick).
 */
import type { ResolutionCause } from '../../../shared/src/api/resolutionCause.ts';
import { toIso } from '../../../shared/src/time.ts';
import type { Evidence, RuleInput } from '../rules/types.ts';
import type { AlertRow } from './types.ts';

/** What a rule was given when it returned its effects: an input, or a slice of readings. */
export type CauseSource = RuleInput | { type: 'readings' };

/** The readings' slice: the source of the effects of readings evaluated in batches. */
export const READINGS: CauseSource = { type: 'readings' };

/**
 * The cause of a `resolve` effect at source time `at` of alert `row`, given what drove it; an effect whose
 * evidence says it rests on the site's history on record (`onRecord`) is the history's.
 */
export function causeOf(
  source: CauseSource,
  row: Pick<AlertRow, 'device_id'>,
  at: number,
  evidence: Evidence = {},
): ResolutionCause {
  if (evidence.onRecord === true) return { kind: 'history', at: toIso(at) };
  switch (source.type) {
    case 'reading':
    case 'readings': {
      const deviceId = source.type === 'reading' ? source.reading.deviceId : (row.device_id ?? undefined);
      return { kind: 'readings', ...(deviceId ? { deviceId } : {}), at: toIso(at) };
    }
    case 'inspection':
      return inspectionCause(source);
    case 'violation':
      if (source.step === 'issued') break;
      return {
        kind: 'notice',
        step: source.step,
        noticeId: source.id,
        ...(source.number !== undefined ? { number: source.number } : {}),
        by: source.by,
        at: toIso(source.at),
      };
    case 'site-record':
      return {
        kind: 'record',
        record: source.kind,
        recordId: source.id,
        by: source.by,
        at: toIso(source.at),
      };
    case 'clock-corrected':
      return { kind: 'clock', deviceId: source.deviceId, by: source.by, at: toIso(source.at) };
    default:
      break;
  }
  return { kind: 'schedule', at: toIso(at) };
}

/** An inspection's cause: its id, inspector, kind, when it was done, and a pump-out's hauler. */
export function inspectionCause(i: Extract<RuleInput, { type: 'inspection' }>): ResolutionCause {
  const hauler = i.details?.hauler;
  return {
    kind: 'inspection',
    inspectionId: i.id,
    inspector: i.inspector,
    inspectionKind: i.kind,
    at: toIso(i.at),
    ...(hauler ? { hauler } : {}),
  };
}
