/**
 * A field row: one member of a record as the API and the reports show it, the words a sentence names it
 * with, and how its value is read and written. Each DTO keeps its rows beside it (`violationFields.ts`
 * beside `violations.ts`, ...), so a field is written once: the report verifier compares every row of a
 * listed record against the log entry it cites, and the sentence it writes when they differ is made of
 * the row's words. Plain data, no schema library: the verifier bundled into verify.html reads them.
 */

/**
 * How a field's value is compared and written. `text`: as it is (a string quoted, a number, yes or no);
 * `time`: an ISO time shown, milliseconds logged, written in the site's zone; `inches`: an amount of rain;
 * `list`: names or fingerprints, compared comma-separated; `party`: to whom a notice is directed (name,
 * address, email); `items`: a list of objects compared as canonical JSON, none the same as empty;
 * `findings`: an inspection's findings, compared as `items` and told apart finding by finding;
 * `json`: any value compared as canonical JSON, none the same as null, written as that JSON; `flag`: a
 * yes or no where none is no.
 */
export type FieldKind =
  | 'text'
  | 'time'
  | 'inches'
  | 'list'
  | 'party'
  | 'items'
  | 'findings'
  | 'json'
  | 'flag';

type Key<T> = Extract<keyof T, string>;

/** A member of the DTO, or a member of one of its objects (`period.from`). */
export type FieldKey<T> = Key<T> | `${Key<T>}.${string}`;

/**
 * One row: the member the DTO shows, its words in a sentence ("the remedy"), its kind, and the member of
 * the logged record it is (when not the same key; `parties.landowner` reads into an object).
 */
export type FieldRow = readonly [key: string, words: string, kind: FieldKind, logged?: string];

/** A row of the DTO `T`: its key is one of `T`'s members. */
export type FieldRowOf<T> = readonly [key: FieldKey<T>, words: string, kind: FieldKind, logged?: string];
