/**
 * The officer's agenda over HTTP against the real gateway: a milestone notice, a storm inspection and a
 * routine inspection put on their local days in America/New_York (each near midnight, where the UTC date
 * is the next day's), an overdue duty listed first, and the sites a caller may not see left out.
 */
import { createHash } from 'node:crypto';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agenda } from '../../../shared/src/api/agenda.ts';
import { CERTIFICATION_STATEMENT } from '../../../shared/src/api/siteRecords.ts';
import { waitFor } from '../../helpers/env.ts';
import { startTestGateway, type TestGateway, testHash } from '../../helpers/gateway.ts';
import { PASSWORD, peopleApi } from '../../helpers/people.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
/** 10:00 AM in New York, Wednesday June 10, 2026. */
const NOW = Date.parse('2026-06-10T14:00:00Z');
const H = 3_600_000;

describe('the agenda', () => {
  let gw: TestGateway;
  let api: ReturnType<typeof peopleApi>;
  let birchOwner: Record<string, string>;
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const r = await api.call('GET', path, undefined, headers);
    return { status: r.status, agenda: r.body as unknown as Agenda, body: r.body };
  };

  beforeAll(async () => {
    gw = await startTestGateway(
      {
        timezone: 'America/New_York',
        sites: [
          {
            id: 'maple-ridge',
            name: 'Maple Ridge',
            kind: 'construction',
            timezone: 'America/New_York',
            // Due 7 x 24 h later: June 14 03:00 UTC, June 13 11:00 PM in New York.
            history: { lastRoutineInspection: '2026-06-07T03:00:00Z' },
            devices: [
              { id: 'rg-1', kind: 'rain-gauge', inchesPerTip: 0.01, passwordHash: testHash('pw-rg-1') },
            ],
          },
          {
            id: 'birch-hill',
            name: 'Birch Hill',
            kind: 'construction',
            timezone: 'America/New_York',
            // Ten days ago: overdue.
            history: { lastRoutineInspection: '2026-05-31T14:00:00Z' },
            devices: [],
          },
        ],
        auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha('tok-admin') }] },
      },
      { now: () => NOW },
    );
    api = peopleApi(gw.httpUrl, 'tok-admin');
    const made = await api.call(
      'POST',
      '/api/users',
      {
        name: 'Bo Builder',
        email: 'bo@birch.example',
        role: 'owner',
        password: PASSWORD,
        sites: ['birch-hill'],
      },
      api.admin,
    );
    expect(made.status).toBe(201);
    birchOwner = (await api.signIn('bo@birch.example')).write;
    // Each site's certification and SWPPP on file: no "developer's records" duty on the agenda.
    for (const site of ['maple-ridge', 'birch-hill'])
      for (const body of [
        {
          kind: 'certification',
          statement: CERTIFICATION_STATEMENT,
          name: 'Jane Roe',
          title: 'Superintendent',
          firm: 'Acme Excavating',
          firmAddress: '12 Quarry Rd, Chester NY',
          telephone: '845-555-0142',
          siteAddress: site,
          signedAt: '2026-05-01T12:00:00Z',
        },
        { kind: 'swppp', since: '2026-05-01T12:00:00Z', keptBy: 'Jane Roe', where: 'the site trailer' },
      ]) {
        const r = await api.call('POST', `/api/sites/${site}/records`, body, api.admin);
        expect(r.status).toBe(201);
      }
    // A 0.62 in storm whose last tip was 13.5 h ago: inspection due at June 11 00:30 UTC, 8:30 PM June 10
    // in New York.
    const end = NOW - 13.5 * H;
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    for (let i = 0; i <= 62; i++)
      await c.publishAsync(
        'sites/maple-ridge/devices/rg-1/telemetry',
        JSON.stringify({ ts: end - (62 - i) * 60_000, seq: i, rainTips: i }),
        { qos: 1 },
      );
    await c.endAsync();
    // Rough grading done at 11:30 PM on June 12 in New York (June 13 03:30 UTC), notified 61.5 h ahead.
    const filed = await api.call(
      'POST',
      '/api/notices',
      { siteId: 'maple-ridge', milestone: 'rough-grading-complete', at: '2026-06-12T23:30:00-04:00' },
      api.admin,
    );
    expect(filed.body).toMatchObject({ late: false });
    await waitFor(
      async () => {
        const r = await get('/api/alerts?siteId=maple-ridge&rule=storm-inspection');
        return (r.body as unknown as unknown[]).length > 0 ? true : undefined;
      },
      10_000,
      'the storm inspection alert',
    );
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  const items = (a: Agenda) =>
    a.days.flatMap((d) => d.items.map((i) => [d.day, i.kind, i.siteId, i.label] as const));

  it("lists each item on its site's local day, overdue duties first", async () => {
    const { status, agenda } = await get('/api/agenda');
    expect(status).toBe(200);
    // Default: today (in the gateway's zone) and the 7 days after.
    expect([agenda.from, agenda.to, agenda.days.length]).toEqual(['2026-06-10', '2026-06-17', 8]);
    expect(items(agenda)).toEqual([
      ['2026-06-10', 'duty', 'maple-ridge', 'Storm inspection'],
      ['2026-06-12', 'milestone', 'maple-ridge', 'Completion of rough grading'],
      ['2026-06-13', 'duty', 'maple-ridge', 'Routine 7-day inspection'],
    ]);
    const milestone = agenda.days[2]!.items[0]!;
    expect(milestone.detail).toBe('Completion of rough grading at Maple Ridge, 11:30 PM: inspect');
    expect(agenda.days[0]!.items[0]!.detail).toBe('Storm inspection at Maple Ridge: due by 8:30 PM');
    expect(agenda.overdue.map((i) => [i.siteId, i.label, i.overdue])).toEqual([
      ['birch-hill', 'Routine 7-day inspection', true],
    ]);
    expect(agenda.overdue[0]!.detail).toContain('was due Jun 7, 2026');
  });

  it('leaves out the sites the caller may not see', async () => {
    const { agenda } = await get('/api/agenda?from=2026-06-01&to=2026-06-30', birchOwner);
    expect(items(agenda)).toEqual([]);
    expect(agenda.overdue.map((i) => i.siteId)).toEqual(['birch-hill']);
    expect(agenda.days.length).toBe(30);
  });

  it('refuses a range longer than 92 days, backwards, or not a calendar day', async () => {
    for (const q of ['from=2026-01-01&to=2026-06-01', 'from=2026-06-10&to=2026-06-01', 'from=2026-02-30'])
      expect((await get(`/api/agenda?${q}`)).status, q).toBe(400);
    expect((await get('/api/agenda?from=2026-06-01&to=2026-08-31')).status).toBe(200);
  });
});
