/**
 * Verifies a compliance report with nothing but the gateway's public key: the checkpoint's signature,
 * every cited entry's leaf and the one multi-range proof of them all against the checkpoint, and that the
 * report's figures follow from its records (`figures.ts`) and each list it shows is what they say (the
 * tables of `sections.ts`, run by `checker.ts`). A later checkpoint (from the API or a witness) and a consistency proof show the log
 * was not rewritten since.
 *
 * One module for `npm run verify` (Node 20) and verify.html (a browser, offline): bytes are `Uint8Array`,
 * hashing and Ed25519 are WebCrypto's, so it is asynchronous and uses no Node API (test/verifier holds it
 * to that). Each problem is a sentence a clerk reads and the field of the report's JSON it is about.
 * Pure: the caller fetches what it needs.
 */
import { bytesEqual, fromBase64, toBase64 } from '../ledger/bytes.ts';
import { keyFingerprint } from '../ledger/fingerprint.ts';
import { checkNote, type NoteVerdict, parseKey, readCheckpoint } from '../ledger/note.ts';
import { checkConsistency, checkRangeProof, runAsync } from '../ledger/proofs.ts';
import { leafHashOf, nodeHashOf } from '../ledger/webcrypto.ts';
import { type CitedBody, periodOf } from './checker.ts';
import { checkDuty, checkLongStorm, checkStorm, checkSummary } from './figures.ts';
import { checkMet } from './inspected.ts';
import { type Proved, provedOf } from './proved.ts';
import type { ReportDuty, ReportJson } from './reportJson.ts';
import { checkSections } from './sections.ts';
import type { DutyAt } from './shown.ts';
import { capital, entryWords, knownZone, type Problem, problem, type Words } from './words.ts';

export { provedWords } from './proved.ts';
export { type ReportJson, readReport } from './reportJson.ts';
export type { Problem } from './words.ts';

type Json = Record<string, unknown>;

export interface Verdict {
  ok: boolean;
  problems: Problem[];
  /** What was checked less than in full, and why (a long storm's readings not carried). */
  notes: string[];
  checked: {
    entries: number;
    readings: number;
    storms: number;
    duties: number;
    inspections: number;
    notices: number;
    /** Notices of violation and stop-work orders (reports of earlier releases have none). */
    violations: number;
    stopWork: number;
    changes: number;
    /** The developer's records (reports of earlier releases have none). */
    records: number;
  };
  /** The figures the check covered, section by section (`proved.ts` says them in words). */
  proved: Proved;
  /** The checkpoint the report rests on, as its signed note says (size -1 when it could not be read). */
  checkpoint: { origin: string; size: number; root: string };
  /** The key the checkpoint's signature was checked with, when it could be read, and its fingerprint. */
  key?: { name: string; id: string; fingerprint: string };
  /** The site's name and time zone, the times the sentences are written in. */
  words: Words;
}

/** The problems listed one by one before they are counted ("and 12 more"): a clerk reads the first. */
const LISTED = 5;

/**
 * The verifier key in what someone pasted: the key line itself (`<name>+<id>+<key>`), or the JSON the
 * gateway answers at GET /api/evidence/key, whose `verifierKey` it is.
 */
export function keyFromText(text: string): string {
  const s = text.trim();
  if (!s.startsWith('{')) return s.replace(/\s+/g, '');
  try {
    return String((JSON.parse(s) as { verifierKey?: unknown }).verifierKey ?? '');
  } catch (e) {
    throw new Error(`the pasted key looks like JSON but is not: ${(e as Error).message}`);
  }
}

/** Why a checkpoint's signature is not the pasted key's, in words. */
function signatureProblem(v: Exclude<NoteVerdict, { ok: true }>, name: string): Problem {
  const field = 'evidence.checkpoint.note';
  if (v.why === 'other-signer')
    return problem(
      field,
      `The checkpoint is signed by ${v.signers.map((s) => `'${s}'`).join(' and ') || 'no one'}, not by the key you pasted (key name '${name}')`,
    );
  if (v.why === 'other-key')
    return problem(
      field,
      `The signature does not match the public key you pasted (key name '${name}'): the checkpoint was signed with another key of that name`,
    );
  return problem(
    field,
    `The signature does not match the public key you pasted (key name '${name}'): the checkpoint or its signature was changed`,
  );
}

