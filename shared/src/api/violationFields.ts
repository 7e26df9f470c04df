/**
 * The field rows (`fieldRows.ts`) of enforcement's DTOs (`violations.ts`): a notice of violation, each
 * step after it, a stop-work order, its lifting and its services, in the order a report's reader meets
 * them.
 */
import type { FieldRowOf } from './fieldRows.ts';
import type { StopWorkDto, StopWorkService, ViolationDto, ViolationEvent } from './violations.ts';

/**
 * A notice of violation: the law's elements, who issued it and when, to whom it is directed. Its law, its
 * first service and the appeal window it started are checked apart (`verifier/violations.ts`): a notice
 * stored before they were named leaves them out of its record.
 */
export const violationFields: FieldRowOf<ViolationDto>[] = [
  ['id', 'its number', 'text'],
  ['siteId', 'its site', 'text'],
  ['inspectionId', 'the inspection it follows', 'text'],
  ['nature', 'the nature of the violation', 'text'],
  ['remedy', 'the remedy', 'text'],
  ['remedyDueAt', 'its remedy due', 'time'],
  ['penalties', 'the penalties', 'text'],
  ['issuedAt', 'the time it was issued', 'time'],
  ['issuedBy', 'who issued it', 'text'],
  ['landowner', 'the landowner it is directed to', 'party', 'parties.landowner'],
  ['developer', 'the developer it is directed to', 'party', 'parties.developer'],
  ['siteAddress', 'the site address it gives', 'text', 'parties.siteAddress'],
];

/** A step after a notice: served, appealed, heard, corrected or approved. */
export const violationStepFields: FieldRowOf<ViolationEvent>[] = [
  ['kind', 'what it is', 'text'],
  ['at', 'its time', 'time'],
  ['by', 'who recorded it', 'text'],
  ['text', 'what it says', 'text'],
  ['photos', 'the list of its photos (their fingerprints)', 'list'],
  ['method', 'how it was served', 'text'],
  ['party', 'on whom it was served', 'text'],
  ['servedAt', 'the time it was served', 'time'],
  ['appealBy', 'the end of the appeal window it starts', 'time'],
  ['heldOn', 'the date of the hearing', 'text'],
  ['outcome', 'the outcome of the hearing', 'text'],
  ['inspectionId', 'the re-inspection it rests on', 'text'],
  ['inspectedAt', 'the time of the re-inspection', 'time'],
  ['inspectedBy', 'who made the re-inspection', 'text'],
];

/** A stop-work order: why, the notices it names, since when, by whom. */
export const stopWorkFields: FieldRowOf<StopWorkDto>[] = [
  ['id', 'its number', 'text'],
  ['siteId', 'its site', 'text'],
  ['reason', 'why it was issued', 'text'],
  ['violationIds', 'the list of the notices of violation it names', 'list'],
  ['since', 'the time it was issued', 'time', 'at'],
  ['issuedBy', 'who issued it', 'text'],
];

/** A stop-work order's lifting, as the order shows it (its own log entry is `liftLogIndex`). */
export const stopWorkLiftFields: FieldRowOf<StopWorkDto>[] = [
  ['liftedAt', 'the time it was lifted', 'time', 'at'],
  ['liftedBy', 'who lifted it', 'text', 'by'],
  ['liftNote', 'the note of its lifting', 'text', 'note'],
  ['override', 'whether it was lifted with an override', 'flag'],
];

/** A service of a stop-work order, against its own log entry (a step `served` of the order). */
export const stopWorkServiceFields: FieldRowOf<StopWorkService>[] = [
  ['method', 'how it was served', 'text'],
  ['party', 'on whom it was served', 'text'],
  ['servedAt', 'the time it was served', 'time'],
  ['at', 'the time it was recorded', 'time'],
  ['by', 'who recorded it', 'text'],
  ['note', 'what it says', 'text'],
];
