/**
 * /metrics covers every site's devices and duties, so it is the town's staff's: an owner's session (who
 * sees their own site only) is refused it in words, while a viewer token and an admin read it. Before,
 * an owner read the other sites' device and duty series there.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { PASSWORD, peopleApi } from '../../helpers/people.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');

describe('/metrics, scoped to the staff', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      auth: {
        tokens: [
          { name: 'Ada Admin', role: 'admin', tokenSha256: sha('tok-admin') },
          { name: 'Val Viewer', role: 'viewer', tokenSha256: sha('tok-viewer') },
        ],
      },
    } as never);
  });
  afterAll(async () => gw?.cleanup());

  it('refuses an owner in words and serves a viewer token', async () => {
    const api = peopleApi(gw.httpUrl, 'tok-admin');
    const made = await api.call(
      'POST',
      '/api/users',
      {
        name: 'Olly Owner',
        email: 'olly@oak.example',
        role: 'owner',
        password: PASSWORD,
        sites: ['oak-lane'],
      },
      api.admin,
    );
    expect(made.status).toBe(201);
    const owner = await api.signIn('olly@oak.example');
    const refused = await fetch(`${gw.httpUrl}/metrics`, { headers: { cookie: owner.cookie } });
    expect(refused.status).toBe(403);
    const body = (await refused.json()) as { error: string; message: string };
    expect(body).toEqual({
      error: 'METRICS_STAFF',
      message:
        "The gateway's metrics cover every site: they are for the town's staff, not for an owner's or contractor's account.",
    });
    const staff = await fetch(`${gw.httpUrl}/metrics`, { headers: { authorization: 'Bearer tok-viewer' } });
    expect(staff.status).toBe(200);
    const text = await staff.text();
    expect(text).toContain('process_resident_memory_bytes');
    // The event loop's delay since the last scrape, in seconds: sampled, so a few ms at least, far under 10 s.
    const max = Number(/^nodejs_eventloop_delay_seconds\{percentile="max"\} (\S+)$/m.exec(text)?.[1]);
    expect(max).toBeGreaterThan(0);
    expect(max).toBeLessThan(10);
  });
});
