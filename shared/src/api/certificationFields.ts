/** The field rows (`fieldRows.ts`) of a certification of a site's records (`system.ts`). */
import type { FieldRowOf } from './fieldRows.ts';
import type { Certification } from './system.ts';

/** Who certified, in what role, when, what they stated, for which period. */
export const certificationFields: FieldRowOf<Certification>[] = [
  ['by', 'who certified', 'text'],
  ['role', 'their role', 'text'],
  ['at', 'its time', 'time'],
  ['statement', 'the statement', 'text'],
  ['period.from', 'the period start', 'time', 'from'],
  ['period.to', 'the period end', 'time', 'to'],
];
