/**
 * The developer's records of a construction site over HTTP against the real gateway (town law 001): a
 * contractor's certification with the law's statement (another statement, a missing particular, the
 * wrong role or site refused, in words), the duty "no certification on file" opened on an active site and
 * met by the record, the SWPPP on site, an expected milestone passed with no notice flagged and met by a
 * late notice, and the officer's final acceptance opening the one-year inspection. Each record is an entry
 * of the evidence log. The days pass by restarting the gateway on the same store with its clock moved.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CERTIFICATION_STATEMENT } from '../../../shared/src/api/siteRecords.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { PASSWORD, peopleApi } from '../../helpers/people.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const DAY = 86_400_000;
const T0 = Date.parse('2026-06-10T14:00:00Z');
const at = (ms: number) => new Date(ms).toISOString();

describe("the developer's records", () => {
  let gw: TestGateway;
  let api: ReturnType<typeof peopleApi>;
  let now = T0;
  const bearer = (t: string): Record<string, string> => ({ authorization: `Bearer ${t}` });
  const insp = bearer('tok-insp');
  let owner: Record<string, string>;

  const dataDir = mkdtempSync(join(tmpdir(), 'gw-records-'));
  const config = {
    sites: [
      {
        id: 'maple-ridge',
        name: 'Maple Ridge',
        kind: 'construction' as const,
        timezone: 'America/New_York',
        devices: [],
      },
      { id: 'oak-lane', name: 'Oak Lane', kind: 'alternative-system' as const, devices: [] },
    ],
    auth: {
      tokens: [
        { name: 'Ada Admin', role: 'admin' as const, tokenSha256: sha('tok-admin') },
        { name: 'Val Viewer', role: 'viewer' as const, tokenSha256: sha('tok-viewer') },
        { name: 'Ian Inspector', role: 'inspector' as const, tokenSha256: sha('tok-insp') },
      ],
    },
  };
  const startAt = async (t: number) => {
    await gw.cleanup();
    now = t;
    gw = await startTestGateway(config, { dataDir, now: () => now });
    api = peopleApi(gw.httpUrl, 'tok-admin');
    owner = (await api.signIn('dana@maple.example')).write;
  };

  beforeAll(async () => {
    gw = await startTestGateway(config, { dataDir, now: () => now });
    api = peopleApi(gw.httpUrl, 'tok-admin');
    const r = await api.call(
      'POST',
      '/api/users',
      {
        name: 'Dana Developer',
        email: 'dana@maple.example',
        role: 'owner',
        password: PASSWORD,
        sites: ['maple-ridge'],
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

  const post = (body: Record<string, unknown>, headers: Record<string, string>, site = 'maple-ridge') =>
    api.call('POST', `/api/sites/${site}/records`, body, headers);
  const alerts = async (rule: string) => {
    const r = await fetch(`${gw.httpUrl}/api/alerts?siteId=maple-ridge&rule=${rule}`);
    const list = (await r.json()) as Array<Record<string, unknown>>;
    return list.filter((a) => a.rule === rule);
  };
  /** Waits for the start's tick to have run (it runs at once, after the start returns). */
  const settle = async (rule: string, n: number) => {
    for (let i = 0; i < 100; i++) {
      if ((await alerts(rule)).length >= n) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const cert = {
    kind: 'certification',
    statement: CERTIFICATION_STATEMENT,
    name: 'Jane Roe',
    title: 'Site superintendent',
    firm: 'Acme Excavating Inc.',
    firmAddress: '12 Quarry Rd, Chester NY',
    telephone: '845-555-0142',
    siteAddress: 'Lot 12, Maple Ridge Road',
    signedAt: at(T0 - 3_600_000),
  };

  it('an active construction site with no certification on file has the duty, overdue at once', async () => {
    await settle('contractor-certification', 1);
    const [duty] = await alerts('contractor-certification');
    expect(duty).toMatchObject({ status: 'open' });
    expect(String(duty!.message)).toContain("No contractor's certification on file at Maple Ridge");
    expect((await alerts('swppp-on-site')).map((a) => a.status)).toEqual(['open']);
  });

  it('refuses what the law does not allow, in words', async () => {
    const other = await post({ ...cert, statement: 'I will try to comply.' }, owner);
    expect(other.status).toBe(400);
    const missing = await post({ ...cert, telephone: undefined }, owner);
    expect(missing.status).toBe(400);
    expect(String(missing.body.message)).toContain('telephone');
    const viewer = await post(cert, bearer('tok-viewer'));
    expect(viewer.status).toBe(403);
    const septic = await post(cert, insp, 'oak-lane');
    expect([septic.status, septic.body.error]).toEqual([409, 'NOT_CONSTRUCTION']);
    const future = await post({ ...cert, signedAt: at(T0 + DAY) }, owner);
    expect(future.status).toBe(400);
    expect(String(future.body.message)).toContain('cannot be dated in the future');
    const byOwner = await post({ kind: 'final-acceptance', acceptedAt: at(T0) }, owner);
    expect(byOwner.status).toBe(403);
    const noAcceptance = await post(
      { kind: 'one-year-inspection', inspectedAt: at(T0), acceptable: true },
      insp,
    );
    expect([noAcceptance.status, noAcceptance.body.error]).toEqual([409, 'RECORD_OUT_OF_ORDER']);
  });

  it("records the owner's certification with the law's words, logged, and meets the duty", async () => {
    const r = await post({ ...cert, signedAt: '2026-06-10T09:00:00-04:00' }, owner);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      kind: 'certification',
      siteId: 'maple-ridge',
      siteSeq: 1,
      at: '2026-06-10T13:00:00.000Z',
      recordedAt: at(T0),
      recordedBy: 'Dana Developer',
      summary: 'Jane Roe, Site superintendent, Acme Excavating Inc. (12 Quarry Rd, Chester NY; 845-555-0142)',
    });
    expect((r.body.body as Record<string, unknown>).statement).toBe(CERTIFICATION_STATEMENT);
    expect(typeof r.body.logIndex).toBe('number');
    const [duty] = await alerts('contractor-certification');
    expect(duty).toMatchObject({ status: 'resolved' });
    const swppp = await post(
      { kind: 'swppp', since: at(T0 - DAY), keptBy: 'Jane Roe', where: 'the site trailer, plan rack' },
      owner,
    );
    expect(swppp.status).toBe(201);
    expect((await alerts('swppp-on-site')).map((a) => a.status)).toEqual(['resolved']);
    const list = await api.call('GET', '/api/sites/maple-ridge/records', undefined, owner);
    expect((list.body as unknown as Array<Record<string, unknown>>).map((x) => [x.kind, x.siteSeq])).toEqual([
      ['certification', 1],
      ['swppp', 2],
    ]);
  });

  it('a milestone expected and passed with no 48-hour notice is flagged; a late notice meets it', async () => {
    const expected = T0 + 2 * DAY;
    const r = await post(
      { kind: 'expected-milestone', milestone: 'rough-grading-complete', expectedAt: at(expected) },
      owner,
    );
    expect(r.status).toBe(201);
    expect(await alerts('milestone-notice')).toEqual([]);
    await startAt(expected + 3_600_000);
    await settle('milestone-notice', 1);
    const [flag] = await alerts('milestone-notice');
    expect(flag).toMatchObject({ status: 'open', overdue: true, dueAt: at(expected - 2 * DAY) });
    const notice = await api.call(
      'POST',
      '/api/notices',
      { siteId: 'maple-ridge', milestone: 'rough-grading-complete', at: at(expected) },
      owner,
    );
    expect(notice.status).toBe(201);
    expect((await alerts('milestone-notice'))[0]).toMatchObject({ status: 'resolved' });
  });

  it("the officer's final acceptance opens the one-year inspection, due a year later; its record meets it", async () => {
    const accepted = now - 3_600_000; // 2026-06-12 11:00 EDT
    const r = await post(
      { kind: 'final-acceptance', acceptedAt: at(accepted), note: 'As-built plans approved.' },
      insp,
    );
    expect(r.status).toBe(201);
    const [duty] = await alerts('acceptance-inspection');
    // The end of June 12, 2027 in New York: its last instant.
    expect(duty).toMatchObject({ status: 'open', dueAt: '2027-06-13T03:59:59.999Z' });
    const again = await post({ kind: 'final-acceptance', acceptedAt: at(accepted) }, insp);
    expect([again.status, again.body.error]).toEqual([409, 'RECORD_OUT_OF_ORDER']);
    await startAt(accepted + 366 * DAY);
    const inspected = await post(
      { kind: 'one-year-inspection', inspectedAt: at(now - DAY), acceptable: true },
      insp,
    );
    expect(inspected.status).toBe(201);
    expect((await alerts('acceptance-inspection'))[0]).toMatchObject({ status: 'resolved' });
  });

  it('the standing shows each expected milestone with its notice or flagged, and the one-year inspection', async () => {
    const soon = now + 5 * DAY;
    expect(
      (
        await post(
          { kind: 'expected-milestone', milestone: 'final-grading-complete', expectedAt: at(soon) },
          owner,
        )
      ).status,
    ).toBe(201);
    const past = now - 2 * DAY;
    expect(
      (
        await post(
          { kind: 'expected-milestone', milestone: 'site-clearing-complete', expectedAt: at(past) },
          owner,
        )
      ).status,
    ).toBe(201);
    const r = await api.call('GET', '/api/sites/maple-ridge/records/standing', undefined, owner);
    expect(r.status).toBe(200);
    const st = r.body as unknown as {
      milestones: Array<Record<string, unknown>>;
      oneYear: Record<string, unknown> | null;
    };
    const by = Object.fromEntries(st.milestones.map((m) => [m.milestone, m]));
    expect(by['rough-grading-complete']).toMatchObject({ flagged: false, notice: { late: true } });
    expect(by['final-grading-complete']).toMatchObject({
      flagged: false,
      notice: null,
      noticeBy: at(soon - 2 * DAY),
    });
    expect(by['site-clearing-complete']).toMatchObject({ flagged: true, notice: null });
    expect(st.oneYear).toMatchObject({ dueAt: '2027-06-13T03:59:59.999Z', inspection: { acceptable: true } });
    const septic = await api.call('GET', '/api/sites/oak-lane/records/standing', undefined, insp);
    expect(septic.status).toBe(409);
  });

  it('final stabilization, recorded by the developer and confirmed by the officer, once each', async () => {
    const stabilizedAt = now - 6 * 3_600_000;
    const r = await post(
      {
        kind: 'final-stabilization',
        stabilizedAt: at(stabilizedAt),
        description: 'Permanent grass established on all disturbed areas; basin outlet stabilized.',
      },
      owner,
    );
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ kind: 'final-stabilization', at: at(stabilizedAt) });
    const again = await post(
      { kind: 'final-stabilization', stabilizedAt: at(stabilizedAt), description: 'Again.' },
      owner,
    );
    expect([again.status, again.body.error]).toEqual([409, 'RECORD_OUT_OF_ORDER']);
    expect(String(again.body.message)).toContain('already recorded');
    const confirm = { kind: 'stabilization-confirmation', confirms: String(r.body.id), confirmedAt: at(now) };
    expect((await post(confirm, owner)).status).toBe(403);
    const early = await post({ ...confirm, confirmedAt: at(stabilizedAt - DAY) }, insp);
    expect([early.status, early.body.error]).toEqual([409, 'RECORD_OUT_OF_ORDER']);
    const wrong = await post({ ...confirm, confirms: 'record-none' }, insp);
    expect(wrong.status).toBe(409);
    const ok = await post({ ...confirm, note: 'Seen on site.' }, insp);
    expect(ok.status).toBe(201);
    expect(ok.body.summary).toBe('the final stabilization confirmed: Seen on site.');
    expect((await post(confirm, insp)).status).toBe(409);
    const st = await api.call('GET', '/api/sites/maple-ridge/records/standing', undefined, owner);
    expect((st.body as Record<string, unknown>).stabilization).toMatchObject({
      recordId: r.body.id,
      stabilizedAt: at(stabilizedAt),
      recordedBy: 'Dana Developer',
      confirmation: { confirmedBy: 'Ian Inspector', note: 'Seen on site.' },
    });
  });
});

