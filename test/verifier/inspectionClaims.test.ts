/**
 * What an inspection claims, proven by the verifier from the log (town law 001, maintenance during
 * construction, A(2)): a real gateway's report of a storm at a site with three practices, inspected by the
 * town, then partly, then fully by the developer's side, verifies; a copy that shows the town's inspection
 * as the developer's, a partial one as complete, or a storm met by either of them is refused, each in a
 * sentence with its field. An entry logged before sides and coverage were kept is given, not provable: a
 * note, not a problem; an entry whose coverage its findings do not bear out is a problem.
 */
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkClaims, checkMet } from '../../gateway/src/verifier/inspected.ts';
import type { ReportJson } from '../../gateway/src/verifier/reportJson.ts';
import { readReport, verifyReport } from '../../gateway/src/verifier/verify.ts';
import { waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testHash } from '../helpers/gateway.ts';
import { findingsFor } from '../helpers/inspections.ts';
import { checkpointedReport, sha256 } from '../helpers/reports.ts';

const TOKEN = 'claims-admin-token';
const M = 60_000;
const PRACTICES = ['silt-n', 'inlet-1', 'basin'];
const W = { tz: 'America/New_York', site: 'elm-court' };

describe('the verifier: whose inspection met a duty, and what it covered (real gateway)', () => {
  let gw: TestGateway;
  let report: ReportJson;
  let key: string;
  const ids: Record<'town' | 'partial' | 'full', string> = { town: '', partial: '', full: '' };

  const call = async <T>(path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${gw.httpUrl}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };

  beforeAll(async () => {
    const now = Date.now();
    gw = await startTestGateway({
      sites: [
        {
          id: 'elm-court',
          kind: 'construction',
          practices: PRACTICES.map((id) => ({ id, label: `Practice ${id}`, kind: 'silt-fence' })),
          devices: [
            { id: 'rg-1', kind: 'rain-gauge', inchesPerTip: 0.01, passwordHash: testHash('pw-rg-1') },
          ],
        },
      ],
      auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha256(TOKEN) }] },
      evidence: { checkpointIntervalSeconds: 1 },
    } as never);
    const rg = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'elm-court/rg-1',
      username: 'elm-court/rg-1',
      password: 'pw-rg-1',
    });
    // 0.60 in over a quarter of an hour, ten hours ago: a storm that has ended.
    for (let i = 0; i < 16; i++)
      await rg.publishAsync(
        'sites/elm-court/devices/rg-1/telemetry',
        JSON.stringify({ ts: now - 10 * 60 * M + i * M, rainTips: i * 4 }),
        { qos: 1 },
      );
    // A live reading with no new tip: the gauge is dry since, so the storm has ended.
    await rg.publishAsync(
      'sites/elm-court/devices/rg-1/telemetry',
      JSON.stringify({ ts: now - M, rainTips: 60 }),
      { qos: 1 },
    );
    await rg.endAsync();
    await waitFor(
      async () =>
        (await call<Array<{ qualified: boolean }>>('/api/storms?siteId=elm-court')).some(
          (s) => s.qualified,
        ) || undefined,
      20_000,
      'the storm',
    );
    const inspect = async (hoursAgo: number, body: Record<string, unknown>) =>
      (
        await call<{ inspection: { id: string } }>('/api/inspections', {
          siteId: 'elm-court',
          at: new Date(now - hoursAgo * 60 * M).toISOString(),
          inspector: 'Ian Inspector',
          kind: 'storm',
          notes: 'After the storm.',
          ...body,
        })
      ).inspection.id;
    ids.town = await inspect(4, { findings: findingsFor(PRACTICES) });
    ids.partial = await inspect(3, { side: 'developer', findings: findingsFor(PRACTICES.slice(0, 1)) });
    ids.full = await inspect(2, { side: 'developer', findings: findingsFor(PRACTICES) });
    key = (await call<{ verifierKey: string }>('/api/evidence/key')).verifierKey;
    const text = await checkpointedReport(gw.httpUrl, 'siteId=elm-court&from=2020-01-01&format=json', {
      authorization: `Bearer ${TOKEN}`,
    });
    report = readReport(JSON.parse(text));
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  const at = (r: ReportJson, id: string) => r.inspections.findIndex((x) => x.id === id);

  it("verifies: the storm met by the developer's complete inspection after it, the others shown as they are", async () => {
    const v = await verifyReport(report, key);
    expect(v.problems).toEqual([]);
    expect(v.notes).toEqual([]);
    expect(report.storms[0]!.inspection).toMatchObject({ status: 'on-time', inspectionId: ids.full });
    expect(report.inspections[at(report, ids.town)]).toMatchObject({ side: 'town' });
    expect(report.inspections[at(report, ids.partial)]).toMatchObject({ coverage: { covered: 1, of: 3 } });
  });

  it("catches the town's inspection shown as the developer's, and a partial one shown as complete", async () => {
    const copy = structuredClone(report);
    const t = at(copy, ids.town);
    const p = at(copy, ids.partial);
    (copy.inspections[t] as { side?: string }).side = 'developer';
    (copy.inspections[p] as { coverage?: unknown }).coverage = { covered: 3, of: 3 };
    const v = await verifyReport(copy, key);
    expect(v.ok).toBe(false);
    expect(v.problems.map((x) => x.field)).toEqual([`inspections[${t}].side`, `inspections[${p}].coverage`]);
    expect(v.problems[0]!.message).toMatch(
      /: the report shows it as the developer's, its logged record as the town's own inspection$/,
    );
    expect(v.problems[1]!.message).toMatch(
      /: the report shows it covered 3 of 3 practices, its logged record 1 of 3 practices$/,
    );
  });

  it('catches a storm shown as met by the town or by a partial inspection', async () => {
    for (const [which, why] of [
      ['town', "it was the town's own inspection, not the developer's"],
      ['partial', 'it covered 1 of 3 practices of the site'],
    ] as const) {
      const copy = structuredClone(report);
      copy.storms[0]!.inspection.inspectionId = ids[which];
      const v = await verifyReport(copy, key);
      expect(v.ok, which).toBe(false);
      expect(v.problems.map((x) => x.field)).toEqual(['storms[0].inspection']);
      expect(v.problems[0]!.message).toContain(`the report shows it met by the inspection of `);
      expect(v.problems[0]!.message).toMatch(new RegExp(`, but ${why.replace(/[()]/g, '\\$&')}$`));
    }
  });
});

