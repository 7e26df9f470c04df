/**
 * Verifies a compliance report with nothing but the gateway's public key: the checkpoint's signature,
 * every cited entry's leaf and the one multi-range proof of them all against the checkpoint, and that the
 * report's figures follow from its records: each storm's totals from its readings, each duty's status
 * from its history, each storm inspection's status from the inspections cited, and the summary from the
 * rows. A later checkpoint (from the API or a witness) and a consistency proof show the log was not
 * rewritten since. Pure: the caller fetches what it needs.
 */
import { createHash } from 'node:crypto';
import type { ChangeResponse } from '../../../shared/src/admin.ts';
import { canonicalJson } from './canonical.ts';
import { parseCheckpoint, parseVerifierKey, verifyNote } from './checkpoint.ts';
import { type Hash, verifyConsistency, verifyRangeProof } from './merkle.ts';
import type { StormBasis } from './records.ts';
import { checkShown, type ShownDuty, type ShownReport } from './verifyShown.ts';

type Json = Record<string, unknown>;

/** The parts of a report JSON the verifier reads. */
export interface ReportJson extends ShownReport {
  generatedAt: string;
  summary: Record<string, number>;
  storms: Array<{
    id: string;
    deviceId: string;
    start: string;
    end: string;
    tips: number;
    inches: number;
    qualified: boolean;
    thresholdAt?: string;
    dueAt?: string;
    logIndex?: number;
    inspection: { status: string; inspectionId?: string; inspectedAt?: string };
  }>;
  routine: Duty[];
  cleanouts: Duty[];
  remedies: Duty[];
  other: Duty[];
  gaps: Duty[];
  /** Change records effective in the period (reports of earlier releases have none). */
  changes?: ReportChange[];
  evidence: {
    checkpoint: { origin: string; size: number; root: string; note: string };
    entries: Array<{ index: number; kind: string; body: string; leaf: string }>;
    proof: { size: number; ranges: Array<[number, number]>; hashes: string[] };
    /** Storms cited by their record and first and last readings only (reports before these have none). */
    longStorms?: Array<{ stormId: string; readings: number; first: number; last: number }>;
    /** The gateway's audit of its store against the log when it made the report. */
    audit?: { ok: boolean; detail?: string };
    // Reports of earlier releases also carry `chains` (the per-table hash chains, since ended): not read.
  };
}

type ReportChange = Pick<
  ChangeResponse,
  'id' | 'logIndex' | 'effectiveAt' | 'by' | 'entity' | 'action' | 'deviceId' | 'old' | 'new'
>;

interface Duty extends ShownDuty {
  alertId: string;
  rule: string;
  dueAt: string | null;
  resolvedAt: string | null;
  status: string;
  duty: boolean;
  pastDue: string;
  historyIndexes: number[];
}

export interface Verdict {
  ok: boolean;
  problems: string[];
  /** What was checked less than in full, and why (a long storm's readings not carried). */
  notes: string[];
  checked: { entries: number; storms: number; duties: number };
  checkpoint: { size: number; root: string };
}

const b64 = (s: string) => Buffer.from(s, 'base64');
const leafOf = (body: string) =>
  createHash('sha256')
    .update(Buffer.from([0]))
    .update(body, 'utf8')
    .digest();
const t = (iso: string | null | undefined) => (iso ? Date.parse(iso) : null);
const near = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));

