/**
 * The verifier checks what a report shows, against the real gateway process: in copies of a stopped
 * store, an inspection's words are edited (not its time: no status or total changes) and one entry in
 * the middle of a resolved duty's history is deleted (its due time and status stay the same). A NEW
 * report made from each tampered copy fails `npm run verify`, which names what does not match; and the
 * report itself says, first in its JSON and at the top of its page, that the gateway's audit is red.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { waitFor } from '../helpers/env.ts';
import { testConfigInput } from '../helpers/gateway.ts';
import { sha256 } from '../helpers/reports.ts';
import { type Tampering, tamper } from '../helpers/tamper.ts';

const ROOT = join(import.meta.dirname, '../..');
const TOKEN = 'report-verify-admin';
const M = 60_000;
const config = () => ({
  ...testConfigInput(),
  auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha256(TOKEN) }] },
  evidence: { checkpointIntervalSeconds: 1 },
});
/** `npm run verify` as its own process. */
const verifyCli = (...args: string[]) =>
  promisify(execFile)('npx', ['tsx', 'gateway/src/tools/verify.ts', ...args], { cwd: ROOT }).then(
    (r) => ({ code: 0, out: r.stdout }),
    (e: { code?: number; stdout?: string }) => ({ code: e.code ?? -1, out: String(e.stdout ?? '') }),
  );

describe('the verifier checks what a report shows, on reports made from a tampered store', () => {
  let base: string;
  let key: string;
  const call = async <T>(gw: GatewayChild, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${gw.httpUrl}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const report = (gw: GatewayChild, site: string, format = 'json') =>
    fetch(`${gw.httpUrl}/api/reports/compliance?siteId=${site}&from=2020-01-01&format=${format}`).then((r) =>
      r.text(),
    );
  const verifyReportText = async (name: string, text: string) => {
    const file = join(base, `${name}.json`);
    writeFileSync(file, text);
    return verifyCli(file, '--key', key);
  };

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'report-verify-'));
    const gw = await startGatewayChild(config(), { dataDir: join(base, 'original') });
    try {
      const now = Date.now();
      // A pump alarm at the alternative system: an equipment-remedy duty, acknowledged, then resolved.
      const panel = await mqtt.connectAsync(gw.mqttUrl, {
        clientId: 'oak-lane/panel-1',
        username: 'oak-lane/panel-1',
        password: 'pw-panel-1',
      });
      for (let i = 0; i < 4; i++)
        await panel.publishAsync(
          'sites/oak-lane/devices/panel-1/telemetry',
          JSON.stringify({ ts: now - 60 * M + i * M, levelIn: 30, alarms: { pump: true } }),
          { qos: 1 },
        );
      await panel.endAsync();
      const remedy = await waitFor(
        async () =>
          (await call<Array<{ id: string; rule: string }>>(gw, '/api/alerts?siteId=oak-lane')).find(
            (a) => a.rule === 'equipment-remedy',
          ),
        20_000,
        'the equipment-remedy duty',
      );
      await call(gw, `/api/alerts/${remedy.id}/ack`, { note: 'pump checked' });
      await call(gw, `/api/alerts/${remedy.id}/resolve`, { note: 'pump replaced', confirmActive: true });
      await call(gw, '/api/inspections', {
        siteId: 'maple-ridge',
        at: new Date(now - 30 * M).toISOString(),
        inspector: 'Ian Inspector',
        kind: 'routine',
        notes: 'Silt fence torn at the north outlet; repaired.',
      });
      key = (await call<{ verifierKey: string }>(gw, '/api/evidence/key')).verifierKey;
      // The untouched store's reports verify.
      for (const site of ['maple-ridge', 'oak-lane']) {
        const { code, out } = await verifyReportText(`untouched-${site}`, await report(gw, site));
        expect(out, site).toMatch(/^verified$/m);
        expect(code).toBe(0);
      }
    } finally {
      await gw.stop();
    }
  }, 180_000);
  afterAll(() => {
    if (base) rmSync(base, { recursive: true, force: true });
  });

  const cases: Array<[Tampering, string, RegExp]> = [
    [
      'reword-inspection',
      'maple-ridge',
      /NOT VERIFIED: The inspection of .* by Someone Else: the report shows its notes "all fine", its logged record "Silt fence.* \[inspections\[0\]\.notes\]/,
    ],
    [
      'remove-acknowledgement',
      'oak-lane',
      // Oak Lane's remedies also hold the question of its tank's last pump-out: the alarm's row is named.
      /NOT VERIFIED: The duty "Pump alarm.*: its history in the report skips one: entry number \d+ comes in place \d+, so 1 entry before it is missing \[remedies\[\d+\]\.historyIndexes\]/,
    ],
  ];
  for (const [what, site, names] of cases)
    it(`${what}: a new report from the tampered store fails npm run verify, naming what does not match`, async () => {
      const dir = join(base, what);
      cpSync(join(base, 'original'), dir, { recursive: true });
      tamper(dir, what);
      const gw = await startGatewayChild(config(), { dataDir: dir });
      try {
        const text = await report(gw, site);
        const { code, out } = await verifyReportText(what, text);
        expect(out).toMatch(names);
        expect(code).toBe(1);
        // The gateway's own audit found it at start, and the report says so first.
        const json = JSON.parse(text) as { warnings?: string[] };
        expect(Object.keys(json)[0]).toBe('warnings');
        expect(json.warnings?.[0]).toMatch(/do not match its evidence log/);
        const html = await report(gw, site, 'html');
        const warning = html.indexOf('<p class="warn"');
        expect(warning).toBeGreaterThan(0);
        expect(warning).toBeLessThan(html.indexOf('<h2>Summary</h2>'));
        expect(html.slice(warning, warning + 600)).toMatch(/do not match its evidence log/);
      } finally {
        await gw.stop();
      }
    }, 120_000);
});