describe('the verifier: claims of inspections logged before sides, and coverage the findings do not bear out', () => {
  const T = Date.parse('2026-11-20T15:00:00Z');
  const body = (extra: Record<string, unknown>) => ({
    type: 'inspection',
    id: 'insp-1',
    siteId: 'elm-court',
    at: T + 60 * M,
    kind: 'storm',
    findings: findingsFor(PRACTICES),
    ...extra,
  });
  const report = (inspectionId: string) =>
    ({
      storms: [
        {
          id: 's-1',
          deviceId: 'rg-1',
          start: new Date(T - 60 * M).toISOString(),
          end: new Date(T).toISOString(),
          tips: 60,
          inches: 0.6,
          qualified: true,
          inspection: { status: 'on-time', inspectionId },
        },
      ],
    }) as unknown as ReportJson;
  const ctx = (b: Record<string, unknown>) => ({
    all: [{ index: 7, pos: 0, kind: 'inspection', body: b }],
    cited: () => undefined,
    w: W,
  });

  it('an entry without a side meets as given, not provable: a note, not a problem', () => {
    const met = checkMet(report('insp-1'), [], ctx(body({})));
    expect(met.problems).toEqual([]);
    expect(met.notes).toHaveLength(1);
    expect(met.notes[0]).toMatch(/is given, not provable$/);
  });

  it('an inspection the report does not carry: a note; one made before the last tip: a problem', () => {
    expect(checkMet(report('insp-9'), [], ctx(body({}))).notes[0]).toMatch(/not in the report/);
    const early = checkMet(report('insp-1'), [], ctx(body({ side: 'developer', at: T - 30 * M })));
    expect(early.problems).toHaveLength(1);
    expect(early.problems[0]!.message).toMatch(/before the storm's last tip at /);
  });

  it("a routine duty resolved by the town's inspection is a problem at its resolution", () => {
    const resolved = {
      type: 'alert-history',
      alertId: 'a-1',
      action: 'resolved',
      detail: { evidence: { inspectionId: 'insp-1' } },
    };
    const duty = {
      d: { alertId: 'a-1', rule: 'routine', message: 'Routine inspection due', historyIndexes: [3] },
      at: 'routine[0]',
    };
    const c = {
      ...ctx(body({ side: 'town', practices: 3, covered: 3 })),
      cited: (i: number | undefined) =>
        i === 3 ? { index: 3, pos: 1, kind: 'alert-history', body: resolved } : undefined,
    };
    const met = checkMet({ storms: [] } as unknown as ReportJson, [duty], c);
    expect(met.problems.map((p) => p.field)).toEqual(['routine[0].resolvedAt']);
    expect(met.problems[0]!.message).toMatch(
      /^The duty "Routine inspection due": .*, but it was the town's own inspection, not the developer's$/,
    );
  });

  it('a logged coverage its findings do not bear out is a problem; one they do is none', () => {
    const where = { base: 'inspections[0]', where: 'The inspection' };
    const shown = { id: 'insp-1', at: '', kind: 'storm', side: 'developer', coverage: { covered: 3, of: 3 } };
    const e = (b: Record<string, unknown>) => ({ index: 7, pos: 0, kind: 'inspection', body: b });
    expect(checkClaims(shown, e(body({ side: 'developer', practices: 3, covered: 3 })), where)).toEqual([]);
    const short = body({
      side: 'developer',
      practices: 3,
      covered: 3,
      findings: findingsFor(['silt-n', 'basin']),
    });
    const ps = checkClaims(shown, e(short), where);
    expect(ps.map((p) => p.field)).toEqual(['inspections[0].coverage']);
    expect(ps[0]!.message).toBe(
      'The inspection: its logged record counts 3 of 3 practices covered, but its findings name 2',
    );
  });
});
