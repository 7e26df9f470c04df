/**
 * POST /api/inspections over a real gateway: a storm inspection at a construction site closes the storm
 * alert and the routine period, and its answer names both (it once answered `closedAlertIds: []`).
 */
import { createHash } from 'node:crypto';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { completeInspection } from '../helpers/inspections.ts';

const TOKEN = 'tok-closes-inspector';
const sha = (t: string) => createHash('sha256').update(t).digest('hex');

interface Alert {
  id: string;
  rule: string;
  status: string;
}

describe('POST /api/inspections: closedAlertIds', () => {
  let gw: TestGateway;
  const get = async <T>(path: string) => (await (await fetch(`${gw.httpUrl}${path}`)).json()) as T;

  beforeAll(async () => {
    gw = await startTestGateway({
      auth: { tokens: [{ name: 'Ida Inspector', role: 'inspector', tokenSha256: sha(TOKEN) }] },
    });
    // A 0.62 in storm that ended ten hours ago, one tip a minute.
    const t0 = Date.now() - 12 * 3_600_000;
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    for (let i = 0; i <= 62; i++)
      await c.publishAsync(
        'sites/maple-ridge/devices/rg-1/telemetry',
        JSON.stringify({ ts: t0 + i * 60_000, seq: i, rainTips: i }),
        { qos: 1 },
      );
    // The gauge's heartbeat now (its counter unchanged): ten dry hours, so the storm has ended and an
    // inspection now follows it.
    await c.publishAsync(
      'sites/maple-ridge/devices/rg-1/telemetry',
      JSON.stringify({ ts: Date.now(), seq: 63, rainTips: 62 }),
      { qos: 1 },
    );
    await c.endAsync();
  });
  afterAll(() => gw?.cleanup());

  it('names the storm and routine alerts it closed, and GET /api/alerts shows them resolved', async () => {
    const open = await waitFor(
      async () => {
        const all = await get<Alert[]>('/api/alerts?siteId=maple-ridge');
        const storm = all.find((a) => a.rule === 'storm-inspection' && a.status !== 'resolved');
        const routine = all.find((a) => a.rule === 'routine-inspection' && a.status !== 'resolved');
        return storm && routine ? { storm, routine } : undefined;
      },
      10_000,
      'an open storm alert and an open routine alert',
    );
    const res = await fetch(`${gw.httpUrl}/api/inspections`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(
        completeInspection({
          siteId: 'maple-ridge',
          at: new Date().toISOString(),
          inspector: 'Ida Inspector',
          kind: 'storm',
          notes: 'silt fence checked',
        }),
      ),
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { closedAlertIds: string[] };
    expect([...body.closedAlertIds].sort()).toEqual([open.storm.id, open.routine.id].sort());
    const after = await get<Alert[]>('/api/alerts?siteId=maple-ridge');
    for (const id of [open.storm.id, open.routine.id])
      expect(after.find((a) => a.id === id)?.status).toBe('resolved');
  });
});