/** Checks a report against the key (a verifier key `<name>+<id>+<key>`). */
export async function verifyReport(report: ReportJson, verifierKey: string): Promise<Verdict> {
  const labels = (report.site?.practices ?? []).map((p) => [p.id, p.label] as const);
  const w: Words = {
    tz: knownZone(report.site?.timezone),
    site: report.site?.name ?? report.site?.id ?? 'not named',
    ...(labels.length ? { practices: Object.fromEntries(labels) } : {}),
  };
  const problems: Problem[] = [];
  const ev = report.evidence;
  const checkpoint = { origin: ev.checkpoint.origin, size: -1, root: '' };
  let root: Uint8Array = new Uint8Array(0);
  let key: Verdict['key'];
  try {
    const k = await parseKey(verifierKey);
    key = {
      name: k.name,
      id: verifierKey.trim().split('+')[1]!.toLowerCase(),
      fingerprint: await keyFingerprint(verifierKey),
    };
    try {
      const v = await checkNote(ev.checkpoint.note, k.name, k.publicKey);
      if (!v.ok) problems.push(signatureProblem(v, k.name));
      else {
        const cp = readCheckpoint(v.text);
        Object.assign(checkpoint, { origin: cp.origin, size: cp.size, root: toBase64(cp.root) });
        root = cp.root;
        if (cp.size !== ev.checkpoint.size)
          problems.push(
            problem(
              'evidence.checkpoint.size',
              `The report states a checkpoint of ${ev.checkpoint.size} log entries, but the one it carries signed has ${cp.size}`,
            ),
          );
        else if (toBase64(cp.root) !== ev.checkpoint.root)
          problems.push(
            problem(
              'evidence.checkpoint.root',
              'The checkpoint the report states is not the one it carries signed',
            ),
          );
      }
    } catch (e) {
      problems.push(
        problem(
          'evidence.checkpoint.note',
          `The report's signed checkpoint cannot be read: ${(e as Error).message}`,
        ),
      );
    }
  } catch (e) {
    problems.push(problem('key', `The public key you pasted cannot be used: ${(e as Error).message}`));
  }

  // Every cited entry: its leaf is its body's, and together they prove against the checkpoint.
  const leaves = await Promise.all(ev.entries.map((e) => leafHashOf(e.body)));
  const byIndex = new Map<number, CitedBody>();
  const all: CitedBody[] = [];
  ev.entries.forEach((e, pos) => {
    let body: Json | undefined;
    try {
      body = JSON.parse(e.body) as Json;
    } catch (err) {
      problems.push(
        problem(
          `evidence.entries[${pos}].body`,
          `Log entry ${e.index} cannot be read: ${(err as Error).message}`,
        ),
      );
    }
    const stated = fromBase64(e.leaf);
    if (!stated || !bytesEqual(stated, leaves[pos]!))
      problems.push(
        problem(
          `evidence.entries[${pos}].body`,
          `Log entry ${e.index}, ${entryWords(body, w)}, was changed: it does not match its fingerprint in the log (its leaf hash)`,
        ),
      );
    if (!body) return;
    if (body.type !== e.kind)
      problems.push(
        problem(
          `evidence.entries[${pos}].kind`,
          `Log entry ${e.index} is listed as a ${e.kind} record, but it is ${entryWords(body, w)}`,
        ),
      );
    const c = { index: e.index, pos, kind: e.kind, body };
    byIndex.set(e.index, c);
    all.push(c);
  });
  if (ev.audit && !ev.audit.ok)
    problems.push(
      problem(
        'evidence.audit',
        `When it made this report, the gateway's own check found that its records do not match its evidence log: ${ev.audit.detail ?? 'no detail given'}`,
      ),
    );
  const covered = ev.proof.ranges.flatMap(([a, b]) => Array.from({ length: b - a }, (_, i) => a + i));
  if (covered.join() !== ev.entries.map((e) => e.index).join())
    problems.push(...coverage(report, covered, all, w));
  else if (checkpoint.size >= 0) {
    const hashes = ev.proof.hashes.map(fromBase64);
    const proved =
      hashes.every((h) => h !== undefined) &&
      (await runAsync(checkRangeProof(ev.proof.ranges, checkpoint.size, leaves, hashes, root), nodeHashOf));
    if (!proved)
      problems.push(
        problem(
          'evidence.proof',
          `The records the report carries are not in the log the checkpoint signs (${checkpoint.size} entries): a record or the proof was changed`,
        ),
      );
  }

  const cited = (i: number | undefined) => (i === undefined ? undefined : byIndex.get(i));
  const readings = all.filter((e) => e.kind === 'reading').map((e) => e.body);
  const inspections = all.filter((e) => e.kind === 'inspection').map((e) => e.body);
  const generatedAt = Date.parse(report.generatedAt);
  const notes: string[] = [];
  const long = new Map((ev.longStorms ?? []).map((l, j) => [l.stormId, { l, j }]));
  report.storms.forEach((s, i) => {
    const l = long.get(s.id);
    if (l) {
      const checked = checkLongStorm(s, l.l, l.j, cited, w);
      problems.push(...checked.problems);
      notes.push(checked.note);
    }
    problems.push(...checkStorm(s, i, cited(s.logIndex)?.body, readings, inspections, generatedAt, !!l, w));
  });
  const lists = ['routine', 'cleanouts', 'remedies', 'other', 'gaps'] as const;
  const duties: Array<DutyAt<ReportDuty>> = lists.flatMap((list) =>
    report[list].map((d, i) => ({ d, at: `${list}[${i}]` })),
  );
  for (const d of duties) problems.push(...checkDuty(d, d.d.historyIndexes.map(cited), generatedAt, w));
  problems.push(
    ...checkSummary(
      report,
      duties.map((d) => d.d),
    ),
  );
  problems.push(...checkSections(report, duties, { cited, all, w, ...periodOf(report) }));
  // What the inspections shown as meeting a storm's or a routine duty claim: the developer's, of every
  // practice, after the storm.
  const met = checkMet(
    report,
    duties.filter((d) => d.at.startsWith('routine[')),
    { cited, all, w },
  );
  problems.push(...met.problems);
  notes.push(...met.notes);
  return {
    ok: problems.length === 0,
    problems,
    notes,
    checked: {
      entries: ev.entries.length,
      readings: readings.length,
      storms: report.storms.length,
      duties: duties.length,
      inspections: report.inspections.length,
      notices: report.notices?.length ?? 0,
      violations: report.violations?.length ?? 0,
      stopWork: report.stopWork?.length ?? 0,
      records: report.records?.length ?? 0,
      changes: report.changes?.length ?? 0,
    },
    proved: provedOf(
      report,
      all,
      duties.map((d) => d.d),
    ),
    checkpoint,
    ...(key ? { key } : {}),
    words: w,
  };
}

