/**
 * The evidence log's costs (`BENCH_ONLY=evidence`):
 * - a log of BENCH_EVIDENCE_ENTRIES (10,000,000) entries built through the store, as the group commit
 *   appends readings: entries per second;
 * - at that size: signing a checkpoint of an earlier size, an inclusion proof and a consistency proof
 *   (medians of 50, each for a random index or size);
 * - a one-year report of a busy site: a year of a real tipping-bucket record (Campbell TOA5, 2021-09 to
 *   2022-10) imported into a running gateway, its compliance report downloaded as JSON (size) and checked
 *   by the verifier (time).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSigningKey } from '../../gateway/src/evidence/keys.ts';
import { checkpointText, signNote } from '../../gateway/src/ledger/checkpoint.ts';
import { openDatabase } from '../../gateway/src/store/db.ts';
import { EvidenceLog } from '../../gateway/src/store/evidenceLog.ts';
import { type ReportJson, verifyReport } from '../../gateway/src/verifier/verify.ts';
import { median, startBenchGateway } from './gatewayProcess.ts';

const ROOT = join(import.meta.dirname, '../..');

function timeMs(fn: () => void, runs = 50): number {
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    xs.push(performance.now() - t);
  }
  return median(xs);
}

export async function logBench(entries: number) {
  const dir = mkdtempSync(join(tmpdir(), 'log-bench-'));
  try {
    const db = openDatabase(dir);
    const log = new EvidenceLog(db);
    const leaf = () => randomBytes(32);
    const t0 = performance.now();
    const per = 5000;
    for (let done = 0; done < entries; done += per) {
      const n = Math.min(per, entries - done);
      db.transaction(() => {
        for (let i = 0; i < n; i++) log.stage('reading', done + i + 1, 0, null, leaf());
        log.flush();
      })();
    }
    const appendPerSec = entries / ((performance.now() - t0) / 1000);
    const key = loadSigningKey({ gatewayId: 'bench', dataDir: dir });
    const rnd = (n: number) => 1 + Math.floor(Math.random() * (n - 1));
    const checkpointMs = timeMs(() => {
      const size = rnd(entries);
      signNote(
        checkpointText({ origin: key.name, size, root: log.rootAt(size), extensions: [] }),
        key.name,
        key.privateKey,
      );
    });
    const inclusionMs = timeMs(() => {
      log.inclusion(rnd(entries) - 1, entries);
    });
    const consistencyMs = timeMs(() => {
      log.consistency(rnd(entries), entries);
    });
    db.close();
    return { entries, appendPerSec, checkpointMs, inclusionMs, consistencyMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function yearReportBench() {
  const token = 'bench-engineer';
  const gw = await startBenchGateway({
    gatewayId: 'bench-report',
    auth: {
      tokens: [
        { name: 'bench', role: 'engineer', tokenSha256: createHash('sha256').update(token).digest('hex') },
      ],
    },
    sites: [
      {
        id: 'cabin',
        kind: 'construction',
        devices: [{ id: 'tbrg', kind: 'rain-gauge', inchesPerTip: 0.2 / 25.4 }],
      },
    ],
  });
  try {
    const auth = { authorization: `Bearer ${token}` };
    const body = readFileSync(join(ROOT, 'test/fixtures/rain/campbell_cabin_precip_2022.dat'), 'utf8');
    const imp = await fetch(`${gw.http}/api/import?siteId=cabin&deviceId=tbrg&utcOffsetMinutes=0`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', ...auth },
      body,
    });
    if (!imp.ok) throw new Error(`import: ${imp.status} ${await imp.text()}`);
    const t0 = performance.now();
    const res = await fetch(`${gw.http}/api/reports/compliance?siteId=cabin&from=2021-09-01&to=2022-10-31`, {
      headers: auth,
    });
    const text = await res.text();
    const reportMs = performance.now() - t0;
    const key = ((await (await fetch(`${gw.http}/api/evidence/key`)).json()) as { verifierKey: string })
      .verifierKey;
    const report = JSON.parse(text) as ReportJson;
    const file = join(mkdtempSync(join(tmpdir(), 'report-')), 'report.json');
    writeFileSync(file, text);
    const t1 = performance.now();
    const verdict = await verifyReport(JSON.parse(readFileSync(file, 'utf8')) as ReportJson, key);
    const verifyMs = performance.now() - t1;
    return {
      bytes: text.length,
      storms: report.storms.length,
      entries: report.evidence.entries.length,
      proofHashes: report.evidence.proof.hashes.length,
      reportMs,
      verifyMs,
      ok: verdict.ok,
      problems: verdict.problems.slice(0, 3).map((p) => `${p.message} [${p.field}]`),
    };
  } finally {
    await gw.stop();
  }
}
