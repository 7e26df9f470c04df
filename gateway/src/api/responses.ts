/**
 * The answers of the API's routes, declared once with the contract's zod schemas (shared/src/api.ts).
 * The same schema that validates an answer is the one documented: `answers()` turns each into the JSON
 * schema of the route's OpenAPI operation with zod's own `z.toJSONSchema`, and remembers the zod schema
 * behind it, so that `validateResponses` can parse every JSON answer with it.
 *
 * Answers are serialised with JSON.stringify, as without a schema: a response schema documents and
 * validates, it never drops or coerces a field (fastify's compiled serialisers would).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { errorBodySchema } from '../../../shared/src/api.ts';
import { formatIssuePath } from '../config/load.ts';
import { errorBody } from './errors.ts';

/** The zod schema behind each route response's JSON schema. */
const zodOf = new WeakMap<object, z.ZodType>();

/** JSON schema of an answer, for the OpenAPI document; `io: 'output'` describes what is sent. */
function documented(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    target: 'openapi-3.0',
    io: 'output',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  zodOf.set(json, schema);
  return json;
}

/**
 * Every documented route also answers its refusals and failures (4xx, 5xx) with the contract's error
 * body (shared/src/api.ts), added here once rather than in each route.
 */
export function documentErrors(app: FastifyInstance): void {
  const error = documented(errorBodySchema);
  app.addHook('onRoute', (route) => {
    const schema = route.schema as { hide?: boolean; response?: Record<string, unknown> } | undefined;
    if (!schema || schema.hide) return;
    schema.response = { ...schema.response, '4xx': error, '5xx': error };
  });
}

/** An answer that is not JSON (a text, a page, an event stream): its media types, described. */
export interface OtherContent {
  description: string;
  /** Media type -> the zod schema of a JSON body, or `text` for a text one. */
  content: Record<string, z.ZodType | 'text'>;
}

const isOther = (a: z.ZodType | OtherContent): a is OtherContent => 'content' in a && !('_zod' in a);

/**
 * The `response` block of a route's schema: a zod schema per 2xx status (a JSON body), or several media
 * types (`OtherContent`).
 */
export function answers(r: Record<number, z.ZodType | OtherContent>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, a] of Object.entries(r)) {
    if (!isOther(a)) {
      out[status] = documented(a);
      continue;
    }
    const content: Record<string, { schema: Record<string, unknown> }> = {};
    for (const [type, s] of Object.entries(a.content))
      content[type] = { schema: s === 'text' ? { type: 'string' } : documented(s) };
    out[status] = { description: a.description, content };
  }
  return out;
}

/** The zod schema of a route's answer with this status and media type, when it was declared with one. */
function schemaOf(req: FastifyRequest, status: number, type: string): z.ZodType | undefined {
  const response = (req.routeOptions.schema?.response ?? {}) as Record<string, unknown>;
  const entry = (response[String(status)] ?? response['2xx']) as Record<string, unknown> | undefined;
  if (!entry) return undefined;
  const content = entry.content as Record<string, { schema: object }> | undefined;
  if (!content) return zodOf.get(entry);
  const media = content[type.split(';')[0]!.trim()];
  return media ? zodOf.get(media.schema) : undefined;
}

/**
 * Checks every JSON 2xx answer against its route's schema; a mismatch becomes a 500 naming the zod
 * issues, and an error in the log. For tests, where every answer read is thereby checked: production
 * leaves it off.
 */
export function validateResponses(app: FastifyInstance): void {
  app.addHook('onSend', async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const status = reply.statusCode;
    const type = String(reply.getHeader('content-type') ?? '');
    if (status < 200 || status >= 300 || !type.startsWith('application/json')) return payload;
    // Routes outside the API document (the explorer's own) declare no answers; every API route does
    // (test/api/openapi.test.ts).
    if (typeof payload !== 'string' || !req.routeOptions.schema?.response) return payload;
    const schema = schemaOf(req, status, type);
    const where = `${req.method} ${req.routeOptions.url} ${status}`;
    const issues = schema
      ? schema
          .safeParse(JSON.parse(payload))
          .error?.issues.map((i) => `${formatIssuePath(i.path)}: ${i.message}`)
      : [`no schema is declared for a ${type} answer`];
    if (!issues?.length) return payload;
    req.log.error({ route: where, issues }, 'an answer does not match its schema');
    reply.code(500);
    return JSON.stringify({
      ...errorBody('INTERNAL', `the answer of ${where} does not match its schema`),
      issues,
    });
  });
}
