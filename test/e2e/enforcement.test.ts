/**
 * Enforcement end to end through MQTT and HTTP against a real gateway: a storm of 0.55 in raises the
 * inspection duty; the inspector, signed in, records the inspection with a violation finding and a photo
 * (which closes the duty), issues a notice with a 7-day remedial schedule (its duty raised) and a stop-work
 * order; the developer is told by e-mail (a real SMTP server) and opens the notice with the law's six
 * elements. The report of the period carries the finding, the photo's hash, the notice and the order, and
 * verifies; a finding changed in a copy of the store is named by the verifier. (The appeal window, the
 * correction and the approval on later days: test/api/plugins/violations.test.ts.)
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mqtt from 'mqtt';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readReport, verifyReport } from '../../gateway/src/ledger/verify.ts';
import { freePort, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testConfigInput } from '../helpers/gateway.ts';
import { type Browser, peopleApi, sha } from '../helpers/people.ts';

const ADMIN = 'tok-enforcement-admin';
const H = 3_600_000;
const DAY = 24 * H;
/** A 1x1 PNG: what a phone's camera would send, only smaller. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const iso = (t: number) => new Date(t).toISOString();

interface Alert {
  id: string;
  rule: string;
  status: string;
  overdue: boolean;
  dueAt: string | null;
  resolvedAt?: string;
  withinDeadline?: boolean;
}
interface Violation {
  id: string;
  status: string;
  issuedAt: string;
  appealBy: string;
  remedyDueAt: string;
  onTime?: boolean;
  events: Array<{ kind: string; by: string; text: string }>;
  documentUrl: string;
}

describe('enforcement: alert, inspection, notice, appeal window, stop-work, approval, report', () => {
  let gw: TestGateway;
  let smtp: SMTPServer;
  const mails: string[] = [];
  const offset = 0;
  const clock = () => Date.now() + offset;
  let api: ReturnType<typeof peopleApi>;
  let ida: Browser;
  let dana: Browser;
  let t0: number;
  let photo: string;
  let inspectionId: string;
  let notice: Violation;
  const config = (smtpPort: number) => {
    const base = testConfigInput();
    return {
      timezone: 'America/New_York',
      auth: { tokens: [{ name: 'Ada Admin', role: 'admin' as const, tokenSha256: sha(ADMIN) }] },
      evidence: { checkpointIntervalSeconds: 1 },
      notify: { smtp: { host: '127.0.0.1', port: smtpPort, secure: false, from: 'smo@chester.test' } },
      sites: base.sites!.map((s) =>
        s.id === 'maple-ridge'
          ? {
              ...s,
              name: 'Maple Ridge subdivision',
              address: 'Lots 1-24, Maple Ridge Road, Chester NY',
              landowner: { name: 'Maple Ridge Land LLC', address: '10 Main St, Chester NY 10918' },
              developer: {
                name: 'Ridge Builders Inc.',
                address: '200 Route 94, Chester NY 10918',
                email: 'office@ridge-builders.test',
              },
              practices: [
                { id: 'sf-north', label: 'Silt fence, north boundary', kind: 'silt-fence' as const },
                {
                  id: 'inlet-1',
                  label: 'Inlet protection, Maple Ridge Rd',
                  kind: 'inlet-protection' as const,
                },
                { id: 'entrance', label: 'Stabilized entrance', kind: 'stabilized-entrance' as const },
              ],
              recipients: [
                { role: 'officer' as const, email: 'smo@chester.test' },
                { role: 'developer' as const, name: 'Dana Developer', email: 'dana@ridge-builders.test' },
              ],
            }
          : s,
      ),
    };
  };
  const signInBoth = async () => {
    ida = await api.signIn('ida@chester.test');
    dana = await api.signIn('dana@ridge-builders.test');
  };
  const alerts = async (rule?: string) =>
    (
      await api.call(
        'GET',
        `/api/alerts?siteId=maple-ridge${rule ? `&rule=${rule}` : ''}`,
        undefined,
        api.admin,
      )
    ).body as unknown as Alert[];
  const violation = async (id: string) =>
    (await api.call('GET', `/api/violations/${id}`, undefined, api.admin)).body as unknown as Violation;

  beforeAll(async () => {
    const smtpPort = await freePort();
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, _session, cb) {
        let text = '';
        stream.on('data', (d) => {
          text += d;
        });
        stream.on('end', () => {
          mails.push(text);
          cb();
        });
      },
    });
    await new Promise<void>((r) => smtp.listen(smtpPort, '127.0.0.1', () => r()));
    gw = await startTestGateway(config(smtpPort) as never, { now: clock });
    api = peopleApi(gw.httpUrl, ADMIN);
    await api.account('Ida Inspector', 'ida@chester.test', 'inspector');
    const dan = await api.call(
      'POST',
      '/api/users',
      {
        name: 'Dana Developer',
        email: 'dana@ridge-builders.test',
        role: 'contractor',
        password: 'correct horse battery',
        sites: ['maple-ridge'],
      },
      api.admin,
    );
    expect(dan.status, JSON.stringify(dan.body)).toBe(201);
    await signInBoth();

    // The storm: 55 tips of 0.01 in over 55 minutes, three hours ago.
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    t0 = clock() - 3 * H;
    const topic = 'sites/maple-ridge/devices/rg-1/telemetry';
    for (let i = 0; i <= 55; i++)
      await c.publishAsync(topic, JSON.stringify({ ts: t0 + i * 60_000, seq: i, rainTips: 1000 + i }), {
        qos: 1,
      });
    await c.endAsync();
  });
  afterAll(async () => {
    await gw?.cleanup();
    await new Promise<void>((r) => smtp?.close(() => r()));
  });

  it('a storm of 0.55 in raises the inspection duty', async () => {
    const storm = await waitFor(
      async () => (await alerts('storm-inspection')).find((a) => a.status === 'open'),
      15_000,
      'the storm inspection duty',
    );
    expect(Date.parse(storm.dueAt!)).toBeGreaterThan(t0);
  });

  it('the inspector records the inspection: a violation at the silt fence, with a photo', async () => {
    const up = await fetch(`${gw.httpUrl}/api/photos`, {
      method: 'POST',
      headers: { ...ida.write, 'content-type': 'image/png' },
      body: PNG,
    });
    expect(up.status).toBe(200);
    photo = ((await up.json()) as { sha256: string }).sha256;
    expect(photo).toBe(createHash('sha256').update(PNG).digest('hex'));
    const r = await api.call(
      'POST',
      '/api/inspections',
      {
        siteId: 'maple-ridge',
        at: iso(clock() - H),
        inspector: 'Ida Inspector',
        kind: 'storm',
        notes: 'After the storm of 0.55 in.',
        findings: [
          {
            practice: 'sf-north',
            status: 'violation',
            note: 'Fence down for 40 ft; sediment in the road ditch.',
            photos: [photo],
          },
          { practice: 'inlet-1', status: 'maintenance', note: 'Filter fabric half full.' },
          { practice: 'entrance', status: 'ok' },
        ],
      },
      ida.write,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const body = r.body as unknown as {
      inspection: { id: string; findings: Array<{ practice: string; photos: string[] }> };
      closedAlertIds: string[];
    };
    inspectionId = body.inspection.id;
    expect(body.inspection.findings.map((f) => f.practice)).toEqual(['sf-north', 'inlet-1', 'entrance']);
    expect(body.inspection.findings[0]!.photos).toEqual([photo]);
    const storm = (await alerts('storm-inspection'))[0]!;
    expect(body.closedAlertIds).toContain(storm.id);
    expect(storm.status).toBe('resolved');
    // The photo is served to the people who may see the site.
    const got = await fetch(`${gw.httpUrl}/api/photos/${photo}`, { headers: { cookie: dana.cookie } });
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it('issues a notice with a 7-day schedule, and a stop-work order; the developer is told by e-mail', async () => {
    const issued = await api.call(
      'POST',
      '/api/violations',
      {
        siteId: 'maple-ridge',
        inspectionId,
        nature: 'Silt fence along the north boundary down for 40 ft; sediment leaving the site.',
        remedy: 'Reinstall the silt fence and remove the sediment from the road ditch.',
        remedyDueAt: iso(clock() + 7 * DAY),
      },
      ida.write,
    );
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    notice = await violation(String(issued.body.id));
    expect(notice.status).toBe('issued');
    expect(Date.parse(notice.appealBy) - Date.parse(notice.issuedAt)).toBe(15 * DAY);
    const other = await api.call(
      'POST',
      '/api/violations',
      {
        siteId: 'maple-ridge',
        nature: 'Inlet protection on Maple Ridge Rd not maintained.',
        remedy: 'Replace the filter fabric.',
        remedyDueAt: iso(clock() + 10 * DAY),
      },
      ida.write,
    );
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    expect((await violation(String(other.body.id))).status).toBe('issued');

    // The remedial schedule is a duty with its deadline.
    const duty = await waitFor(
      async () => (await alerts()).find((a) => a.status === 'open' && a.dueAt === notice.remedyDueAt),
      10_000,
      "the notice's remedy duty",
    );
    expect(duty.overdue).toBe(false);

    const order = await api.call(
      'POST',
      '/api/sites/maple-ridge/stop-work',
      { reason: 'Sediment leaving the site at the north boundary.', violationId: notice.id },
      ida.write,
    );
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    const site = (await api.call('GET', '/api/sites/maple-ridge', undefined, api.admin)).body as {
      stopWork?: { reason: string; violationIds: string[] } | null;
    };
    expect(site.stopWork?.reason).toBe('Sediment leaving the site at the north boundary.');
    expect(site.stopWork?.violationIds).toEqual([notice.id]);

    const mail = await waitFor(
      async () => mails.find((m) => m.includes('dana@ridge-builders.test') && m.includes('appeal')),
      15_000,
      'the notice by e-mail to the developer',
    );
    const text = mail.replace(/=\r?\n/g, '');
    expect(text).toContain('Ridge Builders Inc.');
    expect(text).toContain('Maple Ridge Land LLC');
    expect(text).toContain('Reinstall the silt fence');
  });

  it('the document has the six elements of the law', async () => {
    const res = await fetch(`${gw.httpUrl}${notice.documentUrl}`, { headers: { cookie: dana.cookie } });
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const part of [
      'Maple Ridge Land LLC',
      '10 Main St, Chester NY 10918',
      'Ridge Builders Inc.',
      'Lots 1-24, Maple Ridge Road, Chester NY',
      'Silt fence along the north boundary down for 40 ft',
      'Reinstall the silt fence',
      '$250',
      '15 days',
    ])
      expect(html).toContain(part);
  });

  const report = async (g: TestGateway) => {
    const get = async (path: string) =>
      (await (await fetch(`${g.httpUrl}${path}`, { headers: api.admin })).json()) as Record<string, unknown>;
    const logged = Number((await get('/api/evidence')).size);
    await waitFor(
      async () => {
        const e = (await get('/api/evidence')) as { checkpoint?: { size: number } };
        return (e.checkpoint?.size ?? 0) >= logged || undefined;
      },
      10_000,
      'a checkpoint of the whole log',
    );
    const from = iso(t0 - DAY).slice(0, 10);
    const to = iso(t0 + 19 * DAY).slice(0, 10);
    const res = await fetch(
      `${g.httpUrl}/api/reports/compliance?siteId=maple-ridge&from=${from}&to=${to}&format=json`,
      { headers: api.admin },
    );
    expect(res.status).toBe(200);
    return res.text();
  };

  it('the report of the period shows all of it and verifies', async () => {
    const key = String((await api.call('GET', '/api/evidence/key', undefined, api.admin)).body.verifierKey);
    const text = await report(gw);
    expect(text).toContain(photo);
    expect(text).toContain('Fence down for 40 ft');
    expect(text).toContain(notice.id);
    expect(text).toContain('Sediment leaving the site at the north boundary.');
    const v = await verifyReport(readReport(JSON.parse(text)), key);
    expect(v.problems).toEqual([]);
    expect(v.ok).toBe(true);

    // A finding changed in a copy of the store: the report made from it does not verify, and says where.
    const copy = mkdtempSync(join(tmpdir(), 'gw-enforcement-copy-'));
    try {
      cpSync(gw.dataDir, copy, { recursive: true });
      const db = new Database(join(copy, 'gateway.db'));
      db.exec('DROP TRIGGER IF EXISTS inspections_no_update');
      db.exec(`UPDATE inspections SET findings = replace(findings, '"violation"', '"ok"')`);
      db.close();
      const other = await startTestGateway(config(await freePort()) as never, { dataDir: copy, now: clock });
      try {
        const tampered = await report(other);
        expect((JSON.parse(tampered) as { warnings: string[] }).warnings.length).toBeGreaterThan(0);
        const bad = await verifyReport(readReport(JSON.parse(tampered)), key);
        expect(bad.ok).toBe(false);
        expect(bad.problems.map((p) => p.field).join(' ')).toMatch(/inspections\[0\]/);
      } finally {
        await other.cleanup();
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