/** The entries the proof covers and the report does not carry, and those it carries but the proof does not cover. */
function coverage(report: ReportJson, covered: number[], all: CitedBody[], w: Words): Problem[] {
  const carried = new Set(report.evidence.entries.map((e) => e.index));
  const proved = new Set(covered);
  const out: Problem[] = [];
  const missing = covered.filter((i) => !carried.has(i));
  for (const m of missing.slice(0, LISTED)) {
    const before = all.filter((e) => e.index < m).at(-1);
    const after = all.find((e) => e.index > m);
    const between =
      before && after
        ? `; it comes between ${entryWords(before.body, w)} and ${entryWords(after.body, w)}`
        : '';
    out.push(
      problem(
        'evidence.entries',
        `The log proof covers log entry ${m}, which the report does not carry: a record was taken out of the report${between}`,
      ),
    );
  }
  if (missing.length > LISTED)
    out.push(
      problem(
        'evidence.entries',
        `And ${missing.length - LISTED} more log entries the report does not carry`,
      ),
    );
  const extra = report.evidence.entries.flatMap((e, pos) => (proved.has(e.index) ? [] : [{ e, pos }]));
  for (const { e, pos } of extra.slice(0, LISTED)) {
    const body = all.find((c) => c.pos === pos)?.body;
    out.push(
      problem(
        `evidence.entries[${pos}]`,
        capital(
          `${entryWords(body, w)} (log entry ${e.index}) is not in the log proof: the report carries a record the log does not prove`,
        ),
      ),
    );
  }
  if (extra.length > LISTED)
    out.push(
      problem('evidence.entries', `And ${extra.length - LISTED} more records the log proof does not cover`),
    );
  if (out.length === 0)
    out.push(
      problem(
        'evidence.proof.ranges',
        'The log proof covers the records the report carries, but not in their order',
      ),
    );
  return out;
}

/** That a later signed checkpoint extends the report's: the log was not truncated or rewritten since. */
export async function verifyLater(
  report: ReportJson,
  verifierKey: string,
  laterNote: string,
  proof: string[],
): Promise<Problem | undefined> {
  const field = 'later checkpoint';
  let later: ReturnType<typeof readCheckpoint>;
  try {
    const { name, publicKey } = await parseKey(verifierKey);
    const v = await checkNote(laterNote, name, publicKey);
    if (!v.ok) return problem(field, `The later checkpoint: ${signatureProblem(v, name).message}`);
    later = readCheckpoint(v.text);
  } catch (e) {
    return problem(field, `The later checkpoint cannot be read: ${(e as Error).message}`);
  }
  const cp = report.evidence.checkpoint;
  if (later.size < cp.size)
    return problem(
      field,
      `The later checkpoint has ${later.size} log entries, fewer than the report's ${cp.size}: the log was cut short`,
    );
  const from = fromBase64(cp.root);
  const hashes = proof.map(fromBase64);
  const consistent =
    from !== undefined &&
    hashes.every((h) => h !== undefined) &&
    (await runAsync(checkConsistency(cp.size, later.size, from, later.root, hashes), nodeHashOf));
  if (!consistent)
    return problem(
      field,
      `The log at ${later.size} entries is not an extension of the report's ${cp.size}: it was rewritten`,
    );
  return undefined;
}
