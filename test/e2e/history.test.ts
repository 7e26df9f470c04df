/**
 * Sites that arrive with their history, and clocks that restart from a late-logged inspection, over a real
 * gateway and its HTTP API. The gateway's clock is set to 2026-12-02 10:00 EST: a site added with its last
 * routine inspection 3 days ago is due by the end of the 4th day from now (the 7th day after the
 * inspection's, whole); an inspection dated 2 days ago on a site whose clock started now makes the next due
 * by the end of the 5th day from now, the period opened for "no inspection on record" closed as superseded
 * by the record; one older than 7 days is overdue at once; a period across the November change of daylight
 * saving time ends at local midnight EST; an alternative system added in December with this
 * year's annual inspection on record is not overdue; a pump-out date starts the 2- and 3-year clock. The history
 * records are change records with their evidence-log entries, listed in the compliance report, which the
 * verifier checks.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReportJson, verifyReport } from '../../gateway/src/verifier/verify.ts';
import { waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { completeInspection } from '../helpers/inspections.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const ADMIN = 'tok-history-admin';
const H = 3_600_000;
const DAY = 24 * H;
/** The gateway's "now" at its start: 2026-12-02 10:00 EST. */
const START = Date.parse('2026-12-02T15:00:00Z');
const iso = (t: number) => new Date(t).toISOString();

interface Alert {
  id: string;
  rule: string;
  siteId: string;
  status: string;
  overdue: boolean;
  raisedAt: string;
  dueAt: string | null;
  resolvedAt?: string;
  withinDeadline?: boolean;
  message: string;
  resolution?: { how: string; evidence: Record<string, unknown> };
}
interface Change {
  entity: string;
  action: string;
  by: string;
  new: unknown;
  at: string;
  effectiveAt: string;
  logIndex: number;
  leafHash: string;
}

