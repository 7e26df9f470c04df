/**
 * The contract's map of routes (shared/src/api/routes.ts) is the API the gateway serves: every route of
 * its OpenAPI document is a key of ROUTES and every key is served, each documented with the map's
 * schemas (its path parameters, query, body and 2xx JSON answer, the Link header of a paged list).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ROUTES, type RouteKey } from '../../shared/src/api/routes.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

interface Operation {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<
    string,
    { content?: Record<string, { schema?: Record<string, unknown> }>; headers?: Record<string, unknown> }
  >;
}

const json = (s: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(s, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as Record<string, unknown>;
/** The keys of an object schema's JSON schema, in order. */
const keysOf = (s: z.ZodType) => Object.keys((json(s, 'input').properties ?? {}) as object);

describe('the routes of the contract', () => {
  let gw: TestGateway;
  let operations: Map<string, Operation>;
  beforeAll(async () => {
    gw = await startTestGateway();
    const doc = (await (await fetch(`${gw.httpUrl}/docs/json`)).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    operations = new Map();
    for (const [path, methods] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(methods))
        operations.set(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`, op);
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  it('are the routes the gateway serves, each one once', () => {
    const keys = Object.keys(ROUTES).sort();
    expect(keys.length).toBeGreaterThan(60);
    expect([...operations.keys()].sort()).toEqual(keys);
  });

  it('document their inputs with the contract’s schemas', () => {
    const wrong: string[] = [];
    for (const key of Object.keys(ROUTES) as RouteKey[]) {
      const r: (typeof ROUTES)[RouteKey] = ROUTES[key];
      const op = operations.get(key)!;
      const named = (where: string) => (op.parameters ?? []).filter((p) => p.in === where).map((p) => p.name);
      if (!('params' in r) ? named('path').length > 0 : `${named('path')}` !== `${keysOf(r.params)}`)
        wrong.push(`${key}: path parameters ${named('path')}`);
      if (!('query' in r) ? named('query').length > 0 : `${named('query')}` !== `${keysOf(r.query)}`)
        wrong.push(`${key}: query ${named('query')}`);
      const body = op.requestBody?.content['application/json']?.schema;
      if (
        !('body' in r) ? body !== undefined : JSON.stringify(body) !== JSON.stringify(json(r.body, 'input'))
      )
        wrong.push(`${key}: body`);
    }
    expect(wrong).toEqual([]);
  });

  it('document their answers with the contract’s schemas, and a paged list’s Link header', () => {
    const wrong: string[] = [];
    for (const key of Object.keys(ROUTES) as RouteKey[]) {
      const r: (typeof ROUTES)[RouteKey] = ROUTES[key];
      const op = operations.get(key)!;
      const statuses = 'status' in r ? r.status : [200];
      const ok = Object.keys(op.responses).filter((s) => /^2\d\d$/.test(s));
      if (`${ok}` !== `${statuses}`) wrong.push(`${key}: answers ${ok}, not ${statuses}`);
      for (const status of statuses) {
        const answer = op.responses[String(status)];
        const schema = answer?.content?.['application/json']?.schema;
        if (
          r.response === null
            ? schema !== undefined
            : JSON.stringify(schema) !== JSON.stringify(json(r.response, 'output'))
        )
          wrong.push(`${key}: ${status} answer`);
        if ('paged' in r !== (answer?.headers?.Link !== undefined)) wrong.push(`${key}: Link header`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('serves a route of the map by its key, and nothing beside it under /api', async () => {
    const sites = await fetch(`${gw.httpUrl}/api/sites`);
    expect(sites.status).toBe(200);
    const body = ROUTES['GET /api/sites'].response.parse(await sites.json());
    expect(body.map((s) => s.id)).toEqual(['maple-ridge', 'oak-lane']);
    // A path the map does not have is not served, whatever its method.
    for (const method of ['GET', 'POST', 'PATCH', 'DELETE']) {
      const r = await fetch(`${gw.httpUrl}/api/sites/maple-ridge/unknown`, { method });
      expect(r.status, method).toBe(404);
    }
  });
});
