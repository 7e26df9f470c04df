/**
 * A real compliance report to verify, made by a real gateway (in this process, a temp data directory):
 * a storm of 16 readings at Maple Ridge's rain gauge rg-1 (60 tips, 0.60 in), inspected the same day, and
 * a routine inspection; its JSON as the API answers it, and the gateway's verifier key. And the copies a
 * clerk must see refused: a storm total changed, a reading removed, a finding changed, signed by another key, a signature
 * changed.
 */
import { generateKeyPairSync } from 'node:crypto';
import mqtt from 'mqtt';
import { rawPublicKey, verifierKey } from '../../gateway/src/ledger/checkpoint.ts';
import type { ReportJson } from '../../gateway/src/verifier/verify.ts';
import { waitFor } from './env.ts';
import { startTestGateway, type TestGateway, testConfigInput } from './gateway.ts';
import { completeInspection } from './inspections.ts';
import { checkpointedReport, sha256 } from './reports.ts';

const TOKEN = 'verified-report-admin';
/** The routine inspection's drawn signature. */
export const SIGNED = 'M20 150 L60 40 L100 150 M130 90 L200 90';
const M = 60_000;

export interface RealReport {
  /** The report's JSON text, as downloaded. */
  text: string;
  report: ReportJson;
  /** The gateway's verifier key, as GET /api/evidence/key gives it. */
  key: string;
}

/** Maple Ridge's practices: each inspection of the report has a finding at each, in order. */
export const PRACTICES = [
  { id: 'sf-north', label: 'Silt fence, north boundary', kind: 'silt-fence' },
  { id: 'inlet-elm', label: 'Inlet protection, Elm St', kind: 'inlet-protection' },
] as const;

/** A gateway to make the report with: an admin token, a checkpoint a second, Maple Ridge's practices. */
export const reportGateway = (): Promise<TestGateway> =>
  startTestGateway({
    auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha256(TOKEN) }] },
    evidence: { checkpointIntervalSeconds: 1 },
    sites: (testConfigInput().sites ?? []).map((s) =>
      s.id === 'maple-ridge' ? { ...s, practices: PRACTICES.map((p) => ({ ...p })) } : s,
    ),
  } as never);

/** The report of a gateway of its own, stopped once the report is made. */
export async function makeRealReport(): Promise<RealReport> {
  const gw = await reportGateway();
  try {
    return await reportFrom(gw);
  } finally {
    await gw.cleanup();
  }
}

/** Records the storm and the inspections at a `reportGateway()`, and answers its report. */
export async function reportFrom(gw: TestGateway): Promise<RealReport> {
  const call = async <T>(path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${gw.httpUrl}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const now = Date.now();
  const rg = await mqtt.connectAsync(gw.mqttUrl, {
    clientId: 'maple-ridge/rg-1',
    username: 'maple-ridge/rg-1',
    password: 'pw-rg-1',
  });
  // A cumulative tip counter: 4 tips a reading, 16 readings a minute apart, ended five hours ago.
  for (let i = 0; i < 16; i++)
    await rg.publishAsync(
      'sites/maple-ridge/devices/rg-1/telemetry',
      JSON.stringify({ ts: now - 6 * 60 * M + i * M, rainTips: i * 4 }),
      { qos: 1 },
    );
  await rg.endAsync();
  await waitFor(
    async () => (await call<unknown[]>('/api/storms?siteId=maple-ridge')).length > 0 || undefined,
    20_000,
    'the storm',
  );
  await call(
    '/api/inspections',
    completeInspection(
      {
        siteId: 'maple-ridge',
        at: new Date(now - 2 * 60 * M).toISOString(),
        inspector: 'Ian Inspector',
        kind: 'storm',
        notes: 'Silt fence holding; outlet clear.',
      },
      PRACTICES.map((p) => p.id),
    ),
  );
  await call(
    '/api/inspections',
    completeInspection(
      {
        siteId: 'maple-ridge',
        at: new Date(now - 30 * M).toISOString(),
        inspector: 'Ian Inspector',
        kind: 'routine',
        notes: 'Weekly walk-round.',
        signature: { name: 'Ian Inspector', method: 'drawn', drawing: SIGNED },
      },
      PRACTICES.map((p) => p.id),
    ),
  );
  const key = (await call<{ verifierKey: string }>('/api/evidence/key')).verifierKey;
  // Once a checkpoint covers the inspections (one a second).
  const text = await checkpointedReport(gw.httpUrl, 'siteId=maple-ridge&from=2020-01-01&format=json', {
    authorization: `Bearer ${TOKEN}`,
  });
  return { text, report: JSON.parse(text) as ReportJson, key };
}

/** The ways a copy of the report is changed, each of which the verifier must name. */
export type ReportTampering =
  | 'storm-total'
  | 'removed-reading'
  | 'wrong-key'
  | 'changed-signature'
  | 'inspection-signature'
  | 'changed-finding';

/** A copy of the report changed one way, with the key to check it with. */
export function tamperedReport(r: RealReport, how: ReportTampering): { report: ReportJson; key: string } {
  const report = structuredClone(r.report);
  switch (how) {
    case 'storm-total':
      report.storms[0]!.inches = 0.71;
      break;
    case 'changed-finding': {
      // The storm inspection's finding at the north silt fence, "in order" as logged, shown as needing repair.
      const f = report.inspections.find((x) => x.kind === 'storm')!.findings![0] as { status: string };
      f.status = 'maintenance';
      break;
    }
    case 'removed-reading': {
      // The storm's seventh reading, out of the middle of its readings.
      const readings = report.evidence.entries.filter((e) => e.kind === 'reading');
      const gone = readings[6]!;
      report.evidence.entries = report.evidence.entries.filter((e) => e !== gone);
      break;
    }
    case 'wrong-key': {
      // Another key under the gateway's key name: what someone who forged the report would hand out.
      const name = r.key.split('+')[0]!;
      return { report, key: verifierKey(name, rawPublicKey(generateKeyPairSync('ed25519').privateKey)) };
    }
    case 'inspection-signature': {
      // The inspector's drawn signature of the routine inspection, redrawn in the report.
      const signed = report.inspections.find((i) => i.signature) as { signature: { drawing: string } };
      signed.signature.drawing = 'M20 150 L60 40';
      break;
    }
    case 'changed-signature': {
      const note = report.evidence.checkpoint.note;
      const at = note.lastIndexOf(' ') + 10;
      report.evidence.checkpoint.note = `${note.slice(0, at)}${note[at] === 'A' ? 'B' : 'A'}${note.slice(at + 1)}`;
      break;
    }
  }
  return { report, key: r.key };
}