describe("final stabilization ends the duties of the developer's records", () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-records-stab-'));
  let gw: TestGateway;
  let now = T0;
  const config = {
    sites: [
      {
        id: 'elm',
        name: 'Elm Court',
        kind: 'construction' as const,
        timezone: 'America/New_York',
        devices: [],
      },
    ],
    auth: { tokens: [{ name: 'Ian Inspector', role: 'inspector' as const, tokenSha256: sha('tok-insp') }] },
  };
  /** The alerts of the two duties the stabilization ends (the storm and routine rules follow `active`). */
  const alerts = async () =>
    (
      (await (await fetch(`${gw.httpUrl}/api/alerts?siteId=elm`)).json()) as Array<Record<string, unknown>>
    ).filter((a) => a.rule === 'contractor-certification' || a.rule === 'swppp-on-site');
  afterAll(async () => {
    await gw?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('ends the open SWPPP and certification duties at the stabilization, and opens none after it', async () => {
    gw = await startTestGateway(config, { dataDir, now: () => now });
    for (let i = 0; i < 100 && (await alerts()).length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await alerts()).map((a) => [a.rule, a.status]).sort()).toEqual([
      ['contractor-certification', 'open'],
      ['swppp-on-site', 'open'],
    ]);
    now = T0 + 3 * DAY;
    const r = await fetch(`${gw.httpUrl}/api/sites/elm/records`, {
      method: 'POST',
      headers: { authorization: 'Bearer tok-insp', 'content-type': 'application/json' },
      body: JSON.stringify({
        kind: 'final-stabilization',
        stabilizedAt: at(T0 + 2 * DAY),
        description: 'Paved and seeded.',
      }),
    });
    expect(r.status).toBe(201);
    const ended = await alerts();
    expect(ended.map((a) => a.status)).toEqual(['resolved', 'resolved']);
    for (const a of ended) expect(a).toMatchObject({ resolvedAt: at(T0 + 2 * DAY), withinDeadline: false });
    // Days later the site is still active in the configuration: no duty opens again.
    await gw.cleanup();
    now = T0 + 20 * DAY;
    gw = await startTestGateway(config, { dataDir, now: () => now });
    await new Promise((r) => setTimeout(r, 300));
    expect((await alerts()).map((a) => a.status)).toEqual(['resolved', 'resolved']);
  });
});
