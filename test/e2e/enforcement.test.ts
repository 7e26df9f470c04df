/**
 * A construction season's enforcement, end to end through MQTT and HTTP against a real gateway with a
 * clock of its own that the test moves forward: a storm of 0.55 in raises the inspection duty; the
 * inspector records the inspection with a violation finding and a photo, issues a notice with a 7-day
 * remedial schedule and a stop-work order; the developer is told by e-mail (a real SMTP server); the
 * developer appeals on day 14 (accepted) and, for a second notice, on day 16 (refused: the 15 days are
 * over); the remedy duty is overdue after day 7; lifting the order is refused while its notice is open;
 * the developer reports the correction, the inspector approves it (late) and lifts the order. The report of
 * the period lists all of it and verifies; a finding changed in a copy of the store is named.
 */

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import mqtt from 'mqtt';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readReport, verifyReport } from '../../gateway/src/verifier/verify.ts';
import type { AlertDto } from '../../shared/src/api/alerts.ts';
import { resolvedWords } from '../../shared/src/api/resolutionWords.ts';
import { withinDays } from '../../shared/src/days.ts';
import { approveOnReinspection } from '../helpers/approval.ts';
import { freePort, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testConfigInput } from '../helpers/gateway.ts';
import { type Browser, peopleApi, sha } from '../helpers/people.ts';
import { PNG_1X1 } from '../helpers/photos.ts';
import { checkpointedReport } from '../helpers/reports.ts';

const ADMIN = 'tok-enforcement-admin';
const H = 3_600_000;
const DAY = 24 * H;
const iso = (t: number) => new Date(t).toISOString();

interface Alert {
  id: string;
  rule: string;
  status: string;
  overdue: boolean;
  dueAt: string | null;
  resolvedAt?: string;
  withinDeadline?: boolean;
  resolution?: AlertDto['resolution'];
  history: AlertDto['history'];
}
interface Violation {
  id: string;
  status: string;
  issuedAt: string;
  appealBy: string;
  servedAt?: string;
  remedyDueAt: string;
  onTime?: boolean;
  events: Array<{ kind: string; by: string; text: string }>;
  documentUrl: string;
}

