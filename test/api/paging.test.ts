/**
 * Lists a page at a time over HTTP against the real gateway: newest first, the `Link: <…>; rel="next"`
 * header naming the next page with the same filters, every item once across the pages, an owner's pages
 * only their site's, a cursor that is not the list's refused in words, and a limit above the most a page
 * holds taken as that most.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextPageOf } from '../../shared/src/links.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { PASSWORD, peopleApi } from '../helpers/people.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const NOW = Date.parse('2026-06-10T14:00:00Z');
const HOUR = 3_600_000;

interface Inspection {
  id: string;
  siteId: string;
  at: string;
}

describe('lists, a page at a time', () => {
  let gw: TestGateway;
  let owner: Record<string, string>;
  const admin = { authorization: 'Bearer tok-admin' };

  /** Every page of `path`, following the Link header; the pages' items and the links followed. */
  const pages = async <T>(path: string, headers: Record<string, string> = admin) => {
    const out: T[][] = [];
    const links: string[] = [];
    let url: string | undefined = `${gw.httpUrl}${path}`;
    while (url) {
      const r = await fetch(url, { headers });
      expect(r.status).toBe(200);
      out.push((await r.json()) as T[]);
      const next = nextPageOf(r.headers.get('link'));
      if (next) links.push(next);
      url = next ? `${gw.httpUrl}${next}` : undefined;
      expect(out.length).toBeLessThan(50);
    }
    return { pages: out, links };
  };

  beforeAll(async () => {
    gw = await startTestGateway(
      {
        sites: [
          { id: 'maple-ridge', name: 'Maple Ridge', kind: 'construction', devices: [] },
          { id: 'birch-hill', name: 'Birch Hill', kind: 'construction', devices: [] },
        ],
        auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha('tok-admin') }] },
      },
      { now: () => NOW },
    );
    const api = peopleApi(gw.httpUrl, 'tok-admin');
    const made = await api.call(
      'POST',
      '/api/users',
      {
        name: 'Bo Builder',
        email: 'bo@birch.example',
        role: 'contractor',
        password: PASSWORD,
        sites: ['birch-hill'],
      },
      api.admin,
    );
    expect(made.status).toBe(201);
    owner = { cookie: (await api.signIn('bo@birch.example')).cookie };
    // Seven inspections at Maple Ridge and three at Birch Hill, an hour apart, two at the same time.
    const times = [1, 2, 3, 4, 5, 6, 6, 7, 8, 9];
    for (const [i, h] of times.entries()) {
      const r = await fetch(`${gw.httpUrl}/api/inspections`, {
        method: 'POST',
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify({
          siteId: i % 3 === 2 ? 'birch-hill' : 'maple-ridge',
          at: new Date(NOW - 10 * HOUR + h * HOUR).toISOString(),
          inspector: `Inspector ${i}`,
          kind: 'other',
          notes: 'Walked the site.',
        }),
      });
      expect(r.status).toBe(201);
    }
  });
  afterAll(() => gw?.cleanup());

  it('answers a page, newest first, and names the next until the last', async () => {
    const { pages: got, links } = await pages<Inspection>('/api/inspections?limit=3');
    expect(got.map((p) => p.length)).toEqual([3, 3, 3, 1]);
    expect(links).toHaveLength(3);
    for (const l of links) expect(l).toMatch(/^\/api\/inspections\?limit=3&cursor=[A-Za-z0-9_-]+$/);
    const all = got.flat();
    expect(new Set(all.map((i) => i.id)).size).toBe(10);
    const times = all.map((i) => Date.parse(i.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    // Without a limit, one page holds them all, and no Link is sent.
    const one = await fetch(`${gw.httpUrl}/api/inspections`, { headers: admin });
    expect(one.headers.get('link')).toBeNull();
    expect(((await one.json()) as Inspection[]).map((i) => i.id)).toEqual(all.map((i) => i.id));
  });

  it('keeps the filters on every page', async () => {
    const { pages: got, links } = await pages<Inspection>('/api/inspections?siteId=maple-ridge&limit=2');
    expect(got.flat()).toHaveLength(7);
    expect(got.flat().every((i) => i.siteId === 'maple-ridge')).toBe(true);
    for (const l of links) expect(l).toContain('siteId=maple-ridge');
    const from = new Date(NOW - 6 * HOUR).toISOString();
    const ranged = await pages<Inspection>(`/api/inspections?from=${from}&limit=2`);
    expect(ranged.pages.flat().every((i) => Date.parse(i.at) >= Date.parse(from))).toBe(true);
    expect(ranged.pages.flat()).toHaveLength(7);
  });

  it("gives an owner's pages only their site's items", async () => {
    const { pages: got } = await pages<Inspection>('/api/inspections?limit=2', owner);
    expect(got.flat().map((i) => i.siteId)).toEqual(['birch-hill', 'birch-hill', 'birch-hill']);
  });

  it('refuses a cursor the list did not give, in words', async () => {
    for (const cursor of [
      'not-a-cursor',
      Buffer.from('[1,2,3]').toString('base64url'),
      'a'.repeat(129),
      '%%%',
    ]) {
      const r = await fetch(`${gw.httpUrl}/api/inspections?cursor=${encodeURIComponent(cursor)}`, {
        headers: admin,
      });
      expect(r.status).toBe(400);
      const body = (await r.json()) as { error: string; message: string };
      expect(['BAD_CURSOR', 'BAD_REQUEST']).toContain(body.error);
      if (cursor.length <= 128) {
        expect(body.error).toBe('BAD_CURSOR');
        expect(body.message).toMatch(/ask for the first page again/);
      }
    }
  });

  it('takes a limit above the most a page holds as that most, as older clients ask', async () => {
    const r = await fetch(`${gw.httpUrl}/api/alerts?limit=5000`, { headers: admin });
    expect(r.status).toBe(200);
    const big = await fetch(`${gw.httpUrl}/api/alerts?limit=10001`, { headers: admin });
    expect(big.status).toBe(400);
  });

  it('documents the Link header and the cursor in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${gw.httpUrl}/docs/json`)).json()) as {
      paths: Record<
        string,
        { get: { parameters?: Array<{ name: string }>; responses: Record<string, { headers?: object }> } }
      >;
    };
    for (const path of [
      '/api/alerts',
      '/api/inspections',
      '/api/notifications',
      '/api/changes',
      '/api/quarantine',
    ]) {
      const op = doc.paths[path]!.get;
      expect(op.responses['200']!.headers, path).toHaveProperty('Link');
      expect(
        op.parameters?.map((p) => p.name),
        path,
      ).toContain('cursor');
    }
  });

  it('pages the other lists the same way', async () => {
    for (const path of [
      '/api/alerts',
      '/api/changes',
      '/api/notifications',
      '/api/rejections',
      '/api/storms',
    ]) {
      const { pages: got, links } = await pages<unknown>(`${path}?limit=1`);
      expect(links.length, path).toBe(Math.max(0, got.flat().length - 1));
      const whole = (await (
        await fetch(`${gw.httpUrl}${path}?limit=500`, { headers: admin })
      ).json()) as unknown[];
      expect(got.flat(), path).toEqual(whole);
    }
  });
});
