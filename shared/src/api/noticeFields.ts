/** The field rows (`fieldRows.ts`) of a milestone notice (`notices.ts`). */
import type { FieldRowOf } from './fieldRows.ts';
import type { NoticeDto } from './notices.ts';

/** What was announced for when, filed when and by whom, and whether late. */
export const noticeFields: FieldRowOf<NoticeDto>[] = [
  ['id', 'its number', 'text'],
  ['milestone', 'its milestone', 'text'],
  ['at', 'the milestone time', 'time'],
  ['filedAt', 'the time it was filed', 'time'],
  ['filedBy', 'who filed it', 'text'],
  ['late', 'it as late', 'text'],
];
