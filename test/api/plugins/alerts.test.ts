/** The alert endpoints through the real HTTP API: refusals answer with the alert codes of the catalogue. */
import { createHash } from 'node:crypto';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const TOKENS = { inspector: 'tok-inspector', engineer: 'tok-engineer' };

interface Alert {
  id: string;
  status: string;
  dueAt: string;
  history: Array<{ action: string }>;
}

describe('POST /api/alerts/{id}/extend and /resolve', () => {
  let gw: TestGateway;
  let storm: Alert;
  const post = (path: string, role: keyof typeof TOKENS, body?: unknown) =>
    fetch(`${gw.httpUrl}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKENS[role]}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const alert = async (id: string) => (await (await fetch(`${gw.httpUrl}/api/alerts/${id}`)).json()) as Alert;

  beforeAll(async () => {
    gw = await startTestGateway({
      auth: {
        tokens: [
          { name: 'Ida Inspector', role: 'inspector', tokenSha256: sha(TOKENS.inspector) },
          { name: 'Eve Engineer PE', role: 'engineer', tokenSha256: sha(TOKENS.engineer) },
        ],
      },
    });
    // A 0.6 in storm an hour ago, one tip a minute: a storm-inspection alert due 24 h after the rain.
    const t0 = Date.now() - 3_600_000;
    const c = await mqtt.connectAsync(gw.mqttUrl, { username: 'maple-ridge/rg-1', password: 'pw-rg-1' });
    for (let i = 0; i <= 60; i++)
      await c.publishAsync(
        'sites/maple-ridge/devices/rg-1/telemetry',
        JSON.stringify({ ts: t0 + i * 60_000, seq: i, rainTips: i }),
        { qos: 1 },
      );
    await c.endAsync();
    storm = await waitFor(
      async () => {
        const a = (await (await fetch(`${gw.httpUrl}/api/alerts?rule=storm-inspection`)).json()) as Alert[];
        return a[0];
      },
      10_000,
      'the storm alert',
    );
  });
  afterAll(async () => gw?.cleanup());

  it('answers BAD_EXTENSION to an extension of the 24-hour storm inspection, which the law gives none', async () => {
    const newDueAt = new Date(Date.parse(storm.dueAt) + 48 * 3_600_000).toISOString();
    const res = await post(`/api/alerts/${storm.id}/extend`, 'engineer', {
      newDueAt,
      engineer: 'Eve Engineer PE',
      letterRef: 'L-2026-200',
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; message: string };
    expect(body.error).toBe('BAD_EXTENSION');
    expect(body.message).toMatch(/storm-inspection rule allows no extension/);
    const after = await alert(storm.id);
    expect(after.dueAt).toBe(storm.dueAt);
    expect(after.history.some((h) => h.action === 'extended')).toBe(false);
    expect(await (await fetch(`${gw.httpUrl}/api/extensions`)).json()).toEqual([]);
  });

  it('answers NOTE_REQUIRED to a resolve without a note, with an empty one or a blank one', async () => {
    for (const body of [undefined, {}, { note: '' }, { note: '   ' }]) {
      const res = await post(`/api/alerts/${storm.id}/resolve`, 'inspector', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('NOTE_REQUIRED');
    }
    expect((await alert(storm.id)).status).toBe('open');
    const ok = await post(`/api/alerts/${storm.id}/resolve`, 'inspector', {
      note: 'inspected, silt fence ok',
    });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as Alert).status).toBe('resolved');
  });
});