/** Checks a report against the key (a verifier key `<name>+<id>+<key>`). */
export function verifyReport(report: ReportJson, verifierKey: string): Verdict {
  const problems: string[] = [];
  const ev = report.evidence;
  const { name, publicKey } = parseVerifierKey(verifierKey);
  let size = -1;
  let root: Hash = Buffer.alloc(0);
  try {
    const cp = parseCheckpoint(verifyNote(ev.checkpoint.note, name, publicKey));
    size = cp.size;
    root = cp.root;
    if (cp.size !== ev.checkpoint.size || cp.root.toString('base64') !== ev.checkpoint.root)
      problems.push('the checkpoint the report states is not the one it carries signed');
  } catch (e) {
    problems.push(`the checkpoint: ${(e as Error).message}`);
  }
  // Every cited entry: its leaf is its body's, and together they prove against the checkpoint.
  const byIndex = new Map<number, { kind: string; body: Json }>();
  const all: Array<{ index: number; kind: string; body: Json }> = [];
  const leaves: Hash[] = [];
  for (const e of ev.entries) {
    const leaf = leafOf(e.body);
    if (!leaf.equals(b64(e.leaf))) problems.push(`entry ${e.index}: its body does not hash to its leaf`);
    leaves.push(leaf);
    const body = JSON.parse(e.body) as Json;
    if (body.type !== e.kind)
      problems.push(`entry ${e.index}: listed as ${e.kind}, its body is ${String(body.type)}`);
    byIndex.set(e.index, { kind: e.kind, body });
    all.push({ index: e.index, kind: e.kind, body });
  }
  if (ev.audit && !ev.audit.ok)
    problems.push(
      `the gateway's own audit found, when it made this report, that its store does not match its log: ${ev.audit.detail ?? 'no detail given'}`,
    );
  const covered = ev.proof.ranges.flatMap(([a, b]) => Array.from({ length: b - a }, (_, i) => a + i));
  if (covered.join() !== ev.entries.map((e) => e.index).join())
    problems.push('the proof covers other entries than the report cites');
  else if (size >= 0 && !verifyRangeProof(ev.proof.ranges, size, leaves, ev.proof.hashes.map(b64), root))
    problems.push(`the cited entries are not in the log the checkpoint signs (${size} entries)`);
  const cited = (i: number | undefined) => (i === undefined ? undefined : byIndex.get(i));
  const readings = [...byIndex.values()].filter((e) => e.kind === 'reading').map((e) => e.body);
  const inspections = [...byIndex.values()].filter((e) => e.kind === 'inspection').map((e) => e.body);
  const generatedAt = Date.parse(report.generatedAt);

  const notes: string[] = [];
  const long = new Map((ev.longStorms ?? []).map((l) => [l.stormId, l]));
  for (const s of report.storms) {
    const l = long.get(s.id);
    if (l) {
      // Its readings are not all carried: its first and last must be its gauge's, at its start and end.
      const ends = [cited(l.first)?.body, cited(l.last)?.body];
      const rec = cited(s.logIndex)?.body;
      if (ends.some((b) => b?.type !== 'reading' || b.deviceId !== s.deviceId))
        problems.push(`storm ${s.id}: its first and last readings are not cited`);
      else if (rec && (ends[0]!.ts !== rec.start || ends[1]!.ts !== rec.end))
        problems.push(`storm ${s.id}: its first and last readings are not at its start and end`);
      if ((rec?.readings as { count?: number } | undefined)?.count !== l.readings)
        problems.push(
          `storm ${s.id}: the report says it rests on ${l.readings} readings, its record does not`,
        );
      notes.push(
        `storm ${s.id}: its ${l.readings} readings are not all in the report; its totals are its logged record's, checked against the report but not added up again`,
      );
    }
    problems.push(...checkStorm(s, cited(s.logIndex)?.body, readings, inspections, generatedAt, !!l));
  }
  const duties = [
    ...report.routine,
    ...report.cleanouts,
    ...report.remedies,
    ...report.other,
    ...report.gaps,
  ];
  for (const d of duties) problems.push(...checkDuty(d, d.historyIndexes.map(cited), generatedAt));
  problems.push(...checkSummary(report, duties));
  problems.push(...checkShown(report, duties, cited, all));
  for (const c of report.changes ?? []) problems.push(...checkChange(c, cited(c.logIndex)));
  return {
    ok: problems.length === 0,
    problems,
    notes,
    checked: { entries: ev.entries.length, storms: report.storms.length, duties: duties.length },
    checkpoint: { size, root: root.toString('base64') },
  };
}

/** A change record the report lists: its entry is cited and says what the report says. */
function checkChange(c: ReportChange, e: { kind: string; body: Json } | undefined): string[] {
  const where = `change ${c.id}`;
  if (e?.kind !== 'change') return [`${where}: its log entry is not cited`];
  const b = e.body;
  const out: string[] = [];
  const pairs: Array<[string, unknown, unknown]> = [
    ['effectiveAt', t(c.effectiveAt), b.effectiveAt],
    ['by', c.by, b.by],
    ['action', c.action, b.action],
    ['entity', c.entity, b.entity],
    ['deviceId', c.deviceId ?? undefined, b.deviceId],
    ['old', canonicalJson(c.old ?? null), canonicalJson(b.old ?? null)],
    ['new', canonicalJson(c.new ?? null), canonicalJson(b.new ?? null)],
  ];
  for (const [k, mine, logged] of pairs)
    if (mine !== logged)
      out.push(`${where}: the report says ${k} ${String(mine)}, its logged record ${String(logged)}`);
  return out;
}

