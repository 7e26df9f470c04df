/**
 * MQTT identities are one each, against the gateway process: the admin API refuses a device whose login
 * name or client id another device (in service or retired) or a configured MQTT user holds, with 409 and
 * the holder named in words, and the real holder keeps logging in and sending; a configuration file with
 * such a collision does not start the gateway (exit 2, the path and the holder printed).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { waitFor } from '../helpers/env.ts';
import { device, faultConfig, publishOutcome, T } from '../helpers/faults.ts';
import { testHash } from '../helpers/gateway.ts';

const ADMIN = 'tok-identities-admin';
const sha = (t: string) => createHash('sha256').update(t).digest('hex');

describe('unique MQTT identities (gateway process)', () => {
  let gw: GatewayChild;
  beforeAll(async () => {
    gw = await startGatewayChild(
      faultConfig({
        auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN) }] },
        mqtt: {
          users: [{ username: 'ops', passwordHash: testHash('pw-ops'), subscribe: ['alerts/#'] }],
        },
      }),
    );
  });
  afterAll(async () => {
    await gw?.cleanup();
  });
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${gw.httpUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as { error?: string; message?: string } };
  };
  const gauge = (id: string, extra: Record<string, unknown>) => ({
    id,
    kind: 'rain-gauge',
    inchesPerTip: 0.01,
    ...extra,
  });
  const deviceIds = async () => {
    const r = await fetch(`${gw.httpUrl}/api/sites/maple-ridge`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    const site = (await r.json()) as { devices: Array<{ id: string }> };
    return site.devices.map((d) => d.id);
  };

  it('refuses a device that takes another device’s login name or client id, naming the holder; the holder keeps working', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ username: 'maple-ridge/rg-1' }, /already belongs to device rg-1 of site maple-ridge/],
      [{ clientIds: ['maple-ridge/rg-2'] }, /"maple-ridge\/rg-2" already belongs to device rg-2 of site/],
      [
        { clientIds: ['maple-ridge/*'] },
        /"maple-ridge\/\*" already belongs to device rg-1 of site maple-ridge/,
      ],
      [{ username: 'ops' }, /"ops" already belongs to the MQTT account ops/],
    ];
    for (const [extra, holder] of cases) {
      const r = await api('POST', '/api/sites/maple-ridge/devices', gauge('rg-9', extra));
      expect(r.status, JSON.stringify(extra)).toBe(409);
      expect(r.body.error).toBe('CONFLICT');
      expect(r.body.message).toMatch(holder);
      expect(r.body.message).toMatch(/Each device needs a login name and client ids of its own\./);
    }
    expect(await deviceIds()).not.toContain('rg-9');
    // An edit that would take rg-1's id is refused too.
    const edit = await api('PATCH', '/api/sites/maple-ridge/devices/rg-2', {
      clientIds: ['maple-ridge/rg-1'],
    });
    expect(edit.status).toBe(409);
    expect(edit.body.message).toMatch(/already belongs to device rg-1 of site maple-ridge/);
    // The real rg-1 still logs in and its reading is acknowledged (stored).
    const rg1 = await device(gw.mqttUrl, 'rg-1');
    try {
      expect(await publishOutcome(rg1, T('rg-1'), JSON.stringify({ ts: Date.now(), rainTips: 1 }))).toBe(
        'acknowledged',
      );
    } finally {
      rg1.end(true);
    }
    // A device with identities of its own is added.
    const ok = await api(
      'POST',
      '/api/sites/maple-ridge/devices',
      gauge('rg-10', { clientIds: ['rg-10-spare'] }),
    );
    expect(ok.status).toBe(201);
  });

  it('keeps a retired device’s login name and client ids from being given again', async () => {
    const add = await api(
      'POST',
      '/api/sites/maple-ridge/devices',
      gauge('rg-20', { clientIds: ['rg-20-old'] }),
    );
    expect(add.status).toBe(201);
    expect((await api('PATCH', '/api/sites/maple-ridge/devices/rg-20', { retired: true })).status).toBe(200);
    await waitFor(async () => !(await deviceIds()).includes('rg-20'), 10_000, 'rg-20 retired');
    for (const extra of [{ username: 'maple-ridge/rg-20' }, { clientIds: ['rg-20-old'] }]) {
      const r = await api('POST', '/api/sites/maple-ridge/devices', gauge('rg-21', extra));
      expect(r.status).toBe(409);
      expect(r.body.message).toMatch(/already belongs to the retired device rg-20 of site maple-ridge/);
    }
  });
});

describe('a configuration with a collision (gateway process)', () => {
  it('does not start: exit 2, with the path and the holder in the message', async () => {
    const config = faultConfig({
      mqtt: {
        users: [{ username: 'maple-ridge/rg-2', passwordHash: testHash('x'), subscribe: ['alerts/#'] }],
      },
    });
    const site = (config.sites as Array<{ devices: Array<Record<string, unknown>> }>)[0]!;
    site.devices.push({ id: 'rg-4', kind: 'rain-gauge', inchesPerTip: 0.01, username: 'maple-ridge/rg-1' });
    const gw = await startGatewayChild(config, { waitReady: false });
    try {
      expect(await gw.exited).toBe(2);
      const out = gw.output();
      expect(out).toMatch(
        /sites\[0\]\.devices\[4\]\.username: The MQTT login name or client id "maple-ridge\/rg-1" already belongs to device rg-1 of site maple-ridge\./,
      );
      expect(out).toMatch(
        /mqtt\.users\[0\]\.username: .*"maple-ridge\/rg-2" already belongs to device rg-2 of site/,
      );
    } finally {
      await gw.cleanup();
    }
  }, 60_000);
});
