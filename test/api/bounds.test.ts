/**
 * No input is without a bound: every string of every request body, query string and path parameter the
 * OpenAPI document describes has a `maxLength` (or is one of an `enum`), every array a `maxItems`, no object
 * takes a map of keys without a `maxProperties`, and every operation that takes a body names the most bytes
 * it reads (`x-body-limit`, the route's own `bodyLimit`). The device payloads (shared/src/telemetry.ts) are
 * walked the same way. A field without a bound let one account grow the store by megabytes an inspection
 * and run the gateway's heap out when the alerts were read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  deviceStatusSchema,
  serialPayloadSchema,
  telemetryPayloadSchema,
} from '../../shared/src/telemetry.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

type Schema = Record<string, unknown>;

/** Every place under `schema` where a value of any size is accepted, as paths. */
function unbounded(schema: unknown, at: string, out: string[] = []): string[] {
  if (schema === true) {
    out.push(`${at}: any value`);
    return out;
  }
  if (!schema || typeof schema !== 'object') return out;
  const s = schema as Schema;
  const types = Array.isArray(s.type) ? (s.type as string[]) : s.type ? [s.type as string] : [];
  const composed = ['anyOf', 'oneOf', 'allOf'].filter((k) => Array.isArray(s[k]));
  for (const k of composed)
    for (const [i, sub] of (s[k] as unknown[]).entries()) unbounded(sub, `${at}<${k}${i}>`, out);
  if ('enum' in s || 'const' in s) return out;
  if (types.length === 0 && composed.length === 0 && !s.properties && !s.items && !s.not) {
    out.push(`${at}: any value`);
    return out;
  }
  if (types.includes('string') && typeof s.maxLength !== 'number')
    out.push(`${at}: a string without maxLength`);
  if (types.includes('array')) {
    if (typeof s.maxItems !== 'number') out.push(`${at}: a list without maxItems`);
    if (Array.isArray(s.prefixItems))
      for (const [i, p] of (s.prefixItems as unknown[]).entries()) unbounded(p, `${at}[${i}]`, out);
    if (s.items !== undefined) unbounded(s.items, `${at}[]`, out);
  }
  if (types.includes('object') || s.properties) {
    for (const [k, v] of Object.entries((s.properties as Schema) ?? {})) unbounded(v, `${at}.${k}`, out);
    const extra = s.additionalProperties;
    if (extra !== undefined && extra !== false) {
      if (typeof s.maxProperties !== 'number') out.push(`${at}: a map without maxProperties`);
      if (extra !== true) unbounded(extra, `${at}.*`, out);
    }
  }
  return out;
}

interface Operation {
  parameters?: Array<{ name: string; in: string; schema?: unknown }>;
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  'x-body-limit'?: number;
}

/** Every unbounded input of every operation of an OpenAPI document. */
function unboundedInputs(doc: { paths: Record<string, Record<string, Operation>> }): string[] {
  const out: string[] = [];
  for (const [path, methods] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(methods)) {
      const name = `${method.toUpperCase()} ${path}`;
      for (const p of op.parameters ?? []) unbounded(p.schema ?? true, `${name} ${p.in} ${p.name}`, out);
      for (const [type, c] of Object.entries(op.requestBody?.content ?? {}))
        unbounded(c.schema ?? true, `${name} body (${type})`, out);
      const takesBody = op.requestBody !== undefined;
      if (takesBody && typeof op['x-body-limit'] !== 'number')
        out.push(`${name}: a body without x-body-limit`);
    }
  return out;
}

const deviceSchemas = {
  telemetry: telemetryPayloadSchema,
  serial: serialPayloadSchema,
  status: deviceStatusSchema,
};

describe('every input has a bound', () => {
  let gw: TestGateway;
  let doc: { paths: Record<string, Record<string, Operation>> };
  beforeAll(async () => {
    gw = await startTestGateway();
    doc = (await (await fetch(`${gw.httpUrl}/docs/json`)).json()) as typeof doc;
  });
  afterAll(() => gw?.cleanup());

  it('finds an unbounded field when there is one (the walk itself)', () => {
    expect(unbounded({ type: 'string' }, 'x')).toEqual(['x: a string without maxLength']);
    expect(unbounded({ type: 'string', pattern: '^[0-9a-f]{64}$' }, 'x')).toHaveLength(1);
    expect(unbounded({ type: 'array', items: { type: 'string', maxLength: 3 } }, 'x')).toHaveLength(1);
    expect(
      unbounded(
        { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'number' }] } } },
        'x',
      ),
    ).toEqual(['x.a<anyOf0>: a string without maxLength']);
    expect(unbounded({ type: 'object', additionalProperties: { type: 'number' } }, 'x')).toHaveLength(1);
    expect(unbounded({}, 'x')).toEqual(['x: any value']);
    expect(unbounded({ type: 'string', enum: ['a', 'b'] }, 'x')).toEqual([]);
  });

  it('every string and list of every body, query and path of the API', () => {
    const found = unboundedInputs(doc);
    expect(Object.keys(doc.paths).length).toBeGreaterThan(40);
    expect(found).toEqual([]);
  });

  it('every device payload', () => {
    const found = Object.entries(deviceSchemas).flatMap(([name, s]) =>
      unbounded(z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }), name),
    );
    expect(found).toEqual([]);
  });
});