describe('enforcement: alert, inspection, notice, appeal window, stop-work, approval, report', () => {
  let gw: TestGateway;
  let smtp: SMTPServer;
  const mails: string[] = [];
  let offset = 0;
  const clock = () => Date.now() + offset;
  let api: ReturnType<typeof peopleApi>;
  let ida: Browser;
  let dana: Browser;
  let t0: number;
  let photo: string;
  let inspectionId: string;
  let notice: Violation;
  let second: Violation;
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
              // Ida inspects for the developer: the site lists her account as acting for the developer.
              developerInspectors: ['ida@chester.test'],
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
  let smtpPort = 0;
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-enforcement-'));
  /**
   * Days pass: the gateway is stopped and started again on its store with its clock `days` after the
   * storm's start (a clock that jumps while it runs is held back by the engine's guard, as it should be),
   * and the inspector and the developer sign in again.
   */
  const dayOf = async (days: number) => {
    await gw.cleanup();
    offset = t0 + days * DAY - Date.now();
    gw = await startTestGateway(config(smtpPort) as never, { dataDir, now: clock });
    api = peopleApi(gw.httpUrl, ADMIN);
    await signInBoth();
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
    smtpPort = await freePort();
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
    gw = await startTestGateway(config(smtpPort) as never, { dataDir, now: clock });
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

    // The storm: 55 tips of 0.01 in over 55 minutes, nine hours ago; the gauge's heartbeat two hours ago
    // (its counter unchanged) shows it has ended, so the inspection an hour ago follows it.
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    t0 = clock() - 9 * H;
    const topic = 'sites/maple-ridge/devices/rg-1/telemetry';
    for (let i = 0; i <= 55; i++)
      await c.publishAsync(topic, JSON.stringify({ ts: t0 + i * 60_000, seq: i, rainTips: 1000 + i }), {
        qos: 1,
      });
    await c.publishAsync(topic, JSON.stringify({ ts: clock() - 2 * H, seq: 56, rainTips: 1055 }), { qos: 1 });
    await c.endAsync();
  });
  afterAll(async () => {
    await gw?.cleanup();
    await new Promise<void>((r) => smtp?.close(() => r()));
    rmSync(dataDir, { recursive: true, force: true });
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
    const up = await fetch(`${gw.httpUrl}/api/photos?siteId=maple-ridge`, {
      method: 'POST',
      headers: { ...ida.write, 'content-type': 'image/png' },
      body: PNG_1X1,
    });
    expect(up.status).toBe(200);
    photo = ((await up.json()) as { sha256: string }).sha256;
    expect(photo).toBe(createHash('sha256').update(PNG_1X1).digest('hex'));
    const r = await api.call(
      'POST',
      '/api/inspections',
      {
        siteId: 'maple-ridge',
        at: iso(clock() - H),
        inspector: 'Ida Inspector',
        kind: 'storm',
        // Ida inspects for the developer (every practice, with a finding each): it meets the storm duty.
        side: 'developer',
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
    expect(Buffer.from(await got.arrayBuffer()).equals(PNG_1X1)).toBe(true);
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
    // Served by its first e-mail delivery: the 15 days run from it, to the end of a local day.
    notice = await waitFor(
      async () => {
        const v = await violation(String(issued.body.id));
        return v.appealBy ? v : undefined;
      },
      15_000,
      'the notice served by e-mail',
    );
    expect(notice.status).toBe('issued');
    expect(Date.parse(notice.appealBy)).toBe(
      withinDays(Date.parse(notice.servedAt!), 15, 'America/New_York'),
    );
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
    second = await waitFor(
      async () => {
        const v = await violation(String(other.body.id));
        return v.appealBy ? v : undefined;
      },
      15_000,
      'the second notice served by e-mail',
    );

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

  it('after day 7 the remedy duty is overdue; on day 14 the developer appeals, on day 16 an appeal is refused', async () => {
    await dayOf(8);
    await waitFor(
      async () => (await alerts()).find((a) => a.dueAt === notice.remedyDueAt && a.overdue),
      15_000,
      'the remedy duty overdue',
    );
    await dayOf(14);
    const ok = await api.call(
      'POST',
      `/api/violations/${notice.id}/appeal`,
      { reason: 'The fence was knocked down by the town plow; we ask for a hearing.' },
      dana.write,
    );
    expect(ok.status, JSON.stringify(ok.body)).toBeLessThan(300);
    expect((await violation(notice.id)).status).toBe('appealed');

    await dayOf(16);
    const late = await api.call(
      'POST',
      `/api/violations/${second.id}/appeal`,
      { reason: 'We disagree.' },
      dana.write,
    );
    expect(late.status).toBeGreaterThanOrEqual(400);
    expect(late.status).toBeLessThan(500);
    expect(JSON.stringify(late.body)).toMatch(/15 days/);
    expect((await violation(second.id)).status).toBe('issued');
  });

  it('lifting the order is refused while its notice is open; the developer corrects, the inspector approves (late) and lifts', async () => {
    const refused = await api.call(
      'POST',
      '/api/sites/maple-ridge/stop-work/lift',
      { note: 'Looks better.' },
      ida.write,
    );
    expect(refused.status).toBe(409);
    const corrected = await api.call(
      'POST',
      `/api/violations/${notice.id}/corrected`,
      { note: 'Fence reinstalled, ditch cleaned.', photos: [photo] },
      dana.write,
    );
    expect(corrected.status, JSON.stringify(corrected.body)).toBeLessThan(300);
    await dayOf(17);
    // The approval rests on Ida's re-inspection, made after the correction was reported.
    const approved = await approveOnReinspection(gw.httpUrl, notice.id, ida.write, {
      siteId: 'maple-ridge',
      at: new Date(clock()).toISOString(),
      inspector: 'Ida Inspector',
      note: 'Checked on site.',
    });
    expect(approved.status, JSON.stringify(approved.body)).toBeLessThan(300);
    const v = await violation(notice.id);
    expect(v.status).toBe('approved');
    expect(v.onTime).toBe(false);
    expect(v.events.map((e) => e.kind).filter((k) => k !== 'served')).toEqual([
      'appealed',
      'corrected',
      'approved',
    ]);
    const duty = await waitFor(
      async () => (await alerts()).find((a) => a.dueAt === notice.remedyDueAt && a.status === 'resolved'),
      10_000,
      'the remedy duty resolved',
    );
    expect(duty.withinDeadline).toBe(false);
    // What closed it: the officer's approval of notice no. 1, by whom, as data and in the history.
    const cause = { kind: 'notice', step: 'approved', noticeId: notice.id, number: 1 };
    expect(duty.resolution?.cause).toMatchObject(cause);
    expect(duty.history.find((e) => e.action === 'resolved')?.detail.cause).toMatchObject(cause);
    expect(resolvedWords(duty.resolution!, (t) => t)).toMatch(
      /^Resolved by the officer's approval of notice of violation no\. 1 \(.+, \d{4}-/,
    );
    const lifted = await api.call(
      'POST',
      '/api/sites/maple-ridge/stop-work/lift',
      { note: 'Violation corrected and approved.' },
      ida.write,
    );
    expect(lifted.status, JSON.stringify(lifted.body)).toBeLessThan(300);
    const site = (await api.call('GET', '/api/sites/maple-ridge', undefined, api.admin)).body as {
      stopWork?: unknown;
    };
    expect(site.stopWork ?? null).toBeNull();
  });

  const reportOf = (g: TestGateway) =>
    checkpointedReport(
      g.httpUrl,
      `siteId=maple-ridge&from=${iso(t0 - DAY).slice(0, 10)}&to=${iso(t0 + 19 * DAY).slice(0, 10)}&format=json`,
      api.admin,
    );

  it('the report of the period shows all of it and verifies', async () => {
    const key = String((await api.call('GET', '/api/evidence/key', undefined, api.admin)).body.verifierKey);
    const text = await reportOf(gw);
    expect(text).toContain(photo);
    expect(text).toContain('Fence down for 40 ft');
    expect(text).toContain(notice.id);
    expect(text).toContain('The fence was knocked down by the town plow');
    expect(text).toContain('Sediment leaving the site at the north boundary.');
    expect(text).toContain('Violation corrected and approved.');
    const v = await verifyReport(readReport(JSON.parse(text)), key);
    expect(v.problems).toEqual([]);
    expect(v.ok).toBe(true);
    expect(v.checked).toMatchObject({ violations: 2, stopWork: 1 });
    // `npm run verify` says so too, as a clerk without the gateway would run it.
    const file = join(dataDir, 'report.json');
    writeFileSync(file, text);
    const cli = await promisify(execFile)('npx', ['tsx', 'gateway/src/tools/verify.ts', file, '--key', key], {
      cwd: join(import.meta.dirname, '../..'),
    });
    expect(cli.stdout).toMatch(/^verified$/m);
    expect(cli.stdout).toContain('2 notices of violation and 1 stop-work order, each as logged.');

    // A finding changed in a copy of the store: the report made from it does not verify, and says where.
    const finding = await tamperedReport([
      'DROP TRIGGER IF EXISTS inspections_no_update',
      `UPDATE inspections SET findings = replace(findings, '"violation"', '"ok"')`,
    ]);
    expect(finding.warnings.join('\n')).toMatch(/inspections record \d+ was changed after it was logged/);
    const bad = await verifyReport(readReport(finding.report), key);
    expect(bad.ok).toBe(false);
    expect(bad.problems.map((p) => p.field).join(' ')).toMatch(/inspections\[0\]/);

    // A notice's remedy moved a week later behind the gateway's back: its own check says so in the report.
    const remedy = await tamperedReport([
      ...dropTriggers('violations'),
      `UPDATE violations SET remedy_due_at = remedy_due_at + ${7 * DAY} WHERE seq = 1`,
    ]);
    expect(remedy.warnings.join('\n')).toMatch(/violations record 1 was changed after it was logged/);
    // And the verifier, with nothing but the report and the key, names the notice and what differs.
    const moved = await verifyReport(readReport(remedy.report), key);
    expect(moved.ok).toBe(false);
    expect(moved.problems.map((p) => p.message).join('\n')).toMatch(
      /notice of violation no\. 1 of Maple Ridge subdivision: its remedy due is not what its log entry says/,
    );
  });

  /** The triggers that keep a table append-only, to drop in a copy. */
  const dropTriggers = (table: string) => {
    const db = new Database(join(gw.dataDir, 'gateway.db'), { readonly: true });
    try {
      return (
        db.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?`).all(table) as {
          name: string;
        }[]
      ).map((t) => `DROP TRIGGER ${t.name}`);
    } finally {
      db.close();
    }
  };

  /** The report of the period from a copy of the store changed by `sql`, made by a gateway on that copy. */
  async function tamperedReport(sql: string[]): Promise<{ report: unknown; warnings: string[] }> {
    const copy = mkdtempSync(join(tmpdir(), 'gw-enforcement-copy-'));
    try {
      cpSync(gw.dataDir, copy, { recursive: true });
      const db = new Database(join(copy, 'gateway.db'));
      for (const q of sql) db.exec(q);
      db.close();
      const other = await startTestGateway(config(await freePort()) as never, { dataDir: copy, now: clock });
      try {
        const report = JSON.parse(await reportOf(other)) as { warnings: string[] };
        return { report, warnings: report.warnings };
      } finally {
        await other.cleanup();
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }
});