/** A storm: its record is cited and says what the report says; its totals follow from its readings. */
function checkStorm(
  s: ReportJson['storms'][number],
  rec: Json | undefined,
  readings: Json[],
  inspections: Json[],
  generatedAt: number,
  /** Its readings are not all cited (a long storm): its totals are checked against its record only. */
  long = false,
): string[] {
  const where = `storm ${s.id}`;
  if (!rec) return [`${where}: its log entry is not cited`];
  const out: string[] = [];
  const same = (k: string, v: unknown) => {
    if (rec[k] !== v)
      out.push(`${where}: the report says ${k} ${String(v)}, its logged record ${String(rec[k])}`);
  };
  same('start', t(s.start));
  same('end', t(s.end));
  same('tips', s.tips);
  same('inches', s.inches);
  same('qualified', s.qualified);
  same('dueAt', t(s.dueAt) ?? undefined);
  same('thresholdAt', t(s.thresholdAt) ?? undefined);
  const start = rec.start as number;
  const end = rec.end as number;
  const mine = readings
    .filter((r) => r.siteId === rec.siteId && r.deviceId === rec.deviceId)
    .sort((a, b) => (a.ts as number) - (b.ts as number));
  const within = mine.filter((r) => (r.ts as number) >= start && (r.ts as number) <= end);
  const count = (rec.readings as { count?: number } | undefined)?.count;
  if (!long && count !== within.length)
    out.push(`${where}: its record rests on ${count} readings, the report cites ${within.length}`);
  const basis = rec.basis as StormBasis | undefined;
  if (basis && long) {
    if (!near(rec.inches as number, (rec.tips as number) * basis.inchesPerTip) && !basis.calibrations)
      out.push(`${where}: ${String(rec.tips)} tips are not ${String(rec.inches)} in`);
    if ((rec.inches as number) >= basis.thresholdIn - 1e-9 !== rec.qualified)
      out.push(`${where}: qualified is ${String(rec.qualified)} at ${String(rec.inches)} in`);
  } else if (basis && within.length > 0) {
    const before = mine.filter((r) => (r.ts as number) < start).at(-1);
    // Each reading's tips at the calibration in force at its time (a recalibrated gauge lists the earlier ones).
    const iptAt = (ts: number) =>
      basis.calibrations?.find((c) => ts < c.until)?.inchesPerTip ?? basis.inchesPerTip;
    let tips = 0;
    let depth = 0;
    let inches = 0;
    let counter = (before?.values as Json | undefined)?.rainTips as number | undefined;
    for (const r of within) {
      const v = r.values as Json;
      if (typeof v.rainTips === 'number') {
        const n = counter === undefined ? 0 : v.rainTips >= counter ? v.rainTips - counter : v.rainTips;
        tips += n;
        depth += n * iptAt(r.ts as number);
        counter = v.rainTips;
      } else if (typeof v.rainIn === 'number') inches += v.rainIn;
    }
    if (inches > 0) {
      // Rain reported as depth is counted in whole tips of the running total: within one tip.
      if (Math.abs(inches / basis.inchesPerTip - (rec.tips as number)) > 1 + 1e-6)
        out.push(
          `${where}: its readings hold ${inches.toFixed(4)} in, not the ${String(rec.tips)} tips it records`,
        );
    } else if (tips !== rec.tips)
      out.push(`${where}: its readings add up to ${tips} tips, not ${String(rec.tips)}`);
    const expected = inches > 0 || !basis.calibrations ? (rec.tips as number) * basis.inchesPerTip : depth;
    if (!near(expected, rec.inches as number))
      out.push(
        `${where}: ${String(rec.tips)} tips, each at its calibration, are ${expected.toFixed(6)} in, not ${String(rec.inches)} in`,
      );
    const reaches = (rec.inches as number) >= basis.thresholdIn - 1e-9;
    if (reaches !== rec.qualified)
      out.push(`${where}: qualified is ${String(rec.qualified)} at ${String(rec.inches)} in`);
  }
  if (s.qualified) {
    const from = (rec.thresholdAt as number | undefined) ?? start;
    const due = rec.dueAt as number | undefined;
    const met = inspections
      .filter((i) => (i.at as number) >= from && i.kind !== 'annual' && i.kind !== 'cleanout')
      .sort((a, b) => (a.at as number) - (b.at as number))[0];
    const status = met
      ? due !== undefined && (met.at as number) > due
        ? 'late'
        : 'on-time'
      : due !== undefined && generatedAt > due
        ? 'missing'
        : 'pending';
    if (status !== s.inspection.status)
      out.push(
        `${where}: its inspection is ${status} by the cited records, the report says ${s.inspection.status}`,
      );
  }
  return out;
}

