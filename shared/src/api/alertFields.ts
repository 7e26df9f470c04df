/** The field rows (`fieldRows.ts`) of the compliance engine's DTOs (`alerts.ts`): storms, inspections, extensions. */
import type { ExtensionDto, InspectionDto, StormDto } from './alerts.ts';
import type { FieldRowOf } from './fieldRows.ts';

/** A storm's event as logged (its totals are also added up again from its readings). */
export const stormFields: FieldRowOf<StormDto>[] = [
  ['start', 'its start', 'time'],
  ['end', 'its end', 'time'],
  ['tips', 'its tip count', 'text'],
  ['inches', 'its total', 'inches'],
  ['qualified', 'whether it reached the threshold', 'text'],
  ['dueAt', 'its inspection deadline', 'time'],
  ['thresholdAt', 'when it reached the threshold', 'time'],
];

/** An inspection: when, what kind, by whom, what it found, and who recorded it when. */
export const inspectionFields: FieldRowOf<InspectionDto>[] = [
  ['id', 'its number', 'text'],
  ['at', 'its time', 'time'],
  ['kind', 'its kind', 'text'],
  ['inspector', 'its inspector', 'text'],
  ['notes', 'its notes', 'text'],
  ['recordedAt', 'the time it was recorded', 'time'],
  ['recordedBy', 'who recorded it', 'text'],
  // Its findings and their photos' hashes, as one canonical text (an entry without findings has none).
  ['findings', 'its findings (the practices, what was found, the notes and the photos)', 'findings'],
  // Who signed it, how, and the drawing's strokes (an entry signed by no one has none).
  ['signature.name', 'the name it was signed with', 'text'],
  ['signature.method', 'how it was signed (typed or drawn)', 'text'],
  ['signature.drawing', "the drawn signature's strokes", 'text'],
];

/** An engineer's extension of a duty's deadline. */
export const extensionFields: FieldRowOf<ExtensionDto>[] = [
  ['alertId', 'its duty', 'text'],
  ['oldDueAt', 'the old due time', 'time', 'oldDue'],
  ['newDueAt', 'the new due time', 'time', 'newDue'],
  ['engineer', 'the engineer', 'text'],
  ['letterRef', 'the letter', 'text'],
  ['at', 'the time it was recorded', 'time'],
  ['by', 'who recorded it', 'text'],
];
