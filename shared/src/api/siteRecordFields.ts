/** The field rows (`fieldRows.ts`) of a developer's record of a site (`siteRecords.ts`). */
import type { FieldRowOf } from './fieldRows.ts';
import type { SiteRecordDto } from './siteRecords.ts';

/** What the record is, the time it speaks of, who recorded it when, and its particulars. */
export const siteRecordFields: FieldRowOf<SiteRecordDto>[] = [
  ['id', 'its number', 'text'],
  ['kind', 'what it records', 'text'],
  ['at', 'the time it speaks of', 'time'],
  ['recordedAt', 'the time it was recorded', 'time'],
  ['recordedBy', 'who recorded it', 'text'],
  ['body', 'its particulars', 'json'],
];
