/**
 * A wastewater season under town law 000, end to end on the real gateway, its SMTP server and its
 * evidence log: a pump alarm on an alternative system opens its remedy duty; the engineer's annual
 * inspection, submitted to the town, finds the pump deficient, which opens the 5-day remedy from the
 * submittal (5.030 B 1 d); the Enforcement Officer's
 * order to correct (Section 5.100 B) is e-mailed to the owner with the order attached, and that delivery
 * is its service; the owner appeals to the Local Board of Health at 23:45 on the 15th local day after
 * service (across the end of daylight saving time); the Board's hearing is recorded; the owner reports
 * the correction, a visit finds the deficiency remedied, and the officer approves the correction, which
 * closes the order and its duty; the compliance report
 * of the period shows the service and the appeal, and verifies. Days pass by restarting the gateway on
 * the same store with its clock moved.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readReport, verifyReport } from '../../gateway/src/verifier/verify.ts';
import { waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testHash } from '../helpers/gateway.ts';
import { PASSWORD, peopleApi } from '../helpers/people.ts';
import { checkpointedReport } from '../helpers/reports.ts';
import { parseMail, startSmtp, type TestSmtpServer } from '../notify/support.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const iso = (ms: number) => new Date(ms).toISOString();
const DAY = 86_400_000;
// Tuesday October 20, 2026, 10:00 EDT. Daylight saving time ends on November 1.
const T0 = Date.parse('2026-10-20T14:00:00Z');
// 23:45 EST on November 4, the 15th day after October 20; the window ends at its midnight, 05:00 UTC.
const DAY15_2345 = Date.parse('2026-11-05T04:45:00Z');
const WINDOW_END = '2026-11-05T05:00:00.000Z';

interface Notice {
  id: string;
  status: string;
  law: string;
  servedAt?: string;
  appealBy?: string;
  events: Array<{ kind: string; method?: string; party?: string; outcome?: string }>;
}

describe('a wastewater season: alarm, deficiency, order served, appeal on day 15, hearing, correction, approval', () => {
  let gw: TestGateway;
  let smtp: TestSmtpServer;
  let api: ReturnType<typeof peopleApi>;
  let owner: Record<string, string>;
  let now = T0;
  const insp = { authorization: 'Bearer tok-insp' };
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-wastewater-e2e-'));
  const config = (smtpPort: number) => ({
    notify: { smtp: { host: '127.0.0.1', port: smtpPort, secure: false, from: 'eo@chester.test' } },
    sites: [
      {
        id: 'oak-lane',
        name: 'Oak Lane',
        kind: 'alternative-system' as const,
        timezone: 'America/New_York',
        landowner: { name: 'Olive Owner', address: '4 Oak Lane, Chester NY', email: 'olive@oak.test' },
        address: '4 Oak Lane, Chester NY',
        recipients: [{ role: 'officer' as const, name: 'Ed Enforcer', email: 'eo@chester.test' }],
        devices: [
          {
            id: 'panel-1',
            kind: 'septic-panel' as const,
            liquidDepthIn: 60,
            passwordHash: testHash('pw-panel-1'),
          },
        ],
      },
    ],
    auth: {
      tokens: [
        { name: 'Ed Enforcer', role: 'inspector' as const, tokenSha256: sha('tok-insp') },
        { name: 'Ada Admin', role: 'admin' as const, tokenSha256: sha('tok-admin') },
      ],
    },
  });
  const startAt = async (t: number) => {
    await gw?.cleanup();
    now = t;
    gw = await startTestGateway(config(smtp.port) as never, { dataDir, now: () => now });
    api = peopleApi(gw.httpUrl, 'tok-admin');
    owner = (await api.signIn('olive@oak.test')).write;
  };
  const notice = async (id: string) =>
    (await api.call('GET', `/api/violations/${id}`, undefined, insp)).body as unknown as Notice;
  const remedies = async (rule: string) =>
    (await (await fetch(`${gw.httpUrl}/api/alerts?siteId=oak-lane&rule=${rule}`)).json()) as Array<{
      status: string;
      dueAt: string | null;
    }>;

  beforeAll(async () => {
    smtp = await startSmtp();
    gw = await startTestGateway(config(smtp.port) as never, { dataDir, now: () => now });
    api = peopleApi(gw.httpUrl, 'tok-admin');
    const r = await api.call(
      'POST',
      '/api/users',
      {
        name: 'Olive Owner',
        email: 'olive@oak.test',
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
    await smtp?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  let id = '';
  it('a pump alarm opens the remedy duty; the order to correct is e-mailed to the owner with the order attached', async () => {
    const panel = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'oak-lane/panel-1',
      username: 'oak-lane/panel-1',
      password: 'pw-panel-1',
    });
    for (let i = 0; i <= 2; i++)
      await panel.publishAsync(
        'sites/oak-lane/devices/panel-1/telemetry',
        JSON.stringify({ ts: T0 - 3_600_000 + i * 60_000, seq: i, alarms: { pump: true } }),
        { qos: 1 },
      );
    await panel.endAsync();
    await waitFor(
      async () => (await remedies('equipment-remedy')).length === 1 || undefined,
      10_000,
      'the alarm',
    );

    const r = await api.call(
      'POST',
      '/api/violations',
      {
        siteId: 'oak-lane',
        orderKind: 'correct',
        nature: 'The effluent pump has failed; the high-water alarm sounds.',
        remedy: 'Replace the effluent pump and have the engineer confirm the system works.',
        remedyDueAt: iso(T0 + 5 * DAY),
      },
      insp,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    id = String(r.body.id);
    expect(r.body.law).toBe('000');
    expect(await remedies('violation-remedy')).toMatchObject([{ status: 'open', dueAt: iso(T0 + 5 * DAY) }]);

    const mail = await waitFor(
      () =>
        smtp.messages
          .filter((m) => m.to.includes('olive@oak.test'))
          .map((m) => parseMail(m.raw))
          .find((m) => m.headers['x-gateway-event'] === 'violation'),
      15_000,
      'the order by e-mail to the owner',
    );
    expect(mail.headers.subject).toContain('Order to correct: Oak Lane');
    expect(mail.text).toContain('ORDER OF THE ENFORCEMENT OFFICER (order to correct): Oak Lane');
    expect(mail.text).toContain('orders that the defects be corrected');
    expect(mail.text).toContain('civil penalty of not more than ($1,000)');
    expect(mail.text).toContain('may appeal to the Local Board of Health');
    expect(mail.text).toContain('within 15 days of service, by the end of November 4, 2026.');
    const doc = mail.attachments.find((a) => a.contentType === 'text/html');
    expect(doc?.filename).toMatch(/^notice-of-violation-oak-lane-2026-10-20\.html$/);
    expect(doc?.content).toContain('Order of the Enforcement Officer: Order to correct');
    expect(doc?.content).toContain('Olive Owner');
    // The officer is not served the order: the parties on file are.
    expect(
      smtp.messages
        .filter((m) => m.to.includes('eo@chester.test'))
        .map((m) => parseMail(m.raw).headers['x-gateway-event']),
    ).not.toContain('violation');
  });

  let deficiency = '';
  it("the engineer's annual inspection finds the pump deficient: 5 days from its submittal", async () => {
    const r = await api.call(
      'POST',
      '/api/inspections',
      {
        siteId: 'oak-lane',
        at: iso(T0 - 2 * 3_600_000),
        inspector: 'Pat Engineer, P.E.',
        kind: 'annual',
        notes: 'Annual inspection of the alternative system.',
        deficiencies: [{ kind: 'equipment', note: 'The effluent pump does not start.' }],
      },
      insp,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const recorded = r.body.inspection as unknown as { deficiencies: Array<{ id: string }> };
    deficiency = recorded.deficiencies[0]!.id;
    // Submitted on October 20 (EDT): the 5th day after is October 25, whole.
    expect(await remedies('equipment-deficiency')).toMatchObject([
      { status: 'open', dueAt: '2026-10-26T03:59:59.999Z' },
    ]);
  });

  it('that delivery is its service: the window runs 15 local days from it', async () => {
    const served = await waitFor(
      async () => {
        const v = await notice(id);
        return v.servedAt ? v : undefined;
      },
      15_000,
      'the service recorded',
    );
    expect(served.servedAt).toBe(iso(T0));
    expect(served.appealBy).toBe(WINDOW_END);
    expect(served.events).toMatchObject([{ kind: 'served', method: 'email', party: 'olive@oak.test' }]);
  });

  it('the owner appeals to the Local Board of Health at 23:45 on the 15th day; the hearing is recorded', async () => {
    await startAt(DAY15_2345);
    const r = await api.call(
      'POST',
      `/api/violations/${id}/appeal`,
      { reason: 'The pump was replaced on day 3.' },
      owner,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.status).toBe('appealed');
    const h = await api.call(
      'POST',
      `/api/violations/${id}/hearing`,
      {
        heldOn: '2026-11-04',
        outcome: 'upheld',
        note: 'The Board upholds the order: the engineer has not confirmed it.',
      },
      insp,
    );
    expect(h.status, JSON.stringify(h.body)).toBe(200);
    expect((h.body as unknown as Notice).events.at(-1)).toMatchObject({ kind: 'heard', outcome: 'upheld' });
  });

  it('the owner reports the correction; the officer approves it, closing the order and its duty', async () => {
    await startAt(DAY15_2345 + DAY);
    const c = await api.call(
      'POST',
      `/api/violations/${id}/corrected`,
      { note: 'Engineer confirmed the new pump.' },
      owner,
    );
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    // The officer's visit finds the pump deficiency remedied (late: its 5 days ended October 25).
    const visit = await api.call(
      'POST',
      '/api/inspections',
      {
        siteId: 'oak-lane',
        at: iso(DAY15_2345 + DAY - 3_600_000),
        inspector: 'Ed Enforcer',
        kind: 'other',
        notes: 'The new pump starts and the alarm is quiet.',
        remedied: [deficiency],
      },
      insp,
    );
    expect(visit.status, JSON.stringify(visit.body)).toBe(201);
    expect(await remedies('equipment-deficiency')).toMatchObject([{ status: 'resolved' }]);
    const a = await api.call('POST', `/api/violations/${id}/approve`, { note: 'Seen working.' }, insp);
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(a.body).toMatchObject({ status: 'approved', onTime: false });
    expect(await remedies('violation-remedy')).toMatchObject([{ status: 'resolved' }]);
  });

  it('the report of the period shows the service and the appeal, and verifies', async () => {
    const key = String((await api.call('GET', '/api/evidence/key', undefined, api.admin)).body.verifierKey);
    const json = await checkpointedReport(
      gw.httpUrl,
      `siteId=oak-lane&from=2026-10-19&to=2026-11-07&format=json`,
      api.admin,
    );
    const report = JSON.parse(json) as { violations: Notice[] };
    expect(report.violations).toMatchObject([
      { id, law: '000', servedAt: iso(T0), appealBy: WINDOW_END, status: 'approved' },
    ]);
    expect(report.violations[0]!.events.map((e) => e.kind)).toEqual([
      'served',
      'appealed',
      'heard',
      'corrected',
      'approved',
    ]);
    const v = await verifyReport(readReport(JSON.parse(json)), key);
    expect(v.problems).toEqual([]);
    const html = await (
      await fetch(
        `${gw.httpUrl}/api/reports/compliance?siteId=oak-lane&from=2026-10-19&to=2026-11-07&format=html`,
        {
          headers: api.admin,
        },
      )
    ).text();
    expect(html).toContain('by e-mail on olive@oak.test');
    expect(html).toContain('until the end of November 4, 2026');
    expect(html).toContain('Heard by the Local Board of Health on November 4, 2026: upheld');
  });
});
