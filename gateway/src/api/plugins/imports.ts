import type { FastifyPluginAsync } from 'fastify';
import { importQuery } from '../../import/request.ts';
import { ImportFormatError } from '../../import/types.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { parseWith } from '../query.ts';
import { route } from '../routes.ts';

export { type ImportQuery, importQuery } from '../../import/request.ts';

/**
 * A file is parsed and evaluated whole, inside the gateway's heap (128 MB). Five months of one-row-per-tip
 * HOBO data is 350 KB; a 4 MiB file (about 160,000 tips) takes about 80 s to evaluate and stays well inside
 * the heap, while a 16 MiB one exhausts it. Larger downloads are imported in parts: a device's later
 * files continue where the earlier ones ended.
 */
export const MAX_UPLOAD = 4 * 1024 * 1024;

/**
 * POST /api/import: a rain-gauge logger download (HOBO CSV or Campbell TOA5) as the request body, fed
 * through the same store and rules as live data. Importing a file twice stores nothing new.
 */
/** What logger file imports use. */
export type ImportsServices = Pick<ApiContext, 'auth' | 'importLogger' | 'registry'>;

export const importsPlugin: FastifyPluginAsync<ImportsServices> = async (app, ctx) => {
  app.addHook('onError', async (_req, _reply, err) => {
    // Fastify refuses an oversized body before the handler runs; say what to do about it.
    if ((err as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      err.message = `the file is larger than ${MAX_UPLOAD / 1024 / 1024} MiB: split it and import the parts in order`;
  });
  app.addContentTypeParser(
    ['text/plain', 'text/csv', 'application/octet-stream'],
    { parseAs: 'string', bodyLimit: MAX_UPLOAD },
    (_req, body, done) => done(null, body),
  );
  app.route(
    route(
      'POST /api/import',
      {
        bodyLimit: MAX_UPLOAD,
        schema: {
          tags: ['telemetry'],
          summary: 'Import a rain-gauge logger file (engineer or above); the body is the file',
          security: [{ bearer: [] }],
        },
      },
      async (req) => {
        ctx.auth.require(req, 'engineer');
        const q = parseWith(importQuery, req.query);
        const device = ctx.registry.lookup(q.siteId, q.deviceId);
        if (!device) throw new ApiError('NOT_FOUND', `no device ${q.deviceId} at ${q.siteId}`);
        if (device.kind !== 'rain-gauge')
          throw new ApiError('BAD_REQUEST', `${q.deviceId} is a ${device.kind}, not a rain gauge`);
        if (typeof req.body !== 'string' || req.body.length === 0)
          throw new ApiError('BAD_REQUEST', 'send the file as the request body (Content-Type: text/plain)');
        try {
          return await ctx.importLogger(req.body, q);
        } catch (e) {
          if (e instanceof ImportFormatError || e instanceof RangeError)
            throw new ApiError('BAD_REQUEST', e.message);
          throw e;
        }
      },
    ),
  );
};
