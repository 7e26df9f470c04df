/**
 * Who records the developer's side of an inspection, over HTTP against the real gateway (town law 001,
 * maintenance during construction, A(2): the developer's inspection, by the developer, a contractor, or an
 * inspector acting for them): a town account the site does not list among its inspectors acting for the
 * developer is refused the developer's side, in words, and nothing is stored; one the administrator adds
 * (by its account's e-mail or a configured token's name) records it and meets the duty; taken off the
 * list, it is refused again. Without asking, a town account records the town's own inspection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { findingsFor } from '../../helpers/inspections.ts';
import { type Browser, PASSWORD, peopleApi, sha } from '../../helpers/people.ts';

const PRACTICES = ['silt-n', 'inlet-1'];
const sentence = /^[A-Z][^_{}]*[.!?]$/;

describe("the town's accounts acting for the developer", () => {
  let gw: TestGateway;
  let api: ReturnType<typeof peopleApi>;
  const ian = { authorization: 'Bearer tok-insp' };
  let una: Browser;
  const at = () => new Date(Date.now() - 60_000).toISOString();

  beforeAll(async () => {
    gw = await startTestGateway({
      sites: [
        {
          id: 'elm-court',
          name: 'Elm Court',
          kind: 'construction',
          practices: PRACTICES.map((id) => ({ id, label: `Practice ${id}`, kind: 'silt-fence' })),
          // Listed as none: the helper's default (every configured token) is not wanted here.
          developerInspectors: [],
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
    await api.account('Una Inspector', 'una@town.example', 'inspector');
    una = await api.signIn('una@town.example', PASSWORD);
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  const post = (body: Record<string, unknown>, headers: Record<string, string>) =>
    api.call(
      'POST',
      '/api/inspections',
      {
        siteId: 'elm-court',
        at: at(),
        inspector: 'Hired Inspector',
        kind: 'routine',
        notes: 'Every practice inspected.',
        findings: findingsFor(PRACTICES),
        ...body,
      },
      headers,
    );
  const count = async () =>
    ((await api.call('GET', '/api/inspections?siteId=elm-court', undefined, api.admin)).body as unknown as [])
      .length;
  const routine = () =>
    waitFor(
      async () =>
        (
          (await api.call('GET', '/api/alerts?siteId=elm-court', undefined, api.admin))
            .body as unknown as Array<{
            id: string;
            rule: string;
            status: string;
          }>
        ).find((a) => a.rule === 'routine-inspection' && a.status !== 'resolved'),
      10_000,
      'an open routine inspection duty',
    );
  const setList = async (list: string[]) => {
    const r = await api.call('PATCH', '/api/sites/elm-court', { developerInspectors: list }, api.admin);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };

  it("refuses the developer's side to a town account not on the site's list, storing nothing", async () => {
    await routine();
    for (const who of [ian, una.write]) {
      const r = await post({ side: 'developer' }, who);
      expect(r.status).toBe(403);
      expect(r.body.error).toBe('FORBIDDEN');
      expect(r.body.field).toBe('side');
      expect(String(r.body.message)).toMatch(sentence);
      expect(String(r.body.message)).toContain(
        'not on record as an inspector acting for the developer at Elm Court',
      );
    }
    expect(await count()).toBe(0);
    // Not asking: the town's own inspection, which closes none of the developer's duties.
    const duty = await routine();
    const town = await post({}, ian);
    expect(town.status).toBe(201);
    expect((town.body.inspection as { side: string }).side).toBe('town');
    expect(town.body.closedAlertIds).toEqual([]);
    expect((await routine()).id).toBe(duty.id);
  });

  it('records the developer side for those the administrator lists, by token name or e-mail', async () => {
    // The e-mail in another case than the account's still names it.
    await setList(['Ian Inspector', 'Una@Town.Example']);
    const site = (await api.call('GET', '/api/sites/elm-court', undefined, api.admin)).body;
    expect(site.developerInspectors).toEqual(['Ian Inspector', 'Una@Town.Example']);
    const duty = await routine();
    const r = await post({ side: 'developer' }, ian);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect((r.body.inspection as { side: string }).side).toBe('developer');
    expect(r.body.closedAlertIds).toContain(duty.id);
    const next = await routine();
    const u = await post({ side: 'developer' }, una.write);
    expect(u.status, JSON.stringify(u.body)).toBe(201);
    expect(u.body.closedAlertIds).toContain(next.id);
  });

  it('refuses again once taken off the list; the change is a change record', async () => {
    await setList(['Una@Town.Example']);
    const before = await count();
    const r = await post({ side: 'developer' }, ian);
    expect(r.status).toBe(403);
    expect(await count()).toBe(before);
    const changes = (await api.call('GET', '/api/changes?siteId=elm-court', undefined, api.admin))
      .body as unknown as Array<{ entity: string; new?: { developerInspectors?: string[] } }>;
    expect(changes.some((c) => c.entity === 'site' && c.new?.developerInspectors?.length === 1)).toBe(true);
  });
});
