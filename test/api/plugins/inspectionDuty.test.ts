/**
 * What an inspection is, over HTTP against the real gateway (town law 001, maintenance during
 * construction, A(2): "all erosion and sediment control practices"): an inspection with nothing in it is
 * refused before anything is stored; at a site with five practices, one covering one of them is recorded
 * as partial ("1 of 5 practices") and leaves the routine duty open; the town's own complete inspection is
 * recorded as the town's and closes nothing of the developer's; a contractor's account records only the
 * developer's side; a complete inspection of the developer's side closes the duty.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveOnReinspection } from '../../helpers/approval.ts';
import { waitFor } from '../../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { completeInspection, findingsFor } from '../../helpers/inspections.ts';
import { PASSWORD, peopleApi } from '../../helpers/people.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const PRACTICES = ['silt-n', 'silt-s', 'inlet-1', 'entrance', 'basin'];
const sentence = /^[A-Z][^_{}]*[.!?]$/;

interface Alert {
  id: string;
  rule: string;
  status: string;
}

describe('what an inspection is', () => {
  let gw: TestGateway;
  let api: ReturnType<typeof peopleApi>;
  const insp = { authorization: 'Bearer tok-insp' };
  let contractor: Record<string, string>;
  const at = () => new Date(Date.now() - 60_000).toISOString();

  beforeAll(async () => {
    gw = await startTestGateway({
      sites: [
        {
          id: 'elm-court',
          name: 'Elm Court',
          kind: 'construction',
          practices: PRACTICES.map((id) => ({ id, label: `Practice ${id}`, kind: 'silt-fence' })),
          landowner: { name: 'Pat Landowner', address: '1 Elm St, Chester NY' },
          developer: { name: 'Ridge Builders LLC', address: '9 Main St, Chester NY' },
          address: 'Lot 3, Elm Court',
          devices: [],
        },
      ],
      auth: {
        tokens: [
          { name: 'Ada Admin', role: 'admin', tokenSha256: sha('tok-admin') },
          { name: 'Ian Inspector', role: 'inspector', tokenSha256: sha('tok-insp') },
        ],
      },
    });
    api = peopleApi(gw.httpUrl, 'tok-admin');
    const made = await api.call(
      'POST',
      '/api/users',
      {
        name: 'Cal Contractor',
        email: 'cal@build.example',
        role: 'contractor',
        password: PASSWORD,
        sites: ['elm-court'],
      },
      api.admin,
    );
    expect(made.status).toBe(201);
    contractor = (await api.signIn('cal@build.example')).write;
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  const post = (body: Record<string, unknown>, headers: Record<string, string> = insp) =>
    api.call(
      'POST',
      '/api/inspections',
      { siteId: 'elm-court', at: at(), inspector: 'Ian Inspector', kind: 'routine', ...body },
      headers,
    );
  const inspections = async () =>
    (await api.call('GET', '/api/inspections?siteId=elm-court', undefined, insp))
      .body as unknown as unknown[];
  const routine = () =>
    waitFor(
      async () => {
        const all = (await api.call('GET', '/api/alerts?siteId=elm-court', undefined, insp))
          .body as unknown as Alert[];
        return all.find((a) => a.rule === 'routine-inspection' && a.status !== 'resolved');
      },
      10_000,
      'an open routine inspection duty',
    );

  it('refuses an inspection with nothing in it, and one with notes but no finding, storing nothing', async () => {
    await routine();
    for (const body of [{}, { notes: '   ' }, { notes: 'Looked around.' }, { findings: [] }]) {
      const r = await post(body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.error).toBe('EMPTY_INSPECTION');
      expect(String(r.body.message)).toMatch(sentence);
      expect(String(r.body.message)).toMatch(/5 erosion and sediment control practices/);
    }
    expect(await inspections()).toEqual([]);
  });

  it('records one practice of five as partial: the routine duty stays open', async () => {
    const duty = await routine();
    const r = await post({ side: 'developer', findings: findingsFor(PRACTICES.slice(0, 1)) });
    expect(r.status).toBe(201);
    const i = r.body.inspection as { coverage: unknown; side: string };
    expect(i.coverage).toEqual({ covered: 1, of: 5 });
    expect(i.side).toBe('developer');
    expect(r.body.closedAlertIds).toEqual([]);
    expect((await routine()).id).toBe(duty.id);
  });

  it("records the town's complete inspection as the town's, closing nothing of the developer's", async () => {
    const duty = await routine();
    const r = await post({ findings: findingsFor(PRACTICES), notes: 'Town visit.' });
    expect(r.status).toBe(201);
    expect((r.body.inspection as { side: string }).side).toBe('town');
    expect(r.body.closedAlertIds).toEqual([]);
    expect((await routine()).id).toBe(duty.id);
  });

  it("refuses a contractor's account a town inspection, in words", async () => {
    const r = await post({ side: 'town', findings: findingsFor(PRACTICES) }, contractor);
    expect(r.status).toBe(403);
    expect(String(r.body.message)).toMatch(/only the town's staff record a town inspection/);
  });

  it("a complete inspection of the developer's side (a contractor's) closes the duty", async () => {
    const duty = await routine();
    const body = completeInspection({ kind: 'routine' as const }, PRACTICES);
    const { side: _side, ...noSide } = body;
    const r = await post(noSide, contractor);
    expect(r.status).toBe(201);
    const i = r.body.inspection as { coverage: unknown; side: string };
    expect(i).toMatchObject({ side: 'developer', coverage: { covered: 5, of: 5 } });
    expect(r.body.closedAlertIds).toContain(duty.id);
    expect(await inspections()).toHaveLength(3);
  });

  it('a violation finding halts work except stabilization until its correction is approved', async () => {
    const site = async () =>
      (await api.call('GET', '/api/sites/elm-court', undefined, insp)).body as { workHalted: unknown };
    expect((await site()).workHalted).toBeNull();
    const findings = [
      { practice: 'silt-n', status: 'violation', note: 'Fence down; sediment in the ditch.', photos: [] },
      ...findingsFor(PRACTICES.slice(1)),
    ];
    const r = await post({ findings }, contractor);
    expect(r.status).toBe(201);
    const inspection = r.body.inspection as { id: string; at: string };
    const halted = { since: inspection.at, practices: ['Practice silt-n'], inspectionIds: [inspection.id] };
    expect((await site()).workHalted).toEqual(halted);
    const list = (await api.call('GET', '/api/sites', undefined, insp)).body as unknown as Array<{
      id: string;
      workHalted: unknown;
    }>;
    expect(list.find((x) => x.id === 'elm-court')?.workHalted).toEqual(halted);
    // A notice of violation citing the inspection, corrected by the contractor: halted until approved.
    const notice = await api.call(
      'POST',
      '/api/violations',
      {
        siteId: 'elm-court',
        nature: 'Silt fence down; sediment leaves the site.',
        remedy: 'Re-install the silt fence.',
        remedyDueAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
        inspectionId: inspection.id,
      },
      insp,
    );
    expect(notice.status, JSON.stringify(notice.body)).toBe(201);
    const id = String(notice.body.id);
    const corrected = await api.call(
      'POST',
      `/api/violations/${id}/corrected`,
      { note: 'Fence re-set.' },
      contractor,
    );
    expect(corrected.status, JSON.stringify(corrected.body)).toBe(200);
    expect((await site()).workHalted).toEqual(halted);
    const approved = await approveOnReinspection(gw.httpUrl, id, insp, {
      siteId: 'elm-court',
      at: new Date().toISOString(),
      note: 'Seen.',
    });
    expect(approved.status).toBe(200);
    expect((await site()).workHalted).toBeNull();
  });
});
