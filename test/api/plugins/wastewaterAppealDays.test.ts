/**
 * The days to appeal an order under law 000 are the town's choice, stated in the configuration: Section
 * 5.010 gives the appeal to the Local Board of Health but names no period. A town that allows 20 days
 * (`enforcement.wastewaterAppeal`) has its orders say so, with its reason, where the appeal sentence is;
 * the window counts 20 local days from service (an appeal at 23:45 on the 20th day accepted, one at 00:01
 * on the 21st refused); a notice under law 001, whose 15 days are the law's, is not changed.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withinDays } from '../../../shared/src/days.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { PASSWORD, peopleApi } from '../../helpers/people.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const at = (ms: number) => new Date(ms).toISOString();
const TZ = 'America/New_York';
// Served Tuesday October 20, 2026, 10:00 EDT; daylight saving time ends November 1.
const SERVED = Date.parse('2026-10-20T14:00:00Z');
const T0 = SERVED - 3_600_000;
const REASON =
  'the Local Board of Health meets once a month, and an owner should have a meeting to prepare for.';
// The 20th day after October 20 is November 9 (EST, UTC-5).
const END = withinDays(SERVED, 20, TZ);
const DAY20_2345 = Date.parse('2026-11-10T04:45:00Z');
const DAY21_0001 = Date.parse('2026-11-10T05:01:00Z');

describe("the days to appeal under law 000: the town's choice", () => {
  let gw: TestGateway;
  let api: ReturnType<typeof peopleApi>;
  let now = T0;
  const insp = { authorization: 'Bearer tok-insp' };
  let owner: Record<string, string>;
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-appeal-days-'));
  const party = { name: 'Olive Owner', address: '4 Oak Lane, Chester NY' };
  const config = {
    enforcement: { wastewaterAppeal: { days: 20, reason: REASON } },
    sites: [
      { id: 'oak-lane', kind: 'alternative-system' as const, timezone: TZ, landowner: party, devices: [] },
      { id: 'elm-st', kind: 'construction' as const, timezone: TZ, landowner: party, devices: [] },
    ],
    auth: {
      tokens: [
        { name: 'Ed Enforcer', role: 'inspector' as const, tokenSha256: sha('tok-insp') },
        { name: 'Ada Admin', role: 'admin' as const, tokenSha256: sha('tok-admin') },
      ],
    },
  };
  const startAt = async (t: number) => {
    await gw.cleanup();
    now = t;
    gw = await startTestGateway(config as never, { dataDir, now: () => now });
    api = peopleApi(gw.httpUrl, 'tok-admin');
    owner = (await api.signIn('olive@oak.example')).write;
  };
  beforeAll(async () => {
    gw = await startTestGateway(config as never, { dataDir, now: () => now });
    api = peopleApi(gw.httpUrl, 'tok-admin');
    const r = await api.call(
      'POST',
      '/api/users',
      {
        name: 'Olive Owner',
        email: 'olive@oak.example',
        role: 'owner',
        password: PASSWORD,
        sites: ['oak-lane'],
      },
      api.admin,
    );
    expect(r.status).toBe(201);
    await startAt(T0);
  });
  afterAll(async () => {
    await gw?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const ids: Record<string, string[]> = { 'oak-lane': [], 'elm-st': [] };
  /** The notice's document, its entities read as text. */
  const doc = async (id: string) =>
    (await (await fetch(`${gw.httpUrl}/api/violations/${id}/document`)).text()).replaceAll('&#39;', "'");

  it("an order says its 20 days are the town's choice, with the reason, before and after service", async () => {
    for (const siteId of ['oak-lane', 'oak-lane', 'elm-st']) {
      const r = await api.call(
        'POST',
        '/api/violations',
        {
          siteId,
          nature: 'The effluent pump has failed.',
          remedy: 'Replace it.',
          remedyDueAt: at(T0 + 30 * 86_400_000),
        },
        insp,
      );
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      ids[siteId]!.push(r.body.id as string);
    }
    const choice =
      "The 20 days to appeal are the town's choice, not the law's: Section 5.010 gives the appeal to the Local Board of Health but names no period; the town's reason: " +
      REASON;
    const unserved = await doc(ids['oak-lane']![0]!);
    expect(unserved).toContain(
      'within 20 days of service, by the end of the 20th day after the day of service.',
    );
    expect(unserved).toContain(choice);
    // Under law 001 the 15 days are the law's: nothing is said of a choice.
    const stormwater = await doc(ids['elm-st']![0]!);
    expect(stormwater).toContain('within 15 days of service');
    expect(stormwater).not.toContain("the town's choice");

    await startAt(SERVED + 3_600_000);
    for (const id of [...ids['oak-lane']!, ...ids['elm-st']!]) {
      const r = await api.call(
        'POST',
        `/api/violations/${id}/service`,
        { method: 'in-person', party: 'Olive Owner', servedAt: at(SERVED) },
        insp,
      );
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    const v = (await (await fetch(`${gw.httpUrl}/api/violations/${ids['oak-lane']![0]}`)).json()) as Record<
      string,
      unknown
    >;
    expect(v).toMatchObject({ appealDays: 20, appealBy: at(END) });
    const served = await doc(ids['oak-lane']![0]!);
    expect(served).toContain('within 20 days of service, by the end of November 9, 2026.');
    expect(served).toContain(choice);
    const s = (await (await fetch(`${gw.httpUrl}/api/violations/${ids['elm-st']![0]}`)).json()) as Record<
      string,
      unknown
    >;
    expect(s).toMatchObject({ appealDays: 15, appealBy: at(withinDays(SERVED, 15, TZ)) });
  });

  it('accepts an appeal at 23:45 on the 20th day and refuses one at 00:01 on the 21st', async () => {
    await startAt(DAY20_2345);
    const ok = await api.call(
      'POST',
      `/api/violations/${ids['oak-lane']![0]}/appeal`,
      { reason: 'Pump replaced.' },
      owner,
    );
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    await startAt(DAY21_0001);
    const late = await api.call(
      'POST',
      `/api/violations/${ids['oak-lane']![1]}/appeal`,
      { reason: 'Late.' },
      owner,
    );
    expect(late.status).toBe(409);
    expect(late.body.message).toBe(
      'The 20 days to appeal to the Local Board of Health ended at the end of November 9, 2026: the appeal cannot be recorded.',
    );
  });
});