describe('sites with their history; clocks from late-logged inspections (real gateway)', () => {
  let gw: TestGateway;
  let now: number;
  const offset = START - Date.now();
  const clock = () => Date.now() + offset;

  const call = async <T>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${gw.httpUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: (text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text) as T,
    };
  };
  const alerts = async (siteId: string, rule: string) =>
    (await call<Alert[]>('GET', `/api/alerts?siteId=${siteId}&rule=${rule}`)).body;
  /** The site's alerts of a rule once `ok` holds of them. */
  const until = (siteId: string, rule: string, ok: (a: Alert[]) => boolean, what: string) =>
    waitFor(
      async () => {
        const a = await alerts(siteId, rule);
        return ok(a) ? a : undefined;
      },
      10_000,
      what,
    );
  // The admin's token records the developer's inspections: each site lists it as acting for the developer.
  const addSite = async (body: Record<string, unknown>) => {
    const r = await call<Record<string, unknown>>('POST', '/api/sites', {
      developerInspectors: ['Ada Admin'],
      ...body,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body;
  };
  const inspect = async (siteId: string, at: number, kind = 'routine') => {
    const r = await call<{ closedAlertIds: string[] }>(
      'POST',
      '/api/inspections',
      completeInspection({
        siteId,
        at: iso(at),
        inspector: 'Ida Inspector',
        kind: kind as 'routine',
        notes: 'entered from the site logbook',
      }),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body;
  };

  beforeAll(async () => {
    gw = await startTestGateway(
      {
        timezone: 'America/New_York',
        auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN) }] },
        evidence: { checkpointIntervalSeconds: 1 },
      } as never,
      { now: clock },
    );
    now = clock();
  });
  afterAll(() => gw?.cleanup());

  it('a site added with its last routine inspection 3 days ago is due by the end of the 4th day from now', async () => {
    const last = now - 3 * DAY;
    const site = await addSite({
      id: 'elm-st',
      name: 'Elm Street lots',
      kind: 'construction',
      history: { lastRoutineInspection: iso(last) },
    });
    expect(site.history).toEqual({ lastRoutineInspection: iso(last) });
    const [a] = await until('elm-st', 'routine-inspection', (x) => x.length === 1, 'the routine duty');
    // November 29 10:00 EST: the 7th day after it, December 6, is whole.
    expect(a).toMatchObject({
      status: 'open',
      overdue: false,
      raisedAt: iso(last),
      dueAt: iso(Date.parse('2026-12-07T00:00:00-05:00') - 1),
    });
  });

  it('an inspection dated 2 days ago on a site whose clock started now: next due by the end of the 5th day from now; the old period superseded', async () => {
    // Maple Ridge (the configuration's) had no inspection on record: its clock started at the first tick.
    const [first] = await until(
      'maple-ridge',
      'routine-inspection',
      (x) => x.length === 1,
      'its first period',
    );
    expect(Date.parse(first!.raisedAt)).toBeGreaterThanOrEqual(now - 60_000);
    const res = await inspect('maple-ridge', now - 2 * DAY);
    expect(res.closedAlertIds).toContain(first!.id);
    const all = await until('maple-ridge', 'routine-inspection', (x) => x.length === 2, 'the next period');
    const old = all.find((x) => x.id === first!.id)!;
    const next = all.find((x) => x.id !== first!.id)!;
    expect(old).toMatchObject({ status: 'resolved', resolvedAt: first!.raisedAt });
    expect(old.withinDeadline).toBeUndefined();
    expect(old.resolution?.evidence).toMatchObject({ superseded: true });
    expect(old.resolution?.evidence.onTime).toBeUndefined();
    expect(next).toMatchObject({ status: 'open', overdue: false, raisedAt: iso(now - 2 * DAY) });
    expect(next.dueAt).toBe(iso(Date.parse('2026-12-08T00:00:00-05:00') - 1));
  });

  it('a late-logged inspection older than 7 days: overdue at once', async () => {
    await addSite({ id: 'birch-rd', kind: 'construction' });
    await until('birch-rd', 'routine-inspection', (x) => x.length === 1, 'its first period');
    await inspect('birch-rd', now - 9 * DAY);
    const all = await until(
      'birch-rd',
      'routine-inspection',
      (x) => x.some((a) => a.status === 'open' && a.overdue),
      'an overdue period',
    );
    const open = all.find((a) => a.status === 'open')!;
    // November 23: due by the end of November 30.
    expect(open).toMatchObject({
      raisedAt: iso(now - 9 * DAY),
      dueAt: iso(Date.parse('2026-12-01T00:00:00-05:00') - 1),
      overdue: true,
    });
  });

  it('a period across the November change of daylight saving time ends at local midnight EST', async () => {
    // Oct 30 10:00 EDT: due by the end of Nov 6, EST (the clocks went back on Nov 1).
    const last = Date.parse('2026-10-30T14:00:00Z');
    await addSite({ id: 'dst-lot', kind: 'construction', history: { lastRoutineInspection: iso(last) } });
    const [a] = await until('dst-lot', 'routine-inspection', (x) => x.length === 1, 'the routine duty');
    expect(a).toMatchObject({ raisedAt: iso(last), dueAt: '2026-11-07T04:59:59.999Z', overdue: true });
    expect(a!.message).toContain('2026-11-06 23:59 EST');
  });

  it("an alternative system added in December with this year's annual inspection on record is not overdue", async () => {
    // The configuration's Oak Lane has no history: its 2026 duty (due by the end of July 31) is overdue.
    const [plain] = await until('oak-lane', 'annual-inspection', (x) => x.length === 1, "Oak Lane's year");
    expect(plain).toMatchObject({ status: 'open', overdue: true, dueAt: '2026-08-01T03:59:59.999Z' });
    const july = Date.parse('2026-07-10T14:00:00Z');
    await addSite({
      id: 'oak-hollow',
      kind: 'alternative-system',
      history: { lastAnnualInspection: iso(july) },
    });
    const [a] = await until('oak-hollow', 'annual-inspection', (x) => x.length === 1, 'its year');
    expect(a).toMatchObject({
      status: 'resolved',
      overdue: false,
      resolvedAt: iso(july),
      withinDeadline: true,
    });
  });

  it('a pump-out date starts the clock: the reminder at 2 years, due at the end of the day 3 years on', async () => {
    const pumped = Date.parse('2023-06-01T16:00:00Z');
    await addSite({ id: 'pine-tank', kind: 'septic', history: { lastPumpOut: iso(pumped) } });
    const dev = await call('POST', '/api/sites/pine-tank/devices', {
      id: 'tank-1',
      kind: 'septic-tank',
      liquidDepthIn: 60,
    });
    expect(dev.status).toBe(201);
    const [a] = await until('pine-tank', 'septic-pumping', (x) => x.length === 1, 'the time alert');
    // Pumped at noon EDT on June 1, 2023: reminded from the start of June 1, 2025, due by the end of
    // June 1, 2026 (its last instant), past in December.
    expect(a).toMatchObject({
      status: 'open',
      raisedAt: '2025-06-01T04:00:00.000Z',
      dueAt: '2026-06-02T03:59:59.999Z',
      overdue: true,
    });
    // A site pumped out a year and a half ago has no pumping duty yet.
    await addSite({ id: 'ash-tank', kind: 'septic', history: { lastPumpOut: iso(now - 540 * DAY) } });
    await call('POST', '/api/sites/ash-tank/devices', {
      id: 'tank-1',
      kind: 'septic-tank',
      liquidDepthIn: 60,
    });
    // A tick runs every site's rules: once a site added after it has its duty, Ash's tank was looked at.
    await addSite({ id: 'marker-lot', kind: 'construction' });
    await until('marker-lot', 'routine-inspection', (x) => x.length === 1, 'a later tick');
    expect(await alerts('ash-tank', 'septic-pumping')).toEqual([]);
  });

  it('the history records are change records in the evidence log, listed in the report, which verifies', async () => {
    const changes = (await call<Change[]>('GET', '/api/changes?siteId=elm-st')).body;
    const h = changes.find((c) => c.entity === 'history')!;
    expect(h).toMatchObject({
      action: 'lastRoutineInspection',
      by: 'Ada Admin',
      new: iso(now - 3 * DAY),
      effectiveAt: iso(now - 3 * DAY),
    });
    expect(h.logIndex).toBeGreaterThanOrEqual(0);
    expect(h.leafHash).not.toBe('');
    const key = (await call<{ verifierKey: string }>('GET', '/api/evidence/key')).body.verifierKey;
    await waitFor(
      async () => (await call<{ size: number }>('GET', '/api/evidence/checkpoint')).body.size > h.logIndex,
      10_000,
      'a checkpoint',
    );
    const report = async (siteId: string) => {
      const r = await call<ReportJson>(
        'GET',
        `/api/reports/compliance?siteId=${siteId}&from=2026-11-22&to=2026-12-02`,
      );
      expect(r.status).toBe(200);
      return r.body;
    };
    const elm = await report('elm-st');
    expect(elm.changes?.find((c) => c.entity === 'history')).toMatchObject({
      action: 'lastRoutineInspection',
      logIndex: h.logIndex,
    });
    expect((await verifyReport(elm, key)).problems).toEqual([]);
    // Maple Ridge's report lists the superseded period as such, and the verifier agrees from its history.
    const maple = await report('maple-ridge');
    const statuses = (maple as unknown as { routine: Array<{ status: string }> }).routine.map(
      (d) => d.status,
    );
    expect(statuses).toContain('superseded');
    expect((await verifyReport(maple, key)).problems).toEqual([]);
    // A copy that calls the superseded period met is refused.
    const forged = structuredClone(maple) as unknown as { routine: Array<{ status: string }> };
    forged.routine.find((d) => d.status === 'superseded')!.status = 'on-time';
    const problems = (await verifyReport(forged as unknown as ReportJson, key)).problems;
    expect(problems.map((p) => p.field).some((f) => /^routine\[\d+\]\.status$/.test(f))).toBe(true);
    // A history record in the report changed: refused too.
    const tampered = structuredClone(elm);
    const tc = tampered.changes ?? [];
    const i = tc.findIndex((c) => c.entity === 'history');
    tc[i]!.new = iso(now - DAY);
    expect((await verifyReport(tampered, key)).problems.map((p) => p.field)).toContain(`changes[${i}].new`);
    // The printed report shows the history in the site's time zone, and the superseded status in words.
    const html = (
      await call<string>(
        'GET',
        '/api/reports/compliance?siteId=elm-st&from=2026-11-22&to=2026-12-02&format=html',
      )
    ).body;
    expect(html).toContain("The site's history on record");
    expect(html).toContain('Last routine inspection');
    expect(html).toMatch(/Nov 29, 2026.*10:00/);
    const mapleHtml = (
      await call<string>(
        'GET',
        '/api/reports/compliance?siteId=maple-ridge&from=2026-11-22&to=2026-12-02&format=html',
      )
    ).body;
    expect(mapleHtml).toContain('Superseded by the record');
  });
});
