/**
 * `npm run config:export` round-trips: sites and devices added and changed through the API are written
 * back as configuration, and a fresh gateway started from that file (on an empty store) has the same
 * sites and devices, the same accounts, and the devices log in with the secrets they were given.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { startTestGateway, type TestGateway, testConfigInput, testHash } from '../helpers/gateway.ts';

const ROOT = join(import.meta.dirname, '../..');
const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const ADMIN = 'tok-admin';

describe('npm run config:export', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-export-'));
  const started: TestGateway[] = [];
  afterAll(async () => {
    for (const g of started) await g.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes the live sites, devices and accounts as configuration a fresh gateway loads the same', async () => {
    const input = testConfigInput({
      auth: {
        tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN) }],
        users: [
          {
            name: 'Olive Owner',
            email: 'olive@oak.example',
            role: 'owner',
            sites: ['oak-lane'],
            passwordHash: testHash('olive pw 12'),
          },
        ],
      },
    });
    const configFile = join(dir, 'gateway.yaml');
    writeFileSync(configFile, stringify(input));
    const dataDir = join(dir, 'a');
    const a = await startTestGateway(input, { dataDir });
    started.push(a);
    const api = (method: string, path: string, body: unknown) =>
      fetch(`${a.httpUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));
    expect(
      (await api('POST', '/api/sites', { id: 'birch-hill', kind: 'construction', name: 'Birch Hill' }))
        .status,
    ).toBe(201);
    const dev = await api('POST', '/api/sites/birch-hill/devices', {
      id: 'rg-9',
      kind: 'rain-gauge',
      inchesPerTip: 0.01,
    });
    expect(dev.status).toBe(201);
    expect(
      (
        await api('PATCH', '/api/sites/birch-hill/devices/rg-9', {
          inchesPerTip: 0.02,
          effectiveAt: '2026-01-01T00:00:00Z',
        })
      ).status,
    ).toBe(200);
    expect((await api('PATCH', '/api/sites/maple-ridge/devices/trap-1', { retired: true })).status).toBe(200);
    expect(
      (
        await api('PATCH', '/api/sites/oak-lane', {
          recipients: [{ role: 'owner', email: 'olive@oak.example' }],
        })
      ).status,
    ).toBe(200);
    const before = await (await fetch(`${a.httpUrl}/api/sites`)).json();

    const out = join(dir, 'exported.yaml');
    execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        join(ROOT, 'gateway/src/tools/configExport.ts'),
        '--config',
        configFile,
        '--data',
        dataDir,
        '--out',
        out,
      ],
      { cwd: ROOT, stdio: 'pipe' },
    );
    const exported = parse(readFileSync(out, 'utf8')) as {
      sites: Array<{ id: string; devices: Array<Record<string, unknown>> }>;
    };
    const rg9 = exported.sites.find((s) => s.id === 'birch-hill')!.devices[0]!;
    expect(rg9.passwordHash).toMatch(/^scrypt\$/);
    expect(rg9.calibrations).toEqual([{ until: '2026-01-01T00:00:00.000Z', inchesPerTip: 0.01 }]);

    // The sites exactly as exported: the export is what is checked.
    const b = await startTestGateway(exported as never, { dataDir: join(dir, 'b'), sitesAsGiven: true });
    started.push(b);
    const strip = (sites: unknown) =>
      (sites as Array<Record<string, unknown> & { devices: Array<Record<string, unknown>> }>).map((s) => ({
        ...s,
        retiredDevices: [],
        devices: s.devices.map(
          ({ status: _s, statusAt: _a, lastReadingAt: _r, lastReceivedAt: _l, ...d }) => d,
        ),
      }));
    expect(strip(await (await fetch(`${b.httpUrl}/api/sites`)).json())).toEqual(strip(before));
    // The device logs in to the new gateway with the secret the first one gave it; the owner signs in.
    const c = await mqtt.connectAsync(b.mqttUrl, {
      clientId: 'birch-hill/rg-9',
      username: 'birch-hill/rg-9',
      password: String(dev.body.password),
      reconnectPeriod: 0,
    });
    await c.endAsync();
    const login = await fetch(`${b.httpUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'olive@oak.example', password: 'olive pw 12' }),
    });
    expect(((await login.json()) as { sites: string[] }).sites).toEqual(['oak-lane']);
  });
});
