/**
 * A storm inspected while it still rains, through the real gateway (001, Maintenance during
 * construction, A(2): "within 24 hours of any storm event"): the storm crosses 0.5 in, is inspected at
 * 0.65 in, and brings 2 more inches. The mid-storm inspection is recorded and shown with the storm, but
 * the duty stays open, due 24 h after the last tip; an inspection after the storm has ended meets it.
 */
import { createHash } from 'node:crypto';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const TOKEN = 'tok-midstorm-inspector';
const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const MIN = 60_000;
const HOUR = 60 * MIN;

interface Alert {
  id: string;
  rule: string;
  status: string;
  dueAt?: string;
  message: string;
}
interface Storm {
  id: string;
  inches: number;
  end: string;
  closed: boolean;
  dueAt?: string;
  inspection: { status: string; inspectionId?: string };
  inspectedDuring?: Array<{ inspectionId: string; inspectedAt: string }>;
}

describe('a storm inspected mid-storm, through the gateway', () => {
  let gw: TestGateway;
  let client: mqtt.MqttClient;
  const t0 = Date.now() - 12 * HOUR;
  const get = async <T>(path: string) => (await (await fetch(`${gw.httpUrl}${path}`)).json()) as T;
  const publish = (ts: number, rainTips: number, seq: number) =>
    client.publishAsync('sites/maple-ridge/devices/rg-1/telemetry', JSON.stringify({ ts, seq, rainTips }), {
      qos: 1,
    });
  const inspect = async (at: number) => {
    const res = await fetch(`${gw.httpUrl}/api/inspections`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        siteId: 'maple-ridge',
        at: new Date(at).toISOString(),
        inspector: 'Ida Inspector',
        kind: 'storm',
        notes: 'silt fence checked',
        side: 'developer',
      }),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as { inspection: { id: string }; closedAlertIds: string[] };
  };
  const stormAlert = async () =>
    (await get<Alert[]>('/api/alerts?siteId=maple-ridge&rule=storm-inspection')).filter(
      (a) => a.rule === 'storm-inspection',
    );

  beforeAll(async () => {
    gw = await startTestGateway({
      auth: { tokens: [{ name: 'Ida Inspector', role: 'inspector', tokenSha256: sha(TOKEN) }] },
    });
    client = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
  });
  afterAll(async () => {
    await client?.endAsync();
    await gw?.cleanup();
  });

  it('keeps the duty open after a mid-storm inspection, shows it with the storm, and closes on one after the end', async () => {
    // Tips of 0.01 in, one a minute: the counter at t0 is the baseline; 65 tips make 0.65 in.
    for (let i = 0; i <= 65; i++) await publish(t0 + i * MIN, i, i);
    const raised = await waitFor(
      async () => (await stormAlert()).find((a) => a.status !== 'resolved'),
      15_000,
      'the storm alert',
    );
    const midStorm = t0 + 65 * MIN + 30_000;
    const mid = await inspect(midStorm);
    expect(mid.closedAlertIds).not.toContain(raised.id);
    // Two more inches, then the gauge's heartbeat now: the storm ended more than 6 h ago.
    for (let i = 66; i <= 265; i++) await publish(t0 + i * MIN, i, i);
    const lastTip = t0 + 265 * MIN;
    await publish(Date.now(), 265, 266);
    const storm = await waitFor(
      async () =>
        (await get<Storm[]>('/api/storms?siteId=maple-ridge')).find((s) => s.closed && s.inches >= 2.65),
      15_000,
      'the storm, ended',
    );
    expect(storm.inches).toBeCloseTo(2.65, 6);
    expect(storm.dueAt).toBe(new Date(lastTip + 24 * HOUR).toISOString());
    expect(storm.inspection.status).toBe('pending');
    expect(storm.inspectedDuring).toEqual([
      { inspectionId: mid.inspection.id, inspectedAt: new Date(midStorm).toISOString() },
    ]);
    const open = (await stormAlert()).find((a) => a.id === raised.id)!;
    expect(open.status).not.toBe('resolved');
    expect(open.dueAt).toBe(new Date(lastTip + 24 * HOUR).toISOString());
    expect(open.message).toContain('Inspected during the storm, at 0.65 in');

    // The inspection after the storm meets the duty: it closes the alert, and the storm is on time.
    const after = await inspect(Date.now());
    expect(after.closedAlertIds).toContain(raised.id);
    const met = (await get<Storm[]>('/api/storms?siteId=maple-ridge')).find((s) => s.id === storm.id)!;
    expect(met.inspection).toMatchObject({ status: 'on-time', inspectionId: after.inspection.id });
  });
});
