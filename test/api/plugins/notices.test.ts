/**
 * Milestone notices over HTTP against the real gateway (town law 001, A(1): at least 48 hours before):
 * on time and late, refusals (a viewer, another site's owner, a site that is not construction, a
 * milestone the law does not name, a time too far ahead), who may list them, and the store's guard.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, testHash } from '../../helpers/gateway.ts';
import { PASSWORD, peopleApi } from '../../helpers/people.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const NOW = Date.parse('2026-06-10T14:00:00Z');
const hours = (h: number) => new Date(NOW + h * 3_600_000).toISOString();

describe('milestone notices', () => {
  let gw: TestGateway;
  let api: ReturnType<typeof peopleApi>;
  const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
  let mapleOwner: Record<string, string>;
  let birchOwner: Record<string, string>;

  beforeAll(async () => {
    gw = await startTestGateway(
      {
        sites: [
          {
            id: 'maple-ridge',
            name: 'Maple Ridge',
            kind: 'construction',
            timezone: 'America/New_York',
            devices: [{ id: 'rg-1', kind: 'rain-gauge', inchesPerTip: 0.01, passwordHash: testHash('pw') }],
          },
          { id: 'birch-hill', name: 'Birch Hill', kind: 'construction', devices: [] },
          { id: 'oak-lane', name: 'Oak Lane', kind: 'alternative-system', devices: [] },
        ],
        auth: {
          tokens: [
            { name: 'Ada Admin', role: 'admin', tokenSha256: sha('tok-admin') },
            { name: 'Val Viewer', role: 'viewer', tokenSha256: sha('tok-viewer') },
            { name: 'Ian Inspector', role: 'inspector', tokenSha256: sha('tok-insp') },
          ],
        },
      },
      { now: () => NOW },
    );
    api = peopleApi(gw.httpUrl, 'tok-admin');
    for (const [name, email, site] of [
      ['Dana Developer', 'dana@maple.example', 'maple-ridge'],
      ['Bo Builder', 'bo@birch.example', 'birch-hill'],
    ] as const) {
      const r = await api.call(
        'POST',
        '/api/users',
        { name, email, role: 'owner', password: PASSWORD, sites: [site] },
        api.admin,
      );
      expect(r.status).toBe(201);
    }
    mapleOwner = (await api.signIn('dana@maple.example')).write;
    birchOwner = (await api.signIn('bo@birch.example')).write;
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  const file = (body: unknown, headers: Record<string, string>) =>
    api.call('POST', '/api/notices', body, headers);

  it('a notice filed 50 h before is on time, one filed 20 h before is late, one after is late', async () => {
    const onTime = await file(
      { siteId: 'maple-ridge', milestone: 'rough-grading-complete', at: hours(50) },
      mapleOwner,
    );
    expect(onTime.status).toBe(201);
    expect(onTime.body).toEqual({ id: expect.stringMatching(/^notice-/), late: false });
    const late = await file(
      { siteId: 'maple-ridge', milestone: 'final-grading-complete', at: hours(20) },
      bearer('tok-insp'),
    );
    expect(late.status).toBe(201);
    expect(late.body.late).toBe(true);
    const past = await file(
      { siteId: 'birch-hill', milestone: 'start-of-construction', at: hours(-30) },
      birchOwner,
    );
    expect(past.status).toBe(201);
    expect(past.body.late).toBe(true);
    // Exactly 48 hours ahead is on time.
    const edge = await file(
      { siteId: 'birch-hill', milestone: 'site-clearing-complete', at: hours(48) },
      bearer('tok-admin'),
    );
    expect(edge.body.late).toBe(false);
  });

  it('lists the notices with the law words, who filed them, and their log entry', async () => {
    const r = await fetch(`${gw.httpUrl}/api/notices?siteId=maple-ridge`);
    const list = (await r.json()) as Array<Record<string, unknown>>;
    // Newest milestone first.
    expect(list.map((n) => [n.milestone, n.late, n.leadHours, n.filedBy])).toEqual([
      ['rough-grading-complete', false, 50, 'Dana Developer'],
      ['final-grading-complete', true, 20, 'Ian Inspector'],
    ]);
    expect(list[0]!.label).toBe('Completion of rough grading');
    expect(list[0]!.filedAt).toBe(new Date(NOW).toISOString());
    expect(typeof list[0]!.logIndex).toBe('number');
    const idx = list[0]!.logIndex as number;
    const entries = await fetch(`${gw.httpUrl}/api/evidence/entries?from=${idx}&to=${idx + 1}`);
    const [entry] = (await entries.json()) as Array<{ kind: string; at: string; body: string }>;
    expect(entry!.kind).toBe('notice');
    // The entry's time is the filing's, not the milestone's.
    expect(entry!.at).toBe(new Date(NOW).toISOString());
    expect(JSON.parse(entry!.body)).toMatchObject({
      type: 'notice',
      milestone: 'rough-grading-complete',
      siteId: 'maple-ridge',
      filedBy: 'Dana Developer',
      late: false,
    });
    // An owner lists only their own site's notices.
    const own = await api.call('GET', '/api/notices', undefined, birchOwner);
    expect((own.body as unknown as Array<{ siteId: string }>).map((n) => n.siteId)).toEqual([
      'birch-hill',
      'birch-hill',
    ]);
    const other = await api.call('GET', '/api/notices?siteId=maple-ridge', undefined, birchOwner);
    expect(other.status).toBe(404);
  });

  it('refuses a viewer, another site owner, a site that is not construction, and bad milestones', async () => {
    const ok = { siteId: 'maple-ridge', milestone: 'start-of-construction', at: hours(72) };
    const viewer = await file(ok, bearer('tok-viewer'));
    expect([viewer.status, viewer.body.error]).toEqual([403, 'FORBIDDEN']);
    const anonymous = await file(ok, {});
    expect(anonymous.status).toBe(401);
    const other = await file(ok, birchOwner);
    expect([other.status, other.body.error]).toEqual([404, 'NOT_FOUND']);
    const septic = await file({ ...ok, siteId: 'oak-lane' }, bearer('tok-admin'));
    expect([septic.status, septic.body.error]).toEqual([409, 'NOT_CONSTRUCTION']);
    expect(septic.body.message).toContain('Oak Lane is not a construction site');
    const bad = await file({ ...ok, milestone: 'roof-on' }, mapleOwner);
    expect([bad.status, bad.body.error]).toEqual([400, 'BAD_REQUEST']);
    const farAhead = await file({ ...ok, at: hours(24 * 400) }, mapleOwner);
    expect([farAhead.status, farAhead.body.error]).toEqual([400, 'BAD_REQUEST']);
    const ancient = await file({ ...ok, at: '1999-12-31T12:00:00Z' }, mapleOwner);
    expect(ancient.status).toBe(400);
    const noSite = await file({ ...ok, siteId: 'elm-row' }, bearer('tok-admin'));
    expect(noSite.status).toBe(404);
    // None of them was recorded.
    const all = await api.call('GET', '/api/notices');
    expect((all.body as unknown as unknown[]).length).toBe(4);
  });

  it('keeps notices append-only in the store', () => {
    const db = new Database(join(gw.dataDir, 'gateway.db'));
    try {
      expect(() =>
        db.prepare("UPDATE notices SET late = 0 WHERE milestone = 'final-grading-complete'").run(),
      ).toThrow(/append-only/);
      expect(() => db.prepare('DELETE FROM notices').run()).toThrow(/append-only/);
    } finally {
      db.close();
    }
  });
});
