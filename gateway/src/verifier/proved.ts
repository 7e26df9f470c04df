/**
 * What a verified report proved, in words: the checkpoint (its size, the key that signed it, that key's
 * fingerprint), the log entries, and each section's figures as far as the verifier checks them ("16
 * readings of 1 device", "1 storm with its totals added up again from its readings", "5 duties, 2 of
 * them closed, with who closed them and what closed them", "2 inspections with 4 findings and 3 photo
 * fingerprints", ...). Only what `verify.ts` checks is claimed. `npm run verify` and verify.html print the
 * same sentences. Pure, no Node API (bundled into verify.html).
 */
import type { CitedBody } from './checker.ts';
import type { ReportJson } from './reportJson.ts';
import { type Words, when } from './words.ts';

/** The figures a report's check covered, counted from the report and the log entries it cites. */
export interface Proved {
  readings: number;
  /** The devices those readings are of. */
  devices: number;
  storms: number;
  /** Storms whose readings are not all carried: their totals are their record's, not added up again. */
  longStorms: number;
  duties: number;
  /** Duties the report shows closed: who closed them and what closed them are their history's. */
  closed: number;
  inspections: number;
  findings: number;
  photos: number;
  extensions: number;
  certifications: number;
  notices: number;
  violations: number;
  stopWork: number;
  records: number;
  changes: number;
  /** The time of the newest record the report cites (ms), if it cites any with a time. */
  newest?: number;
}

const TIMES = ['ts', 'at', 'end', 'issuedAt', 'filedAt', 'effectiveAt', 'recordedAt'] as const;

/** The figures of a report against the entries it cites. */
export function provedOf(
  r: ReportJson,
  all: CitedBody[],
  duties: Array<{ resolvedAt: string | null }>,
): Proved {
  const readings = all.filter((e) => e.kind === 'reading');
  const findings = r.inspections.flatMap((x) => (Array.isArray(x.findings) ? x.findings : []));
  const photos = findings.reduce<number>((n, f) => {
    const p = (f as { photos?: unknown }).photos;
    return n + (Array.isArray(p) ? p.length : 0);
  }, 0);
  const times = all.flatMap((e) =>
    TIMES.map((k) => e.body[k]).filter((t): t is number => typeof t === 'number' && Number.isFinite(t)),
  );
  return {
    readings: readings.length,
    devices: new Set(readings.map((e) => String(e.body.deviceId))).size,
    storms: r.storms.length,
    longStorms: r.evidence.longStorms?.length ?? 0,
    duties: duties.length,
    closed: duties.filter((d) => d.resolvedAt).length,
    inspections: r.inspections.length,
    findings: findings.length,
    photos,
    extensions: r.extensions.length,
    certifications: r.certifications?.length ?? 0,
    notices: r.notices?.length ?? 0,
    violations: r.violations?.length ?? 0,
    stopWork: r.stopWork?.length ?? 0,
    records: r.records?.length ?? 0,
    changes: r.changes?.length ?? 0,
    ...(times.length ? { newest: Math.max(...times) } : {}),
  };
}

const count = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** The parts of a verdict the sentences are made of. */
export interface ProvedVerdict {
  proved: Proved;
  checked: { entries: number };
  checkpoint: { size: number };
  key?: { name: string; id: string; fingerprint: string };
  words: Words;
}

/**
 * What a check proved, one sentence a line: the checkpoint and its key, the log entries, then each
 * section the report has. Said of a verified report; of one that is not, it is what was checked.
 */
export function provedWords(v: ProvedVerdict): string[] {
  const p = v.proved;
  const out: string[] = [];
  if (v.checkpoint.size >= 0 && v.key)
    out.push(
      `The log's checkpoint of ${count(v.checkpoint.size, 'entry', 'entries')}, signed by '${v.key.name}' (key id ${v.key.id}, fingerprint ${v.key.fingerprint}).`,
    );
  else out.push("The log's signed checkpoint could not be checked with the key given.");
  const newest = p.newest === undefined ? '' : `; the newest is of ${when(p.newest, v.words)}`;
  out.push(
    `${count(v.checked.entries, 'log entry', 'log entries')}, each against its fingerprint, and the one proof that they are all in the log${newest}.`,
  );
  if (p.readings > 0)
    out.push(`${count(p.readings, 'reading')} of ${count(p.devices, 'device')}, each as it was logged.`);
  if (p.storms > 0) {
    const added = p.storms - p.longStorms;
    out.push(
      `${count(p.storms, 'storm')} with ${p.storms === 1 ? 'its' : 'their'} totals, start and end${
        added > 0
          ? `, ${added === p.storms ? '' : `${added} of them `}added up again from ${p.storms === 1 ? 'its' : 'their'} readings`
          : ''
      }, and whether ${p.storms === 1 ? 'it' : 'each'} reached the threshold and was inspected in time.`,
    );
  }
  if (p.duties > 0)
    out.push(
      `${count(p.duties, 'duty', 'duties')} with ${p.duties === 1 ? 'its' : 'their'} due time and status from ${p.duties === 1 ? 'its' : 'their'} history${
        p.closed > 0
          ? `; ${p.closed.toLocaleString('en-US')} of them closed, with who and what closed each`
          : ''
      }.`,
    );
  if (p.inspections > 0)
    out.push(
      `${count(p.inspections, 'inspection')} with ${count(p.findings, 'finding')} and ${count(p.photos, 'photo fingerprint')}, each as logged.`,
    );
  const lists: Array<[number, string, string]> = [
    [p.extensions, "engineer's extension", "engineer's extensions"],
    [p.certifications, 'certification', 'certifications'],
    [p.notices, 'milestone notice', 'milestone notices'],
    [p.violations, 'notice of violation', 'notices of violation'],
    [p.stopWork, 'stop-work order', 'stop-work orders'],
    [p.records, "developer's record", "developer's records"],
    [p.changes, 'change record', 'change records'],
  ];
  const shown = lists.filter(([n]) => n > 0).map(([n, one, many]) => count(n, one, many));
  if (shown.length)
    out.push(
      `${shown.length > 1 ? `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}` : shown[0]}, each as logged.`,
    );
  return out;
}