/** A duty: its status follows from its logged history (due times, extensions, the resolution). */
function checkDuty(
  d: Duty,
  history: Array<{ kind: string; body: Json } | undefined>,
  generatedAt: number,
): string[] {
  const where = `duty ${d.alertId}`;
  if (history.length === 0 || history.some((h) => !h)) return [`${where}: its history is not all cited`];
  let due: number | null = null;
  let resolvedAt: number | null = null;
  let within: boolean | undefined;
  for (const h of history) {
    const b = h!.body;
    const detail = (b.detail ?? {}) as Json;
    if (b.alertId !== d.alertId) return [`${where}: a cited history entry is of alert ${String(b.alertId)}`];
    if (b.action === 'raised' || b.action === 'updated') {
      if ('dueAt' in detail) due = t(detail.dueAt as string | null);
    } else if (b.action === 'extended') due = t(detail.newDueAt as string);
    else if (b.action === 'resolved') {
      resolvedAt = t(detail.resolvedAt as string);
      within = detail.withinDeadline as boolean | undefined;
    }
  }
  const out: string[] = [];
  if (due !== t(d.dueAt))
    out.push(`${where}: its history gives the due time ${String(due)}, the report ${String(d.dueAt)}`);
  if (resolvedAt !== t(d.resolvedAt))
    out.push(`${where}: its history gives the resolution ${String(resolvedAt)}`);
  const status =
    resolvedAt !== null
      ? due === null
        ? 'resolved'
        : within === false || resolvedAt > due
          ? 'late'
          : 'on-time'
      : due !== null && generatedAt > due
        ? d.pastDue
        : 'open';
  if (status !== d.status) out.push(`${where}: its history makes it ${status}, the report says ${d.status}`);
  return out;
}

/** The summary counts what the rows say. */
function checkSummary(r: ReportJson, duties: Duty[]): string[] {
  const q = r.storms.filter((s) => s.qualified);
  const storm = (st: string) => q.filter((s) => s.inspection.status === st).length;
  const duty = (st: string) => duties.filter((d) => d.duty && d.status === st).length;
  const expected: Record<string, number> = {
    storms: r.storms.length,
    qualifyingStorms: q.length,
    stormInspectionsOnTime: storm('on-time'),
    stormInspectionsLate: storm('late'),
    stormInspectionsMissing: storm('missing'),
    stormInspectionsPending: storm('pending'),
    inspections: r.inspections.length,
    dutiesOnTime: duty('on-time'),
    dutiesLate: duty('late'),
    dutiesMissing: duty('missing'),
    dutiesOverdue: duty('overdue'),
    dutiesOpen: duty('open'),
    gaps: r.gaps.length,
  };
  return Object.entries(expected)
    .filter(([k, v]) => r.summary[k] !== v)
    .map(([k, v]) => `the summary says ${k} ${r.summary[k]}, its rows ${v}`);
}

/** That a later signed checkpoint extends the report's: the log was not truncated or rewritten since. */
export function verifyLater(
  report: ReportJson,
  verifierKey: string,
  laterNote: string,
  proof: string[],
): string | undefined {
  const { name, publicKey } = parseVerifierKey(verifierKey);
  let later: ReturnType<typeof parseCheckpoint>;
  try {
    later = parseCheckpoint(verifyNote(laterNote, name, publicKey));
  } catch (e) {
    return `the later checkpoint: ${(e as Error).message}`;
  }
  const cp = report.evidence.checkpoint;
  if (later.size < cp.size)
    return `the later checkpoint has ${later.size} entries, fewer than the report's ${cp.size}`;
  if (!verifyConsistency(cp.size, later.size, b64(cp.root), later.root, proof.map(b64)))
    return `the log at ${later.size} entries is not an extension of the report's ${cp.size}: it was rewritten`;
  return undefined;
}
