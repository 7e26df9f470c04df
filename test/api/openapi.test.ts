/**
 * The API document: every operation answers with a declared 2xx schema (the contract's, shared/src/api.ts),
 * and `validateResponses` turns an answer that does not match its schema into a loud failure.
 */
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answers, validateResponses } from '../../gateway/src/api/responses.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

describe('the OpenAPI document', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  it('gives every operation a 2xx answer with a schema, and its refusals the error body', async () => {
    const doc = (await (await fetch(`${gw.httpUrl}/docs/json`)).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const operations: string[] = [];
    const missing: string[] = [];
    const noErrors: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(methods)) {
        const name = `${method.toUpperCase()} ${path}`;
        operations.push(name);
        const ok = Object.entries(op.responses ?? {}).filter(([status]) => /^2\d\d$/.test(status));
        const described = ok.some(([, r]) =>
          Object.values(r.content ?? {}).some((c) => c.schema !== undefined),
        );
        if (!described) missing.push(name);
        const refusal = Object.entries(op.responses ?? {}).find(([status]) => /^4xx$/i.test(status))?.[1];
        if (!refusal?.content?.['application/json']?.schema) noErrors.push(name);
      }
    expect(operations.length).toBeGreaterThan(40);
    expect(missing).toEqual([]);
    // Their refusals answer with the error body.
    expect(noErrors).toEqual([]);
  });
});

describe('validateResponses', () => {
  const app = Fastify();
  beforeAll(async () => {
    app.setSerializerCompiler(() => (data) => JSON.stringify(data));
    validateResponses(app);
    const schema = z.object({ n: z.number() });
    app.get('/good', { schema: { response: answers({ 200: schema }) } }, async () => ({
      n: 1,
      extra: 'kept',
    }));
    app.get('/bad', { schema: { response: answers({ 200: schema }) } }, async () => ({ n: 'one' }));
    app.get('/none', async () => ({ anything: true }));
    await app.ready();
  });
  afterAll(() => app.close());

  it('sends an answer that matches, every field of it', async () => {
    const r = await app.inject('/good');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ n: 1, extra: 'kept' });
  });

  it('turns an answer that does not match into a 500 naming the issues', async () => {
    const r = await app.inject('/bad');
    expect(r.statusCode).toBe(500);
    const body = r.json() as { error: string; issues: string[] };
    expect(body.error).toBe('INTERNAL');
    expect(body.issues.join('\n')).toMatch(/^n: /);
  });

  it('leaves a route outside the document alone', async () => {
    expect((await app.inject('/none')).statusCode).toBe(200);
  });
});
