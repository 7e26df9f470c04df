/**
 * The API's doors: security headers on every answer, reads behind a sign-in or a token by default
 * (/metrics and the details of /api/health too; a liveness probe gets the status alone, never the data
 * directory), and wrong tokens slowing their address down. The public view: publicView.test.ts.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../shared/src/api/routes.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { fetchAnonymous } from '../helpers/viewerFetch.ts';

const VIEWER = 'api-security-viewer-token';
const tokens = [
  { name: 'viewer', role: 'viewer' as const, tokenSha256: createHash('sha256').update(VIEWER).digest('hex') },
];

describe('security headers', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  it.each(['/', '/api/health', '/api/sites', '/docs', '/nowhere'])('are sent with %s', async (path) => {
    const h = (await fetch(`${gw.httpUrl}${path}`)).headers;
    const csp = h.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    // The inspection form's photo previews are object URLs: images from blob:, scripts never.
    expect(csp).toContain("img-src 'self' data: blob:");
    expect(csp).not.toMatch(/script-src[^;]*blob:/);
    expect(csp).not.toContain("script-src 'self' 'unsafe-inline'");
    expect(h.get('x-frame-options')).toBe('DENY');
    expect(h.get('x-content-type-options')).toBe('nosniff');
    expect(h.get('referrer-policy')).toBe('no-referrer');
    // Plain HTTP: no HSTS, and no upgrade of the dashboard's own requests to HTTPS.
    expect(h.get('strict-transport-security')).toBeNull();
    expect(csp).not.toContain('upgrade-insecure-requests');
  });

  it('keeps the data directory out of health', async () => {
    const text = await (await fetch(`${gw.httpUrl}/api/health`)).text();
    expect(text).toContain('components');
    expect(text).not.toContain(gw.dataDir);
  });
});

describe('reads, by default', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ auth: { tokens } });
  });
  afterAll(async () => {
    await gw?.cleanup();
  });
  const get = (path: string, token?: string) =>
    fetchAnonymous(`${gw.httpUrl}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});

  it('refuses every read of the API without a sign-in or a token, but the public key and health', async () => {
    const open: string[] = [];
    for (const key of Object.keys(ROUTES).filter((k) => k.startsWith('GET '))) {
      const path = key.slice(4).replace(':sha256', '0'.repeat(64)).replace(':id', 'maple-ridge');
      const res = await get(`${path}?siteId=maple-ridge`);
      await res.body?.cancel();
      if (res.status !== 401) open.push(`${key}: ${res.status}`);
    }
    expect(open.sort()).toEqual(['GET /api/evidence/key: 200', 'GET /api/health: 200']);
    const site = await get('/api/sites/maple-ridge', VIEWER);
    expect(site.status).toBe(200);
    expect(((await site.json()) as { id: string }).id).toBe('maple-ridge');
  });

  it('needs a token for /metrics', async () => {
    expect((await get('/metrics')).status).toBe(401);
    const ok = await get('/metrics', VIEWER);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('gateway_messages_total');
  });

  it('answers an unauthenticated liveness probe with the status alone, and the details with a token', async () => {
    const probe = await get('/api/health');
    expect(probe.status).toBe(200);
    // The status, and whether the public view is on (it is not) with the gateway's zone, for the dashboard.
    expect(await probe.json()).toEqual({ status: 'ok', publicView: false, timezone: 'America/New_York' });
    const full = (await (await get('/api/health', VIEWER)).json()) as {
      components: unknown[];
      gatewayId: string;
      timezone: string;
    };
    expect(full.gatewayId).toBe('test-gw');
    expect(full.timezone).toBe('America/New_York');
    expect(full.components.length).toBeGreaterThan(1);
  });

  it('shuts an address out for a while after wrong tokens (429 with Retry-After), the right token included', async () => {
    const answers: number[] = [];
    for (let i = 0; i < 14; i++) answers.push((await get('/api/sites', `wrong-${i}`)).status);
    // Ten free attempts, then the address waits 1 s, 2 s, 4 s...
    expect(answers.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(answers.slice(10)).toContain(429);
    const shut = await get('/api/sites', VIEWER);
    expect(shut.status).toBe(429);
    expect(Number(shut.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await shut.json()) as { error: string }).error).toBe('TOO_MANY_REQUESTS');
  });
});
