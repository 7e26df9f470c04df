/**
 * A figure looser than the law through the API and on the compliance report (a real gateway): the edit
 * is refused in words without a reason and nothing is stored; with one it is taken, its change record is
 * listed, and the report prints it (the figure, the law's figure, the reason, who, when) as a record the
 * verifier checks against the evidence log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportJson } from '../../gateway/src/verifier/verify.ts';
import { verifyReport } from '../../gateway/src/verifier/verify.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { checkpointedReport, sha256 } from '../helpers/reports.ts';
import { textOf } from '../helpers/reportText.ts';

const TOKEN = 'overrides-admin-token';
const REASON = 'The gauge sits under a canopy that catches a tenth of an inch; the town engineer agreed.';

describe('figures looser than the law, through the API and on the report', () => {
  let gw: TestGateway;
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${gw.httpUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });

  beforeAll(async () => {
    gw = await startTestGateway({
      auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha256(TOKEN) }] },
      evidence: { checkpointIntervalSeconds: 1 },
    } as never);
  }, 60_000);
  afterAll(async () => {
    await gw?.cleanup();
  });

  it('refuses a looser figure without a reason, in words, and keeps the figure on record', async () => {
    const res = await call('PATCH', '/api/sites/maple-ridge', { storm: { thresholdIn: 0.6 } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { message: string };
    expect(body.message).toMatch(
      /Rain that calls for a storm inspection: 0\.6 in is more than the law allows/,
    );
    expect(body.message).toMatch(/0\.5 inch of precipitation or more/);
    const changes = (await (await call('GET', '/api/changes?siteId=maple-ridge')).json()) as Array<{
      entity: string;
      action: string;
    }>;
    expect(changes.filter((c) => c.action !== 'seed')).toEqual([]);
  });

  it('takes it with a reason, records it, and the report prints it for the verifier to check', async () => {
    const res = await call('PATCH', '/api/sites/maple-ridge', {
      storm: { thresholdIn: 0.6 },
      lawOverrides: { 'storm-threshold': REASON },
    });
    expect(res.status).toBe(200);
    const changes = (await (await call('GET', '/api/changes?siteId=maple-ridge')).json()) as Array<{
      entity: string;
      action: string;
      by: string;
      new: Record<string, unknown>;
    }>;
    const override = changes.find((c) => c.entity === 'override');
    expect(override).toMatchObject({
      action: 'set',
      by: 'Ada Admin',
      new: { value: 0.6, law: 0.5, reason: REASON },
    });

    const headers = { authorization: `Bearer ${TOKEN}` };
    const json = await checkpointedReport(
      gw.httpUrl,
      'siteId=maple-ridge&from=2020-01-01&format=json',
      headers,
    );
    const report = JSON.parse(json) as ReportJson;
    expect(report.changes?.filter((c) => c.entity === 'override')).toHaveLength(1);
    const key = ((await (await call('GET', '/api/evidence/key')).json()) as { verifierKey: string })
      .verifierKey;
    const verdict = await verifyReport(report, key);
    expect(verdict.problems).toEqual([]);
    expect(verdict.ok).toBe(true);

    const html = textOf(
      await checkpointedReport(gw.httpUrl, 'siteId=maple-ridge&from=2020-01-01&format=html', headers),
    );
    expect(html).toMatch(/Figures set looser than the law/);
    expect(html).toContain('Rain that calls for a storm inspection 0.6 in 0.5 in');
    expect(html).toContain(REASON);
    expect(html).toMatch(/Ada Admin, /);
  }, 60_000);
});
