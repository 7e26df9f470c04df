/**
 * An inspection's findings told apart finding by finding, each practice by its label ("the finding at 'Silt fence, north boundary' reads
 * 'Needs maintenance' in the report but 'In order' in the log"). Pure, no Node API (bundled into verify.html).
 */
import { FINDING_STATUS_LABELS, type FindingStatus } from '../../../shared/src/api/inspectionWords.ts';
import { camelWords, hashWords, valueWords, type Words } from './words.ts';

type Json = Record<string, unknown>;

/** A finding as the report and its log entry hold it. */
interface Finding {
  practice: string;
  status?: string;
  note?: string;
  photos?: string[];
}

const asFindings = (v: unknown): Finding[] =>
  Array.isArray(v)
    ? v.filter((f): f is Finding => typeof f === 'object' && f !== null && 'practice' in (f as Json))
    : [];

/** A finding's status as the inspection form names it ("Needs maintenance"). */
const statusLabel = (s: unknown): string =>
  `'${FINDING_STATUS_LABELS[s as FindingStatus] ?? String(s ?? 'none')}'`;

/** A practice by its label (the report's site lists them), else by its id. */
const practiceWords = (id: string, w: Words): string => `'${w.practices?.[id] ?? id}'`;

const photoCount = (n: number) => `${n} photo${n === 1 ? '' : 's'}`;

/**
 * How the findings the report shows differ from those its log entry holds, practice by practice; one
 * clause each, joined. Undefined when they do not differ finding by finding (then only their order does).
 */
export function findingsDiffer(shown: unknown, logged: unknown, w: Words): string | undefined {
  const mine = asFindings(shown);
  const theirs = asFindings(logged);
  const out: string[] = [];
  const byPractice = new Map(mine.map((f) => [f.practice, f]));
  const loggedPractices = new Set(theirs.map((f) => f.practice));
  for (const l of theirs) {
    const at = practiceWords(l.practice, w);
    const m = byPractice.get(l.practice);
    if (!m) {
      out.push(`the log has a finding at ${at} (${statusLabel(l.status)}) that the report leaves out`);
      continue;
    }
    if (m.status !== l.status)
      out.push(
        `the finding at ${at} reads ${statusLabel(m.status)} in the report but ${statusLabel(l.status)} in the log`,
      );
    if ((m.note ?? '') !== (l.note ?? ''))
      out.push(
        `the note of the finding at ${at} reads ${valueWords(m.note || null, w)} in the report but ${valueWords(l.note || null, w)} in the log`,
      );
    const [a, b] = [m.photos ?? [], l.photos ?? []];
    if (a.join() !== b.join()) {
      const changed = a.filter((h) => !b.includes(h));
      out.push(
        a.length !== b.length
          ? `the finding at ${at} has ${photoCount(a.length)} in the report but ${photoCount(b.length)} in the log`
          : changed.length
            ? `the finding at ${at} shows ${changed.length === 1 ? 'a photo' : `${changed.length} photos`} (${changed.map(hashWords).join(', ')}) that the log does not have`
            : `the photos of the finding at ${at} are in another order than in the log`,
      );
    }
  }
  for (const m of mine)
    if (!loggedPractices.has(m.practice))
      out.push(
        `the report shows a finding at ${practiceWords(m.practice, w)} (${statusLabel(m.status)}) that the log does not have`,
      );
  if (out.length === 0 && mine.length > 0) out.push('the findings are in another order than in the log');
  return out.length ? out.join('; ') : undefined;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * How two objects (a record's particulars, a change's values) differ, member by member: "version reads 3
 * in the report but 2 in the log". Undefined when either is not an object.
 */
export function membersDiffer(shown: unknown, logged: unknown, w: Words): string | undefined {
  if (!isObject(shown) || !isObject(logged)) return undefined;
  const keys = [...new Set([...Object.keys(logged), ...Object.keys(shown)])];
  const out = keys
    .filter((k) => JSON.stringify(shown[k] ?? null) !== JSON.stringify(logged[k] ?? null))
    .map(
      (k) =>
        `${camelWords(k)} reads ${valueWords(shown[k], w, k)} in the report but ${valueWords(logged[k], w, k)} in the log`,
    );
  return out.length ? out.join('; ') : undefined;
}
