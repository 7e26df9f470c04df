/**
 * A route registered from the contract's map of routes (shared/src/api/routes.ts): its method and path
 * are its key, and its documented path parameters, query string, body and answers are the map's zod
 * schemas, so that each is written once. The plugin gives what is its own: the tags and words of the
 * OpenAPI document, its options (a body limit, a hook) and its handler, which parses with the same
 * schemas (`ROUTES[key].query`, …).
 */
import type { HTTPMethods, RouteHandlerMethod, RouteOptions, RouteShorthandOptions } from 'fastify';
import type { z } from 'zod';
import { ROUTES, type RouteKey, type RouteSchemas } from '../../../shared/src/api/routes.ts';
import { LINK_HEADER } from './paging.ts';
import { openapi } from './query.ts';
import { answers, type OtherContent } from './responses.ts';

export { ROUTES, type RouteKey } from '../../../shared/src/api/routes.ts';

/** What a route's OpenAPI operation says in words, and its answers that are not the contract's JSON. */
export interface RouteDoc {
  tags: string[];
  summary: string;
  description?: string;
  security?: Array<Record<string, string[]>>;
  /**
   * The 2xx answer's other media types (a CSV, a page, a text): beside `application/json` when the
   * route answers JSON too, alone when it does not.
   */
  media?: OtherContent;
  /** Answers of other statuses than the 2xx JSON one (a form's redirect). */
  also?: Record<number, OtherContent>;
  /**
   * The gateway's narrower schema of an input than the contract's (a rule id among the rules it runs):
   * documented and parsed instead of it.
   */
  narrow?: { query?: z.ZodType };
}

/** The `schema` of the route `key`: its words, its inputs and its answers. */
function schemaOf(key: RouteKey, doc: RouteDoc): Record<string, unknown> {
  const r: RouteSchemas = ROUTES[key];
  const { media, also, narrow, ...words } = doc;
  const query = narrow?.query ?? r.query;
  const answered: Record<number, z.ZodType | OtherContent> = { ...also };
  for (const status of r.status ?? [200]) {
    if (r.response === null && media === undefined) throw new Error(`${key} answers nothing documented`);
    answered[status] =
      media === undefined
        ? r.response!
        : {
            description: media.description,
            content:
              r.response === null ? media.content : { 'application/json': r.response, ...media.content },
          };
  }
  const response = answers(answered);
  if (r.paged)
    for (const status of r.status ?? [200])
      (response[status] as Record<string, unknown>).headers = LINK_HEADER;
  return {
    ...words,
    ...(r.params ? { params: openapi(r.params) } : {}),
    ...(query ? { querystring: openapi(query) } : {}),
    ...(r.body ? { body: openapi(r.body) } : {}),
    response,
  };
}

/**
 * The route `METHOD /path` of the contract, with its schemas, the plugin's words and options, and its
 * handler: `app.route(route('GET /api/alerts', { schema: { tags, summary } }, handler))`.
 */
export function route(
  key: RouteKey,
  opts: Omit<RouteShorthandOptions, 'schema'> & { schema: RouteDoc },
  handler: RouteHandlerMethod,
): RouteOptions {
  const space = key.indexOf(' ');
  const { schema, ...rest } = opts;
  return {
    ...rest,
    method: key.slice(0, space) as HTTPMethods,
    url: key.slice(space + 1),
    schema: schemaOf(key, schema),
    handler,
  } as RouteOptions;
}
