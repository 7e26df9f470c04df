/**
 * Law 000 over a real gateway: the engineer's annual inspection of an alternative system with a
 * deficiency of each kind opens the 5- and 30-day remedies, counted from the submittal; an engineer's
 * letter extends one; a later inspection naming it remedied meets the other. A holding-tank site has the
 * annual inspection's remedies too. A septic tank with no pump-out on record is asked for its last one at
 * once, and a pump-out with its hauler and DEC permit answers it. The record keeps what was sent.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReportJson, verifyReport } from '../../gateway/src/verifier/verify.ts';
import { withinDays } from '../../shared/src/days.ts';
import { waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testHash } from '../helpers/gateway.ts';

const TOKEN = 'tok-wastewater-engineer';
const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const TZ = 'America/New_York';

interface Alert {
  id: string;
  rule: string;
  status: string;
  dueAt: string | null;
  raisedAt: string;
  message: string;
  resolution?: { cause?: Record<string, unknown> };
}
interface Inspection {
  id: string;
  recordedAt: string;
  deficiencies?: Array<{ id: string; kind: string; note: string }>;
  remedied?: string[];
  hauler?: { name: string; permit: string };
}

describe('law 000 remedies and pump-outs over the real gateway', () => {
  let gw: TestGateway;
  const get = async <T>(path: string) =>
    (await (
      await fetch(`${gw.httpUrl}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as T;
  const post = (path: string, body: unknown) =>
    fetch(`${gw.httpUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    gw = await startTestGateway({
      auth: { tokens: [{ name: 'Rita Engineer', role: 'engineer', tokenSha256: sha(TOKEN) }] },
      sites: [
        {
          id: 'oak-lane',
          kind: 'alternative-system',
          timezone: TZ,
          devices: [
            { id: 'panel-1', kind: 'septic-panel', liquidDepthIn: 60, passwordHash: testHash('pw-panel-1') },
          ],
        },
        {
          id: 'birch-vault',
          kind: 'holding-tank',
          timezone: TZ,
          devices: [
            { id: 'vault-1', kind: 'holding-tank', highLevelIn: 48, passwordHash: testHash('pw-vault-1') },
          ],
        },
        {
          id: 'pine-hill',
          kind: 'septic',
          timezone: TZ,
          devices: [{ id: 'tank-1', kind: 'septic-tank', passwordHash: testHash('pw-tank-1') }],
        },
      ],
    });
  });
  afterAll(() => gw?.cleanup());

  it('an annual inspection with a deficiency of each kind opens the 5- and 30-day remedies from its submittal', async () => {
    const at = new Date(Date.now() - 2 * 86_400_000).toISOString();
    const res = await post('/api/inspections', {
      siteId: 'oak-lane',
      at,
      inspector: 'Rita Engineer, P.E.',
      kind: 'annual',
      deficiencies: [
        { kind: 'equipment', note: 'Aerator not running' },
        { kind: 'field', note: 'Ponding over the north trench' },
      ],
    });
    expect(res.status).toBe(201);
    const { inspection } = (await res.json()) as { inspection: Inspection };
    expect(inspection.deficiencies?.map((d) => d.id)).toEqual([`${inspection.id}/1`, `${inspection.id}/2`]);
    const received = Date.parse(inspection.recordedAt);
    const alerts = await waitFor(
      async () => {
        const all = await get<Alert[]>('/api/alerts?siteId=oak-lane');
        const eq = all.find((a) => a.rule === 'equipment-deficiency');
        const field = all.find((a) => a.rule === 'field-deficiency');
        return eq && field ? { eq, field } : undefined;
      },
      10_000,
      'the two deficiency remedies',
    );
    // Counted from the submittal (when the gateway recorded it), not from the inspection's date.
    // The due time is the last instant of the last day.
    expect(Date.parse(alerts.eq.dueAt!)).toBe(withinDays(received, 5, TZ) - 1);
    expect(Date.parse(alerts.field.dueAt!)).toBe(withinDays(received, 30, TZ) - 1);
    expect(alerts.eq.message).toContain('Aerator not running');

    // An engineer's letter extends the equipment remedy.
    const newDueAt = new Date(Date.parse(alerts.eq.dueAt!) + 10 * 86_400_000).toISOString();
    const ext = await post(`/api/alerts/${alerts.eq.id}/extend`, {
      newDueAt,
      engineer: 'Rita Engineer, P.E.',
      letterRef: 'Letter of Dec 7',
    });
    expect(ext.status).toBeLessThan(300);
    const extended = (await get<Alert[]>('/api/alerts?siteId=oak-lane')).find((a) => a.id === alerts.eq.id)!;
    expect(Date.parse(extended.dueAt!)).toBe(Date.parse(newDueAt));

    // A later visit finds the field remedied.
    const later = await post('/api/inspections', {
      siteId: 'oak-lane',
      at: new Date().toISOString(),
      inspector: 'Rita Engineer, P.E.',
      kind: 'other',
      remedied: [`${inspection.id}/2`],
    });
    expect(later.status).toBe(201);
    const after = await get<Alert[]>('/api/alerts?siteId=oak-lane');
    expect(after.find((a) => a.id === alerts.field.id)?.status).toBe('resolved');
    expect(after.find((a) => a.id === alerts.eq.id)?.status).not.toBe('resolved');

    // A deficiency that is not the site's is refused, in words, and nothing is recorded.
    const bad = await post('/api/inspections', {
      siteId: 'oak-lane',
      at: new Date().toISOString(),
      inspector: 'Rita Engineer, P.E.',
      kind: 'other',
      remedied: ['insp-NOSUCH/1'],
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toContain('no deficiency');
  });

  it('refuses deficiencies on another kind of inspection or at a conventional septic site, with a reason', async () => {
    const wrongKind = await post('/api/inspections', {
      siteId: 'oak-lane',
      at: new Date().toISOString(),
      inspector: 'Rita Engineer, P.E.',
      kind: 'other',
      deficiencies: [{ kind: 'equipment', note: 'Pump' }],
    });
    expect(wrongKind.status).toBe(400);
    expect(((await wrongKind.json()) as { message: string }).message).toContain('annual inspection');
    const septic = await post('/api/inspections', {
      siteId: 'pine-hill',
      at: new Date().toISOString(),
      inspector: 'Rita Engineer, P.E.',
      kind: 'annual',
      deficiencies: [{ kind: 'equipment', note: 'Pump' }],
    });
    expect(septic.status).toBe(400);
  });

  it("a holding-tank site has the annual inspection's remedies", async () => {
    const res = await post('/api/inspections', {
      siteId: 'birch-vault',
      at: new Date().toISOString(),
      inspector: 'Rita Engineer, P.E.',
      kind: 'annual',
      deficiencies: [{ kind: 'equipment', note: 'High-water alarm does not sound' }],
    });
    expect(res.status).toBe(201);
    const all = await get<Alert[]>('/api/alerts?siteId=birch-vault');
    expect(all.find((a) => a.rule === 'equipment-deficiency')?.status).toBe('open');
  });

  it('a septic tank with no pump-out on record is asked at once; a pump-out with its hauler answers it', async () => {
    const asked = await waitFor(
      async () =>
        (await get<Alert[]>('/api/alerts?siteId=pine-hill')).find(
          (a) => a.rule === 'septic-pumping' && a.status !== 'resolved',
        ),
      15_000,
      'the question of the last pump-out',
    );
    expect(asked.message).toContain('When was tank');
    const pumped = new Date(Date.now() - 400 * 86_400_000).toISOString();
    const res = await post('/api/inspections', {
      siteId: 'pine-hill',
      at: pumped,
      inspector: 'Owner',
      kind: 'cleanout',
      hauler: { name: 'Valley Septic Service', permit: '3-1234-00567' },
    });
    expect(res.status).toBe(201);
    const { inspection } = (await res.json()) as { inspection: Inspection };
    expect(inspection.hauler).toEqual({ name: 'Valley Septic Service', permit: '3-1234-00567' });
    const after = (await get<Alert[]>('/api/alerts?siteId=pine-hill')).find((a) => a.id === asked.id);
    expect(after?.status).toBe('resolved');
    // What closed it: this pump-out, with its hauler and permit.
    expect(after?.resolution?.cause).toMatchObject({
      kind: 'inspection',
      inspectionId: inspection.id,
      hauler: { name: 'Valley Septic Service', permit: '3-1234-00567' },
    });
    // Kept as recorded: the list of inspections shows the hauler and the permit.
    const listed = await get<Inspection[]>('/api/inspections?siteId=pine-hill');
    expect(listed.find((i) => i.id === inspection.id)?.hauler?.permit).toBe('3-1234-00567');
    // The compliance report shows the pump-out with its hauler and permit, and verifies offline.
    const day = (t: number) => new Date(t).toLocaleDateString('en-CA', { timeZone: TZ });
    const q = `siteId=pine-hill&from=${day(Date.parse(pumped) - 86_400_000)}&to=${day(Date.now() + 86_400_000)}`;
    const html = await (
      await fetch(`${gw.httpUrl}/api/reports/compliance?${q}&format=html`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      })
    ).text();
    expect(html).toContain('Pumped by Valley Septic Service, NYS DEC permit 3-1234-00567.');
    expect(html).toContain('Pump-out');
    expect(html).toMatch(
      /by the pump-out by Valley Septic Service \(NYS DEC permit 3-1234-00567\) on .+ E[SD]T, recorded by Owner/,
    );
    const report = (await (
      await fetch(`${gw.httpUrl}/api/reports/compliance?${q}&format=json`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      })
    ).json()) as ReportJson;
    const key = ((await (await fetch(`${gw.httpUrl}/api/evidence/key`)).json()) as { verifierKey: string })
      .verifierKey;
    expect((await verifyReport(report, key)).problems).toEqual([]);
  });
});
