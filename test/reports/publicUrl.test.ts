/**
 * The report's links on paper point at the gateway's public address (`fleet.url`), not at the address a
 * person happened to reach it by (here 127.0.0.1): the verify note, its verifier page and the JSON link.
 * Without a public address set, they fall back to the address asked for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const PUBLIC = 'https://gw-north.town.example';
const query = 'siteId=maple-ridge&from=2026-11-01&to=2026-11-30&format=html';

describe("the report's links: the gateway's public address", () => {
  let withUrl: TestGateway;
  let without: TestGateway;
  beforeAll(async () => {
    withUrl = await startTestGateway({ fleet: { url: PUBLIC } });
    without = await startTestGateway();
  }, 60_000);
  afterAll(async () => {
    await withUrl?.stop();
    await without?.stop();
  });

  it('names the configured public address, never the one it was reached by', async () => {
    expect(withUrl.httpUrl).toContain('127.0.0.1');
    const res = await fetch(`${withUrl.httpUrl}/api/reports/compliance?${query}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`<a href="${PUBLIC}/verify.html">${PUBLIC}/verify.html</a>`);
    expect(html).toContain(`href="${PUBLIC}/api/reports/compliance?siteId=maple-ridge`);
    expect(html).not.toContain('127.0.0.1');
  });

  it('without one, names the address asked for', async () => {
    const html = await (await fetch(`${without.httpUrl}/api/reports/compliance?${query}`)).text();
    expect(html).toContain(`<a href="${without.httpUrl}/verify.html">`);
  });
});
