/**
 * The pumping duty of a septic site with no tank device, over a real gateway (law 000, appendix VII: the
 * owner's duty whatever sensors exist): the site is asked for its last pump-out at once, and a pump-out
 * with its hauler answers it; a site added with a pump-out on record has its 2- and 3-year clock; a tank
 * device added later takes the open duty over (the site's closed as superseded, the tank's opened).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pumpingClock } from '../../gateway/src/rules/septic-pumping/clock.ts';
import { waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const ADMIN = 'tok-septic-site-admin';
const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const TZ = 'America/New_York';
const DAY = 86_400_000;
const iso = (t: number) => new Date(t).toISOString();

interface Alert {
  id: string;
  rule: string;
  deviceId?: string;
  status: string;
  overdue: boolean;
  raisedAt: string;
  dueAt: string | null;
  message: string;
  resolution?: { how: string; evidence: Record<string, unknown> };
}

describe('the pumping duty of a septic site with no tank device (real gateway)', () => {
  let gw: TestGateway;
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
    return { status: res.status, body: (await res.json()) as T };
  };
  const pumping = async (siteId: string) =>
    (await call<Alert[]>('GET', `/api/alerts?siteId=${siteId}&rule=septic-pumping`)).body;
  const until = (siteId: string, ok: (a: Alert[]) => boolean, what: string) =>
    waitFor(
      async () => {
        const a = await pumping(siteId);
        return ok(a) ? a : undefined;
      },
      15_000,
      what,
    );

  beforeAll(async () => {
    gw = await startTestGateway({
      timezone: TZ,
      auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN) }] },
      sites: [{ id: 'cedar-cottage', name: 'Cedar Cottage', kind: 'septic', timezone: TZ, devices: [] }],
    } as never);
  });
  afterAll(() => gw?.cleanup());

  it('is asked for its last pump-out at once; a pump-out with its hauler answers it', async () => {
    const [asked] = await until('cedar-cottage', (a) => a.length === 1, 'the question of the last pump-out');
    expect(asked).toMatchObject({ status: 'open', dueAt: null });
    expect(asked!.deviceId).toBeUndefined();
    expect(asked!.message).toContain(
      'When was the septic tank at Cedar Cottage (cedar-cottage) last pumped?',
    );
    const res = await call<{ inspection: { id: string } }>('POST', '/api/inspections', {
      siteId: 'cedar-cottage',
      at: iso(Date.now() - 200 * DAY),
      inspector: 'Owner',
      kind: 'cleanout',
      hauler: { name: 'Valley Septic Service', permit: '3-1234-00567' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [answered] = await until('cedar-cottage', (a) => a[0]?.status === 'resolved', 'the answer');
    expect(answered!.resolution?.evidence).toMatchObject({
      answered: true,
      hauler: 'Valley Septic Service',
      haulerPermit: '3-1234-00567',
    });
    // Pumped 200 days ago: nothing more is due for now.
    expect(await pumping('cedar-cottage')).toHaveLength(1);
  });

  it('a pump-out on record starts the clock; a tank device added later takes the open duty over', async () => {
    const pumped = Date.now() - 2 * 365 * DAY - 100 * DAY;
    const site = await call('POST', '/api/sites', {
      id: 'spruce-house',
      name: 'Spruce House',
      kind: 'septic',
      timezone: TZ,
      history: { lastPumpOut: iso(pumped) },
    });
    expect(site.status, JSON.stringify(site.body)).toBe(201);
    const clock = pumpingClock(pumped, { maxYears: 3, reminderYears: 2 }, TZ);
    const [own] = await until('spruce-house', (a) => a.length === 1, "the site's time duty");
    expect(own).toMatchObject({
      status: 'open',
      overdue: false,
      raisedAt: iso(clock.remindAt),
      dueAt: iso(clock.dueAt),
    });
    expect(own!.deviceId).toBeUndefined();
    expect(own!.message).toMatch(/^The septic tank at Spruce House \(spruce-house\) was last pumped/);

    const dev = await call('POST', '/api/sites/spruce-house/devices', { id: 'tank-1', kind: 'septic-tank' });
    expect(dev.status, JSON.stringify(dev.body)).toBe(201);
    const both = await until(
      'spruce-house',
      (a) => a.length === 2 && a.some((x) => x.id === own!.id && x.status === 'resolved'),
      'the handover',
    );
    const handed = both.find((a) => a.id === own!.id)!;
    expect(handed.resolution?.evidence).toMatchObject({ superseded: true, handedTo: 'tank-1' });
    const tank = both.find((a) => a.id !== own!.id)!;
    expect(tank).toMatchObject({
      deviceId: 'tank-1',
      status: 'open',
      raisedAt: iso(clock.remindAt),
      dueAt: iso(clock.dueAt),
    });
  });
});
