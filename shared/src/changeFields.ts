/** The field rows (`api/fieldRows.ts`) of a change record (`admin.ts`). */
import type { ChangeResponse } from './admin.ts';
import type { FieldRowOf } from './api/fieldRows.ts';

/** When it takes effect, who made it, what it did to what, and the values before and after. */
export const changeFields: FieldRowOf<ChangeResponse>[] = [
  ['effectiveAt', 'its time', 'time'],
  ['by', 'who made it', 'text'],
  ['action', 'what it did', 'text'],
  ['entity', 'what it changed', 'text'],
  ['deviceId', 'its device', 'text'],
  ['old', 'the value before', 'json'],
  ['new', 'the new value', 'json'],
];
