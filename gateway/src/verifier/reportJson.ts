/**
 * The parts of a compliance report's JSON that the verifier reads (the report itself is built in
 * `../reports/compliance.ts`), and the check that a file someone gives the verifier is one at all.
 */
import type { ChangeResponse } from '../../../shared/src/admin.ts';
import type { ShownNotice } from './notices.ts';
import type { ShownSiteRecord } from './records.ts';
import type { ShownDuty, ShownReport } from './shown.ts';
import type { EnforcementReport } from './violations.ts';

export interface ReportJson extends ShownReport, EnforcementReport {
  generatedAt: string;
  summary: Record<string, number>;
  storms: ReportStorm[];
  routine: ReportDuty[];
  cleanouts: ReportDuty[];
  remedies: ReportDuty[];
  other: ReportDuty[];
  gaps: ReportDuty[];
  /** Milestone notices of the period (reports of earlier releases have none). */
  notices?: ShownNotice[];
  /** The developer's records on file at the period's end (reports of earlier releases have none). */
  records?: ShownSiteRecord[];
  /** Change records effective in the period (reports of earlier releases have none). */
  changes?: ReportChange[];
  evidence: {
    checkpoint: { origin: string; size: number; root: string; note: string };
    entries: Array<{ index: number; kind: string; body: string; leaf: string }>;
    proof: { size: number; ranges: Array<[number, number]>; hashes: string[] };
    /** Storms cited by their record and first and last readings only (reports before these have none). */
    longStorms?: LongStormJson[];
    /** The gateway's audit of its store against the log when it made the report. */
    audit?: { ok: boolean; detail?: string };
    // Reports of earlier releases also carry `chains` (the per-table hash chains, since ended): not read.
  };
}

export interface ReportStorm {
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
}

export interface LongStormJson {
  stormId: string;
  readings: number;
  first: number;
  last: number;
}

export type ReportChange = Pick<
  ChangeResponse,
  'id' | 'logIndex' | 'effectiveAt' | 'by' | 'entity' | 'action' | 'deviceId' | 'old' | 'new'
>;

export interface ReportDuty extends ShownDuty {
  alertId: string;
  rule: string;
  dueAt: string | null;
  resolvedAt: string | null;
  status: string;
  duty: boolean;
  pastDue: string;
  historyIndexes: number[];
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A parsed JSON file as a report, or an error saying in plain words why it is not the verifiable copy of
 * a compliance report (a CSV, the printable page saved as text, some other JSON).
 */
export function readReport(json: unknown): ReportJson {
  const not = (why: string) =>
    new Error(`this file is not the verifiable copy (JSON) of a compliance report: ${why}`);
  if (!isObject(json)) throw not('it is not a JSON object');
  const ev = json.evidence;
  if (!isObject(ev) || !isObject(ev.checkpoint) || typeof ev.checkpoint.note !== 'string')
    throw not('it carries no signed checkpoint');
  if (!Array.isArray(ev.entries) || !isObject(ev.proof) || !Array.isArray(ev.proof.ranges))
    throw not('it carries no log records and proof');
  for (const list of [
    'storms',
    'inspections',
    'extensions',
    'routine',
    'cleanouts',
    'remedies',
    'other',
    'gaps',
  ])
    if (!Array.isArray(json[list])) throw not(`it has no list of ${list}`);
  if (!isObject(json.summary)) throw not('it has no summary');
  return json as unknown as ReportJson;
}
