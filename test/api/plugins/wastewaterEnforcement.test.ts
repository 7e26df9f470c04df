/**
 * Orders under town law 000 (on-site wastewater) over HTTP against the real gateway: a notice on an
 * alternative system is accepted under its law (the order to cease use, the penalty of Section 6.010,
 * the appeal to the Local Board of Health), not served until a service is recorded; the appeal window
 * runs 15 local days from service, across the end of daylight saving time (an appeal at 23:45 local on
 * the 15th day accepted, one at 00:01 on the 16th refused, in local words); the Board's hearing recorded
 * with its date and outcome (a reversal closes the notice and its remedy duty); a stop-work order on a
 * system under construction (Section 5.030 A 7), served by mail. The days pass by restarting the gateway
 * on the same store with its clock moved.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { PASSWORD, peopleApi } from '../../helpers/people.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const at = (ms: number) => new Date(ms).toISOString();
// Served Tuesday October 20, 2026, 10:00 EDT; daylight saving time ends November 1.
const SERVED = Date.parse('2026-10-20T14:00:00Z');
const T0 = SERVED - 3_600_000;
// The 15th day after October 20 is November 4 (EST, UTC-5).
const DAY15_2345 = Date.parse('2026-11-05T04:45:00Z');
const DAY16_0001 = Date.parse('2026-11-05T05:01:00Z');

describe('orders under the wastewater law (000)', () => {
  let gw: TestGateway;
  let api: ReturnType<typeof peopleApi>;
  let now = T0;
  const insp = { authorization: 'Bearer tok-insp' };
  let owner: Record<string, string>;
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-wastewater-'));
  const config = {
    sites: [
      {
        id: 'oak-lane',
        name: 'Oak Lane',
        kind: 'alternative-system' as const,
        timezone: 'America/New_York',
        landowner: { name: 'Olive Owner', address: '4 Oak Lane, Chester NY' },
        address: '4 Oak Lane',
        devices: [],
      },
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
    gw = await startTestGateway(config, { dataDir, now: () => now });
    api = peopleApi(gw.httpUrl, 'tok-admin');
    owner = (await api.signIn('olive@oak.example')).write;
  };
  beforeAll(async () => {
    gw = await startTestGateway(config, { dataDir, now: () => now });
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

  const call = (method: string, path: string, body: unknown, headers: Record<string, string>) =>
    api.call(method, path, body, headers);
  const order = (nature: string, orderKind?: string) =>
    call(
      'POST',
      '/api/violations',
      {
        siteId: 'oak-lane',
        nature,
        remedy: 'Replace the failed effluent pump and restore the alarm.',
        remedyDueAt: at(T0 + 30 * 86_400_000),
        ...(orderKind ? { orderKind } : {}),
      },
      insp,
    );
  const serve = (id: string, t: number) =>
    call(
      'POST',
      `/api/violations/${id}/service`,
      { method: 'in-person', party: 'Olive Owner', servedAt: at(t) },
      insp,
    );
  const remedyAlert = async (id: string) => {
    const list = (await (await fetch(`${gw.httpUrl}/api/alerts?siteId=oak-lane`)).json()) as Array<
      Record<string, unknown>
    >;
    return list.find(
      (a) => a.rule === 'violation-remedy' && (a.evidence as { violationId?: string }).violationId === id,
    );
  };

  const ids: string[] = [];
  it('accepts a notice on an alternative system under law 000, not yet served', async () => {
    const wrong = await order('Pump failed.', 'demolish');
    expect([wrong.status, wrong.body.field]).toEqual([400, 'orderKind']);
    expect(wrong.body.message).toBe(
      'Under the on-site wastewater treatment law (law 000) the officer may order: order to correct or order to cease use.',
    );
    const r = await order('The effluent pump has failed; the high-water alarm sounds.', 'cease-use');
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ law: '000', status: 'issued' });
    expect(r.body.appealBy).toBeUndefined();
    ids.push(r.body.id as string);
    const v = (await (await fetch(`${gw.httpUrl}/api/violations/${ids[0]}`)).json()) as Record<
      string,
      unknown
    >;
    expect(v).toMatchObject({ law: '000', orderKind: 'cease-use', landowner: { name: 'Olive Owner' } });
    expect(v.penalties).toContain('civil penalty of not more than ($1,000)');
    expect(v.penalties).toContain('separate offense for each day');
    expect(v.servedAt).toBeUndefined();
    expect(await remedyAlert(ids[0]!)).toMatchObject({ status: 'open' });
    for (const n of ['Alarm float disconnected.', 'Effluent surfacing over the field.']) {
      const x = await order(n);
      expect(x.status).toBe(201);
      ids.push(x.body.id as string);
    }
    const doc = await fetch(`${gw.httpUrl}/api/violations/${ids[0]}/document`);
    const html = await doc.text();
    expect(html).toContain('Order of the Enforcement Officer: Order to cease use');
    expect(html).toContain('Appeal to the Local Board of Health');
    expect(html).toContain('Not yet served; the appeal window has not started.');
    expect(html).toContain('refer the matter to the Local Board of Health');
  });

  it('records the service; the window is 15 local days from it, across the end of daylight time', async () => {
    await startAt(SERVED + 3_600_000);
    for (const id of ids) {
      const r = await serve(id, SERVED);
      expect(r.status).toBe(200);
      // The end of November 4 in New York (EST): 05:00 UTC on November 5.
      expect(r.body).toMatchObject({ servedAt: at(SERVED), appealBy: '2026-11-05T05:00:00.000Z' });
    }
    const doc = await (await fetch(`${gw.httpUrl}/api/violations/${ids[0]}/document`)).text();
    expect(doc).toContain('within 15 days of service, by the end of November 4, 2026.');
  });

  it('accepts an appeal at 23:45 on the 15th day and refuses one at 00:01 on the 16th', async () => {
    await startAt(DAY15_2345);
    const ok = await call(
      'POST',
      `/api/violations/${ids[0]}/appeal`,
      { reason: 'The pump was replaced.' },
      owner,
    );
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('appealed');
    const ok2 = await call('POST', `/api/violations/${ids[2]}/appeal`, { reason: 'Not surfacing.' }, owner);
    expect(ok2.status).toBe(200);
    await startAt(DAY16_0001);
    const late = await call('POST', `/api/violations/${ids[1]}/appeal`, { reason: 'Too late.' }, owner);
    expect([late.status, late.body.error]).toEqual([409, 'APPEAL_CLOSED']);
    expect(late.body.message).toBe(
      'The 15 days to appeal to the Local Board of Health ended at the end of November 4, 2026: the appeal cannot be recorded.',
    );
  });

  it("records the Local Board of Health's hearing: its date and outcome; a reversal closes the notice", async () => {
    const notAppealed = await call(
      'POST',
      `/api/violations/${ids[1]}/hearing`,
      { heldOn: '2026-11-04', outcome: 'upheld', note: 'Upheld.' },
      insp,
    );
    expect([notAppealed.status, notAppealed.body.error]).toEqual([409, 'NOT_APPEALED']);
    const future = await call(
      'POST',
      `/api/violations/${ids[0]}/hearing`,
      { heldOn: '2026-12-01', outcome: 'upheld', note: 'Upheld.' },
      insp,
    );
    expect([future.status, future.body.field]).toEqual([400, 'heldOn']);
    // Appealed at 23:45 on November 4 in New York (04:45 UTC on the 5th): the day before is refused.
    const beforeAppeal = await call(
      'POST',
      `/api/violations/${ids[0]}/hearing`,
      { heldOn: '2026-11-03', outcome: 'upheld', note: 'Upheld.' },
      insp,
    );
    expect([beforeAppeal.status, beforeAppeal.body.field]).toEqual([400, 'heldOn']);
    expect(beforeAppeal.body.message).toBe(
      'The hearing cannot be before the appeal was filed (November 4, 2026).',
    );
    const byOwner = await call(
      'POST',
      `/api/violations/${ids[0]}/hearing`,
      { heldOn: '2026-11-04', outcome: 'upheld', note: 'x' },
      owner,
    );
    expect(byOwner.status).toBe(403);
    const modified = await call(
      'POST',
      `/api/violations/${ids[0]}/hearing`,
      { heldOn: '2026-11-04', outcome: 'modified', note: 'The Board allows 60 days for the pump.' },
      insp,
    );
    expect(modified.status).toBe(200);
    expect(modified.body.status).toBe('appealed');
    expect((modified.body.events as unknown[]).at(-1)).toMatchObject({
      kind: 'heard',
      heldOn: '2026-11-04',
      outcome: 'modified',
    });
    const again = await call(
      'POST',
      `/api/violations/${ids[0]}/hearing`,
      { heldOn: '2026-11-04', outcome: 'reversed', note: 'Again.' },
      insp,
    );
    expect([again.status, again.body.error]).toEqual([409, 'ALREADY_HEARD']);
    const reversed = await call(
      'POST',
      `/api/violations/${ids[2]}/hearing`,
      { heldOn: '2026-11-04', outcome: 'reversed', note: 'The Board found no surfacing.' },
      insp,
    );
    expect(reversed.body.status).toBe('reversed');
    expect(await remedyAlert(ids[2]!)).toMatchObject({ status: 'resolved' });
    const after = await call('POST', `/api/violations/${ids[2]}/corrected`, { note: 'x' }, owner);
    expect([after.status, after.body.error]).toEqual([409, 'VIOLATION_CLOSED']);
    const list = (await (await fetch(`${gw.httpUrl}/api/violations?status=reversed`)).json()) as Array<{
      id: string;
    }>;
    expect(list.map((v) => v.id)).toEqual([ids[2]]);
  });

  it('a stop-work order on a system under construction, under 5.030 A 7, served by mail', async () => {
    const o = await call(
      'POST',
      '/api/sites/oak-lane/stop-work',
      { reason: 'Absorption field installed without a permit.' },
      insp,
    );
    expect(o.status).toBe(201);
    expect(o.body).toMatchObject({ law: '000', services: [] });
    expect(o.body.servedAt).toBeUndefined();
    const s = await call(
      'POST',
      `/api/stop-work/${o.body.id as string}/service`,
      { method: 'mail', party: 'Olive Owner', servedAt: at(now) },
      insp,
    );
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ servedAt: at(now), services: [{ method: 'mail', party: 'Olive Owner' }] });
  });
});
