/**
 * The same counter readings through the real gateway (mqtt.js, QoS 1) in order, as a late backlog behind
 * the newest readings, and shuffled: the same storm alerts and the same notification events. Three days
 * of a gauge reporting every 5 min: drizzle (4 tips every 7 h, never a storm) and two storms of 0.6 in.
 * Delivered shuffled with the alerts raised at once (`settleMinutes: 0`, as release 0.1.0 did), the
 * drizzle's tips between readings still to come make storms that never were.
 */
import Database from 'better-sqlite3';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testConfigInput } from '../helpers/gateway.ts';
import { shuffle } from '../rules/helpers.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
type Alert = {
  status: string;
  deviceId: string;
  raisedAt: string;
  dueAt: string;
  evidence: { eventId: string };
};

/** Three days ending an hour ago: a reading every 5 min with the gauge's counter. */
function readings(now: number): Array<{ ts: number; rainTips: number }> {
  const start = now - 3 * 24 * HOUR;
  const out: Array<{ ts: number; rainTips: number }> = [];
  let c = 5000;
  for (let i = 0; i < 12 * 71; i++) {
    const ts = start + i * 5 * MIN;
    const hoursAgo = (now - ts) / HOUR;
    // Two storms: 20 and 5 h ago, 2 h each, 3 tips a reading (72 tips).
    const storm = (hoursAgo <= 22 && hoursAgo > 20) || (hoursAgo <= 7 && hoursAgo > 5);
    if (storm) c += 3;
    else if (i % 84 === 83) c += 4;
    out.push({ ts, rainTips: c });
  }
  return out;
}

async function deliver(gw: TestGateway, rs: Array<{ ts: number; rainTips: number }>) {
  const c = await mqtt.connectAsync(gw.mqttUrl, {
    clientId: 'maple-ridge/rg-1',
    username: 'maple-ridge/rg-1',
    password: 'pw-rg-1',
  });
  for (const r of rs)
    await c.publishAsync('sites/maple-ridge/devices/rg-1/telemetry', JSON.stringify(r), { qos: 1 });
  await c.endAsync();
}

const stormAlerts = async (gw: TestGateway) =>
  (
    (await (
      await fetch(`${gw.httpUrl}/api/alerts?siteId=maple-ridge&rule=storm-inspection`)
    ).json()) as Alert[]
  )
    .map((a) => ({
      status: a.status,
      deviceId: a.deviceId,
      raisedAt: a.raisedAt,
      dueAt: a.dueAt,
      eventId: a.evidence.eventId,
    }))
    .sort((a, b) => a.raisedAt.localeCompare(b.raisedAt));

/** The notification events: their kind, and the alert's storm, device and raised time. */
function notificationEvents(gw: TestGateway) {
  const db = new Database(`${gw.dataDir}/gateway.db`, { readonly: true });
  try {
    const rows = db
      .prepare(`SELECT kind, payload FROM notification_events WHERE rule = 'storm-inspection' ORDER BY id`)
      .all() as Array<{ kind: string; payload: string }>;
    return rows
      .map((r) => {
        const a = JSON.parse(r.payload) as Alert;
        return { kind: r.kind, eventId: a.evidence.eventId, deviceId: a.deviceId, raisedAt: a.raisedAt };
      })
      .sort((a, b) => `${a.raisedAt}${a.kind}`.localeCompare(`${b.raisedAt}${b.kind}`));
  } finally {
    db.close();
  }
}

describe('late data through the gateway: in order, behind newer readings, shuffled', () => {
  const gws: Record<'inOrder' | 'backlog' | 'shuffled' | 'atOnce', TestGateway | undefined> = {
    inOrder: undefined,
    backlog: undefined,
    shuffled: undefined,
    atOnce: undefined,
  };
  const rs = readings(Date.now() - HOUR);

  beforeAll(async () => {
    const start = (settleMinutes: number) =>
      startTestGateway({
        ingest: { deviceRatePerSec: 10_000, deviceBurst: 10_000 },
        sites: testConfigInput().sites!.map((site) =>
          site.id === 'maple-ridge' ? { ...site, storm: { settleMinutes } } : site,
        ),
      });
    [gws.inOrder, gws.backlog, gws.shuffled, gws.atOnce] = await Promise.all([
      start(0.05),
      start(0.05),
      start(0.05),
      start(0),
    ]);
    const newest = rs.slice(-12);
    await Promise.all([
      deliver(gws.inOrder!, rs),
      // Buffered while offline: the newest hour first, then the backlog, in order.
      deliver(gws.backlog!, [...newest, ...rs.slice(0, -12)]),
      deliver(gws.shuffled!, shuffle(rs, 8)),
      deliver(gws.atOnce!, shuffle(rs, 8)),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(Object.values(gws).map((g) => g?.cleanup()));
  });

  it('raises the same storm alerts, and sends the same notifications, whatever the order', async () => {
    const expected = await stormAlerts(gws.inOrder!);
    expect(expected).toHaveLength(2);
    expect(expected.every((a) => a.status === 'open')).toBe(true);
    const expectedEvents = notificationEvents(gws.inOrder!);
    expect(expectedEvents.filter((e) => e.kind === 'raise')).toHaveLength(2);
    for (const name of ['backlog', 'shuffled'] as const) {
      const gw = gws[name]!;
      // Raised once the late data settled (3 s), and reminded at the tick after.
      await waitFor(
        () => notificationEvents(gw).length >= expectedEvents.length,
        20_000,
        `${name}: the storms' notifications`,
      );
      // Time passes and nothing more is raised or sent.
      await new Promise((r) => setTimeout(r, 500));
      expect(await stormAlerts(gw), name).toEqual(expected);
      expect(notificationEvents(gw), name).toEqual(expectedEvents);
    }
  });

  it('raised at once, the shuffled backlog raised storms that never were, with notifications', async () => {
    const raised = notificationEvents(gws.atOnce!).filter((e) => e.kind === 'raise');
    expect(raised.length).toBeGreaterThan(2);
    expect((await stormAlerts(gws.atOnce!)).filter((a) => a.status === 'open')).toHaveLength(2);
  });
});
