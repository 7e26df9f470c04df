/**
 * Notices of violation and stop-work orders over HTTP against the real gateway (town law 001,
 * Enforcement): issue and its refusals, a service by mail recorded (the appeal window runs from it), the
 * appeal within 15 days of service (day 14 accepted, day 16 refused, on the gateway's own clock), correction and approval on time and late with the remedy duty's
 * outcome, the duty due at the notice's remedy time and overdue after it, and the stop-work order's
 * lifting refused while a notice it names is open. The days pass by restarting the gateway on the same
 * store with its clock moved (a start is never a clock jump; a jump while running is held back as a fault).
 */

import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPageOf } from '../../../shared/src/links.ts';
import { approveOnReinspection, reinspect } from '../../helpers/approval.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { PASSWORD, peopleApi } from '../../helpers/people.ts';
import { jpegBytes, PNG_1X1, postPhoto } from '../../helpers/photos.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const DAY = 86_400_000;
const T0 = Date.parse('2026-06-10T14:00:00Z');
const at = (ms: number) => new Date(ms).toISOString();

describe('notices of violation and stop-work orders', () => {
  let gw: TestGateway;
  let api: ReturnType<typeof peopleApi>;
  let now = T0;
  const bearer = (t: string): Record<string, string> => ({ authorization: `Bearer ${t}` });
  const insp = bearer('tok-insp');
  let owner: Record<string, string>;
  let otherOwner: Record<string, string>;

  const dataDir = mkdtempSync(join(tmpdir(), 'gw-violations-'));
  const config = {
    sites: [
      {
        id: 'maple-ridge',
        name: 'Maple Ridge',
        kind: 'construction' as const,
        timezone: 'America/New_York',
        landowner: { name: 'Pat Landowner', address: '1 Elm St, Chester NY', email: 'pat@land.example' },
        developer: { name: 'Ridge Builders LLC', address: '9 Main St, Chester NY' },
        address: 'Lot 12, Maple Ridge Road',
        devices: [],
      },
      { id: 'birch-hill', name: 'Birch Hill', kind: 'construction' as const, devices: [] },
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
  /** (Re)starts the gateway on the store with its clock at `t`, and signs the owners in again. */
  const startAt = async (t: number) => {
    await gw.cleanup();
    now = t;
    gw = await startTestGateway(config, { dataDir, now: () => now });
    api = peopleApi(gw.httpUrl, 'tok-admin');
    owner = (await api.signIn('dana@maple.example')).write;
    otherOwner = (await api.signIn('bo@birch.example')).write;
  };

  beforeAll(async () => {
    gw = await startTestGateway(config, { dataDir, now: () => now });
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
    await startAt(T0);
  });
  afterAll(async () => {
    await gw?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = (method: string, path: string, body: unknown, headers: Record<string, string>) =>
    api.call(method, path, body, headers);
  const issue = (body: Record<string, unknown>, headers = insp) =>
    call('POST', '/api/violations', { siteId: 'maple-ridge', ...body }, headers);
  const base = {
    nature: 'Silt fence along the east boundary is down; sediment leaves the site.',
    remedy: 'Re-install and re-trench the silt fence along the east boundary.',
  };
  const remedyAlert = async (violationId: string) => {
    const r = await fetch(`${gw.httpUrl}/api/alerts?siteId=maple-ridge`);
    const list = (await r.json()) as Array<Record<string, unknown>>;
    return list.find(
      (a) =>
        a.rule === 'violation-remedy' && (a.evidence as Record<string, unknown>).violationId === violationId,
    );
  };

  it('refuses what the law does not allow, in words', async () => {
    const due = at(T0 + 7 * DAY);
    const viewer = await issue({ ...base, remedyDueAt: due }, bearer('tok-viewer'));
    expect(viewer.status).toBe(403);
    const byOwner = await issue({ ...base, remedyDueAt: due }, owner);
    expect(byOwner.status).toBe(403);
    // A wastewater system's notices are its law's (000); without an owner on record, none is issued.
    const septic = await issue({ ...base, siteId: 'oak-lane', remedyDueAt: due });
    expect([septic.status, septic.body.error]).toEqual([409, 'NO_PARTIES']);
    const notItsLaw = await issue({ ...base, remedyDueAt: due, orderKind: 'cease-use' });
    expect([notItsLaw.status, notItsLaw.body.field]).toEqual([400, 'orderKind']);
    const noParties = await issue({ ...base, siteId: 'birch-hill', remedyDueAt: due });
    expect([noParties.status, noParties.body.error]).toEqual([409, 'NO_PARTIES']);
    expect(noParties.body.message).toBe(
      "The site has no landowner or developer on record: add them on the site's page.",
    );
    const past = await issue({ ...base, remedyDueAt: at(T0 - DAY) });
    expect(past.status).toBe(400);
    expect(past.body.message).toMatch(/must be due after now/);
    // A remedy date as far ahead as the calendar goes was taken before; two years is the bound now.
    const never = await issue({ ...base, remedyDueAt: '9999-12-31T00:00:00Z' });
    expect([never.status, never.body.error, never.body.field]).toEqual([400, 'BAD_REQUEST', 'remedyDueAt']);
    expect(never.body.message).toBe(
      `The remedial measures can be due at most two years ahead, by ${at(T0 + 731 * DAY).slice(0, 10)}: give an earlier date.`,
    );
    const twoYears = await issue({ ...base, remedyDueAt: at(T0 + 732 * DAY) });
    expect(twoYears.status).toBe(400);
    const inspection = await call(
      'POST',
      '/api/inspections',
      {
        siteId: 'birch-hill',
        at: at(T0 - DAY),
        kind: 'routine',
        inspector: 'Ian Inspector',
        notes: 'Walked it.',
      },
      insp,
    );
    expect(inspection.status).toBe(201);
    const birchInspection = (inspection.body.inspection ?? inspection.body) as { id: string };
    const wrong = await issue({ ...base, remedyDueAt: due, inspectionId: birchInspection.id });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/another site/);
    const none = await fetch(`${gw.httpUrl}/api/violations?siteId=maple-ridge`);
    expect(await none.json()).toEqual([]);
  });

  let first: { id: string; issuedAt: string };
  let second: { id: string };
  let third: { id: string };
  let fourth: { id: string };
  /** Records a service by mail at `t` (the officer's), which starts the appeal window. */
  const serveByMail = (id: string, t: number) =>
    call(
      'POST',
      `/api/violations/${id}/service`,
      { method: 'mail', party: 'Pat Landowner', servedAt: at(t) },
      insp,
    );
  it('issues a notice not yet served, raises its remedy duty; a service by mail starts 15 local days', async () => {
    const r = await issue({ ...base, remedyDueAt: at(T0 + 10 * DAY) });
    expect(r.status).toBe(201);
    first = r.body as typeof first;
    expect(r.body).toEqual({
      id: expect.stringMatching(/^nov-/),
      law: '001',
      issuedAt: at(T0),
      // Law 001's own 15 days from service.
      appealDays: 15,
      status: 'issued',
      documentUrl: `/api/violations/${first.id}/document`,
    });
    const got = await fetch(`${gw.httpUrl}/api/violations/${first.id}`);
    const v = (await got.json()) as Record<string, unknown>;
    // Nothing was delivered (no e-mail here): not served, no appeal window yet.
    expect(v.servedAt).toBeUndefined();
    expect(v.appealBy).toBeUndefined();
    const served = await serveByMail(first.id, T0);
    expect(served.status).toBe(200);
    // June 10, 10:00 EDT + 15 days: the end of June 25 in New York, 04:00 UTC on the 26th.
    expect(served.body).toMatchObject({
      servedAt: at(T0),
      appealBy: '2026-06-26T04:00:00.000Z',
      events: [{ kind: 'served', method: 'mail', party: 'Pat Landowner', servedAt: at(T0) }],
    });
    const early = await serveByMail(first.id, T0 - DAY);
    expect([early.status, early.body.field]).toEqual([400, 'servedAt']);
    const ahead = await serveByMail(first.id, T0 + DAY);
    expect([ahead.status, ahead.body.field]).toEqual([400, 'servedAt']);
    expect(v).toMatchObject({
      siteId: 'maple-ridge',
      status: 'issued',
      issuedBy: 'Ian Inspector',
      landowner: { name: 'Pat Landowner', address: '1 Elm St, Chester NY' },
      developer: { name: 'Ridge Builders LLC' },
      siteAddress: 'Lot 12, Maple Ridge Road',
      penalties: expect.stringContaining('$250'),
    });
    expect(typeof v.logIndex).toBe('number');
    const alert = await remedyAlert(first.id);
    expect(alert).toMatchObject({ status: 'open', dueAt: at(T0 + 10 * DAY), overdue: false });
    const more = (nature: string, days: number) =>
      issue({ ...base, nature, remedyDueAt: at(T0 + days * DAY) }).then((x) => x.body as { id: string });
    second = await more('Inlet protection missing at the north inlet.', 3);
    third = await more('Concrete washout into the swale.', 30);
    fourth = await more('No stabilized construction entrance.', 30);
    for (const n of [second, third, fourth]) expect((await serveByMail(n.id, T0)).status).toBe(200);
  });

  it('records a correction with photos and the approval on time; the duty is resolved on time', async () => {
    await startAt(T0 + 5 * DAY);
    // Past its remedy time, unapproved: the second notice's duty is overdue.
    const overdue = await remedyAlert(second.id);
    expect(overdue).toMatchObject({ status: 'open', overdue: true });
    // Nobody closes it by hand with a note: only the officer's approval of the correction does.
    const byHand = await call('POST', `/api/alerts/${String(overdue?.id)}/resolve`, { note: 'Done.' }, insp);
    expect([byHand.status, byHand.body.error]).toEqual([409, 'NOT_BY_HAND']);
    expect(String(byHand.body.message)).toMatch(/approves the correction/);
    expect(await remedyAlert(second.id)).toMatchObject({ status: 'open', overdue: true });
    // Nothing to approve before a correction is reported.
    const tooSoon = await call('POST', `/api/violations/${first.id}/approve`, {}, insp);
    expect([tooSoon.status, tooSoon.body.error]).toEqual([409, 'NOT_CORRECTED']);
    expect(tooSoon.body.message).toBe(
      'No correction of this notice is reported yet: approval is offered once the owner or contractor reports the correction.',
    );
    // Another owner's upload (for their own site) is not this owner's to cite.
    const theirs = await postPhoto(gw.httpUrl, jpegBytes('birch'), 'image/jpeg', otherOwner, 'birch-hill');
    expect(theirs.status).toBe(200);
    const notMine = await call(
      'POST',
      `/api/violations/${first.id}/corrected`,
      { note: 'Fence re-installed.', photos: [theirs.body.sha256] },
      owner,
    );
    expect([notMine.status, notMine.body.error]).toEqual([400, 'UNKNOWN_PHOTO']);
    expect(notMine.body.message).toBe('A photo named here is not stored: upload it first.');
    // A photo the gateway does not have is refused; one sent first is cited.
    const unknown = await call(
      'POST',
      `/api/violations/${first.id}/corrected`,
      { note: 'Fence re-installed and trenched.', photos: ['a'.repeat(64)] },
      owner,
    );
    expect(unknown.status).toBe(400);
    const up = await fetch(`${gw.httpUrl}/api/photos?siteId=maple-ridge`, {
      method: 'POST',
      headers: { ...owner, 'content-type': 'image/png' },
      body: PNG_1X1,
    });
    expect(up.status).toBe(200);
    const photo = ((await up.json()) as { sha256: string }).sha256;
    const corrected = await call(
      'POST',
      `/api/violations/${first.id}/corrected`,
      { note: 'Fence re-installed and trenched.', photos: [photo] },
      owner,
    );
    expect(corrected.status).toBe(200);
    expect(corrected.body.status).toBe('corrected');
    expect((corrected.body.events as unknown[]).at(-1)).toMatchObject({ kind: 'corrected', photos: [photo] });
    const byOwner = await call('POST', `/api/violations/${first.id}/approve`, {}, owner);
    expect(byOwner.status).toBe(403);
    // The approval rests on a re-inspection of this site made after the correction was reported.
    const approve = (body: Record<string, unknown>) =>
      call('POST', `/api/violations/${first.id}/approve`, body, insp);
    const without = await approve({ note: 'Seen on site.' });
    expect([without.status, without.body.error, without.body.field]).toEqual([
      409,
      'REINSPECTION_NEEDED',
      'inspectionId',
    ]);
    expect(without.body.message).toBe(
      'The approval rests on a re-inspection made after the correction was reported (Jun 15, 2026, 10:00 AM EDT): record the re-inspection first, then choose it.',
    );
    const unknownInspection = await approve({ inspectionId: 'insp-none' });
    expect(unknownInspection.body.message).toBe(
      'The inspection named is not on record: choose a re-inspection of this site.',
    );
    const elsewhere = await reinspect(gw.httpUrl, insp, 'birch-hill', { at: at(now) });
    const otherSite = await approve({ inspectionId: elsewhere });
    expect([otherSite.status, otherSite.body.error]).toEqual([409, 'REINSPECTION_NEEDED']);
    expect(otherSite.body.message).toMatch(/of another site/);
    const early = await reinspect(gw.httpUrl, insp, 'maple-ridge', { at: at(now - DAY) });
    const tooEarly = await approve({ inspectionId: early });
    expect(tooEarly.body.message).toBe(
      'The inspection named was made Jun 14, 2026, 10:00 AM EDT, before the correction was reported (Jun 15, 2026, 10:00 AM EDT): the approval rests on a re-inspection made after it.',
    );
    expect((await fetch(`${gw.httpUrl}/api/violations/${first.id}`).then((r) => r.json())).status).toBe(
      'corrected',
    );
    const reinspection = await reinspect(gw.httpUrl, insp, 'maple-ridge', {
      at: at(now),
      inspector: 'Ivy Inspector',
    });
    const ok = await approve({ note: 'Seen on site.', inspectionId: reinspection });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'approved', onTime: true });
    expect((ok.body.events as unknown[]).at(-1)).toMatchObject({
      kind: 'approved',
      text: 'Seen on site.',
      inspectionId: reinspection,
      inspectedAt: at(now),
      inspectedBy: 'Ivy Inspector',
      logIndex: expect.any(Number),
    });
    expect(await remedyAlert(first.id)).toMatchObject({ status: 'resolved', withinDeadline: true });
    const after = await call('POST', `/api/violations/${first.id}/corrected`, { note: 'More.' }, owner);
    expect([after.status, after.body.error]).toEqual([409, 'VIOLATION_CLOSED']);
  });

  it('accepts an appeal on day 14 from the site owner, once; another site owner cannot; a late approval', async () => {
    await startAt(T0 + 14 * DAY);
    const stranger = await call('POST', `/api/violations/${third.id}/appeal`, { reason: 'No.' }, otherOwner);
    expect(stranger.status).toBe(404);
    const r = await call(
      'POST',
      `/api/violations/${third.id}/appeal`,
      { reason: 'The washout is the neighbour’s.' },
      owner,
    );
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('appealed');
    expect(r.body.events).toMatchObject([
      { kind: 'served' },
      { kind: 'appealed', by: 'Dana Developer', at: at(T0 + 14 * DAY) },
    ]);
    // Under 001 the appeal goes to the Town: no hearing is recorded here.
    const hearing = await call(
      'POST',
      `/api/violations/${third.id}/hearing`,
      { heldOn: '2026-06-20', outcome: 'upheld', note: 'Upheld.' },
      insp,
    );
    expect([hearing.status, hearing.body.error]).toEqual([409, 'NO_HEARING']);
    const again = await call('POST', `/api/violations/${third.id}/appeal`, { reason: 'Again.' }, owner);
    expect([again.status, again.body.error]).toEqual([409, 'ALREADY_APPEALED']);

    const fixed = await call(
      'POST',
      `/api/violations/${second.id}/corrected`,
      { note: 'Inlet protected.' },
      owner,
    );
    expect(fixed.status).toBe(200);
    const late = await approveOnReinspection(gw.httpUrl, second.id, bearer('tok-admin'), {
      siteId: 'maple-ridge',
      at: at(now),
    });
    expect(late.body).toMatchObject({ status: 'approved', onTime: false });
    expect(await remedyAlert(second.id)).toMatchObject({ status: 'resolved', withinDeadline: false });
    const approved = await fetch(`${gw.httpUrl}/api/violations?siteId=maple-ridge&status=approved`);
    expect(((await approved.json()) as unknown[]).length).toBe(2);
  });

  it('refuses an appeal on day 16, naming the day the 15 days ended', async () => {
    await startAt(T0 + 16 * DAY);
    const r = await call('POST', `/api/violations/${fourth.id}/appeal`, { reason: 'Late.' }, owner);
    expect([r.status, r.body.error]).toEqual([409, 'APPEAL_CLOSED']);
    expect(r.body.message).toBe(
      'The 15 days to appeal to the Town ended at the end of June 25, 2026: the appeal cannot be recorded.',
    );
  });

  it('a stop-work order: one at a time, lifted only once its notice is approved or with an override', async () => {
    const byViewer = await call(
      'POST',
      '/api/sites/maple-ridge/stop-work',
      { reason: 'x' },
      bearer('tok-viewer'),
    );
    expect(byViewer.status).toBe(403);
    const order = await call(
      'POST',
      '/api/sites/maple-ridge/stop-work',
      { reason: 'Sediment leaving the site.', violationId: third.id },
      insp,
    );
    expect(order.status).toBe(201);
    expect(order.body).toMatchObject({ siteId: 'maple-ridge', since: at(now), violationIds: [third.id] });
    const again1 = await call('POST', '/api/sites/maple-ridge/stop-work', { reason: 'Again.' }, insp);
    expect([again1.status, again1.body.error]).toEqual([409, 'STOP_WORK_IN_EFFECT']);
    const site = await fetch(`${gw.httpUrl}/api/sites/maple-ridge`);
    expect(((await site.json()) as { stopWork: { id: string } }).stopWork.id).toBe(order.body.id);

    const refused = await call('POST', '/api/sites/maple-ridge/stop-work/lift', { note: 'Done?' }, insp);
    expect([refused.status, refused.body.error]).toEqual([409, 'NOTICES_OPEN']);
    expect(refused.body.message).toContain('Concrete washout into the swale.');
    expect(refused.body.message).toMatch(/the notice of violation of [A-Z][a-z]+ \d{1,2}, \d{4} \(/);
    const overridden = await call(
      'POST',
      '/api/sites/maple-ridge/stop-work/lift',
      { note: 'The town lifts it for the emergency repair.', override: true },
      insp,
    );
    expect(overridden.status).toBe(200);
    expect(overridden.body).toMatchObject({ liftedBy: 'Ian Inspector', override: true, liftedAt: at(now) });
    const none = await call('POST', '/api/sites/maple-ridge/stop-work/lift', { note: 'Again.' }, insp);
    expect([none.status, none.body.error]).toEqual([409, 'NO_STOP_WORK']);

    // A new order on the same notice, lifted after its approval with no override.
    const again = await call(
      'POST',
      '/api/sites/maple-ridge/stop-work',
      { reason: 'Washout again.', violationId: third.id },
      insp,
    );
    expect(again.status).toBe(201);
    expect(
      (await call('POST', `/api/violations/${third.id}/corrected`, { note: 'Washout cleaned.' }, owner))
        .status,
    ).toBe(200);
    const approved = await approveOnReinspection(gw.httpUrl, third.id, insp, {
      siteId: 'maple-ridge',
      at: at(now),
    });
    expect(approved.status).toBe(200);
    const lifted = await call('POST', '/api/sites/maple-ridge/stop-work/lift', { note: 'Compliant.' }, insp);
    expect(lifted.status).toBe(200);
    expect(lifted.body.override).toBeUndefined();
    const list = await fetch(`${gw.httpUrl}/api/sites/maple-ridge/stop-work`);
    const orders = (await list.json()) as Array<Record<string, unknown>>;
    expect(orders.map((o) => [o.reason, o.override ?? false, typeof o.liftedAt])).toEqual([
      ['Sediment leaving the site.', true, 'string'],
      ['Washout again.', false, 'string'],
    ]);
    const siteAfter = await fetch(`${gw.httpUrl}/api/sites/maple-ridge`);
    expect(((await siteAfter.json()) as { stopWork: unknown }).stopWork).toBeNull();
  });

  it('lists notices by status a full page at a time, filtered as they are read', async () => {
    const all = (await (await fetch(`${gw.httpUrl}/api/violations?limit=500`)).json()) as Array<{
      id: string;
      status: string;
    }>;
    const byStatus = new Map<string, string[]>();
    for (const v of all) byStatus.set(v.status, [...(byStatus.get(v.status) ?? []), v.id]);
    expect(byStatus.size).toBeGreaterThan(1);
    for (const [status, ids] of byStatus) {
      // One a page: every page holds one notice of the status, and the pages hold them all.
      const seen: string[] = [];
      let next: string | undefined = `/api/violations?status=${status}&limit=1`;
      while (next) {
        const r: Response = await fetch(`${gw.httpUrl}${next}`);
        const page = (await r.json()) as Array<{ id: string; status: string }>;
        next = nextPageOf(r.headers.get('link'));
        expect(page).toHaveLength(1);
        expect(page[0]!.status).toBe(status);
        seen.push(page[0]!.id);
      }
      expect(seen).toEqual(ids);
    }
  });
});
