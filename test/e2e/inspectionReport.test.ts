/**
 * An inspection's report delivered to the Stormwater Management Officer (town law 001, Maintenance during
 * construction, A(2): "The reports shall be delivered to the Stormwater Management Officer"): by e-mail
 * through the real SMTP test server to the site's officer only, with the findings and the photos' links;
 * on the officer's agenda on the day it was recorded; and "delivered" with its channel and time on the
 * inspection as GET /api/inspections lists it.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { jpegBytes, postPhoto } from '../helpers/photos.ts';
import { parseMail, startSmtp, type TestSmtpServer } from '../notify/support.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const T0 = Date.parse('2026-06-10T14:00:00Z');
const insp = { authorization: 'Bearer tok-insp' };
const json = { ...insp, 'content-type': 'application/json' };

describe("an inspection's report delivered to the officer", () => {
  let gw: TestGateway;
  let smtp: TestSmtpServer;
  let photo: string;
  let inspectionId: string;

  beforeAll(async () => {
    smtp = await startSmtp();
    gw = await startTestGateway(
      {
        notify: { smtp: { host: '127.0.0.1', port: smtp.port, secure: false, from: 'gw@town.test' } },
        sites: [
          {
            id: 'maple-ridge',
            name: 'Maple Ridge',
            kind: 'construction',
            timezone: 'America/New_York',
            practices: [
              { id: 'silt-north', label: 'Silt fence, north boundary', kind: 'silt-fence' },
              { id: 'inlet-1', label: 'Inlet protection, Elm St.', kind: 'inlet-protection' },
            ],
            recipients: [
              { role: 'officer', name: 'Sam Officer', email: 'smo@town.test' },
              { role: 'developer', name: 'Dee Developer', email: 'dev@ridge.test' },
            ],
            devices: [],
          },
        ],
        auth: { tokens: [{ name: 'Ian Inspector', role: 'inspector', tokenSha256: sha('tok-insp') }] },
      },
      { now: () => T0 },
    );
    photo = String((await postPhoto(gw.httpUrl, jpegBytes('inlet clogged'), 'image/jpeg', insp)).body.sha256);
    const r = await fetch(`${gw.httpUrl}/api/inspections`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        siteId: 'maple-ridge',
        at: new Date(T0 - 3_600_000).toISOString(),
        kind: 'routine',
        inspector: 'Ian Inspector',
        notes: 'Weekly walk.',
        // Entered for the developer: the developer's report is the one delivered to the officer.
        side: 'developer',
        findings: [
          { practice: 'silt-north', status: 'ok' },
          { practice: 'inlet-1', status: 'violation', note: 'Clogged with sediment', photos: [photo] },
        ],
      }),
    });
    expect(r.status).toBe(201);
    inspectionId = ((await r.json()) as { inspection: { id: string } }).inspection.id;
  });
  afterAll(async () => {
    await gw?.cleanup();
    await smtp?.close();
  });

  const reports = () =>
    smtp.messages
      .map((m) => ({ to: m.to, ...parseMail(m.raw) }))
      .filter((m) => m.headers['x-gateway-event'] === 'inspection-report');

  it('is e-mailed to the officer alone, with its findings and the links to its photos', async () => {
    await waitFor(() => reports().length >= 1 || undefined, 15_000, 'the report by e-mail');
    const mails = reports();
    expect(mails.flatMap((m) => m.to)).toEqual(['smo@town.test']);
    const text = mails[0]!.text;
    expect(text).toContain('INSPECTION REPORT: Maple Ridge');
    expect(text).toContain('Inspected Jun 10, 2026, 9:00 AM EDT by Ian Inspector (routine)');
    expect(text).toContain('- inlet-1: violation: Clogged with sediment');
    expect(text).toContain(`/api/photos/${photo}`);
    expect(text).toContain(inspectionId);
  });

  it('shows "delivered" on the inspection: on the agenda at its recording, by e-mail when sent', async () => {
    type Listed = Array<{ id: string; deliveries?: Array<Record<string, unknown>> }>;
    const delivered = await waitFor(
      async () => {
        const r = await fetch(`${gw.httpUrl}/api/inspections?siteId=maple-ridge`, { headers: insp });
        const [i] = (await r.json()) as Listed;
        return i?.deliveries?.some((d) => d.channel === 'email' && d.status === 'delivered') ? i : undefined;
      },
      15_000,
      'the e-mail delivery on record',
    );
    expect(delivered.id).toBe(inspectionId);
    expect(delivered.deliveries).toEqual([
      { channel: 'agenda', to: "the officer's agenda", status: 'delivered', at: new Date(T0).toISOString() },
      { channel: 'email', to: 'smo@town.test', status: 'delivered', at: expect.any(String) },
    ]);
  });

  it("is on the officer's agenda on the day it was recorded", async () => {
    const r = await fetch(`${gw.httpUrl}/api/agenda?from=2026-06-10&to=2026-06-11`, { headers: insp });
    const agenda = (await r.json()) as {
      days: Array<{ day: string; items: Array<Record<string, unknown>> }>;
    };
    const items = agenda.days.find((d) => d.day === '2026-06-10')!.items.filter((i) => i.kind === 'report');
    expect(items).toEqual([
      expect.objectContaining({
        ref: inspectionId,
        label: 'Inspection report',
        detail:
          'Inspection report of Jun 10, 2026, 9:00 AM EDT by Ian Inspector at Maple Ridge: 2 findings, 1 photo',
      }),
    ]);
  });
});
