import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { ImportFormatError } from '../../import/parsers.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { openapi, parseWith } from '../query.ts';

export const importQuery = z.strictObject({
  siteId: z.string().min(1),
  deviceId: z.string().min(1),
  name: z.string().max(200).default('upload'),
  format: z.enum(['hobo-csv', 'toa5']).optional(),
  utcOffsetMinutes: z.coerce.number().int().min(-840).max(840).optional(),
  timeZone: z.string().min(1).optional(),
  skipBefore: z.iso.datetime({ offset: true }).optional(),
});
export type ImportQuery = z.infer<typeof importQuery>;

/** A year of one-row-per-tip logger data is well under 1 MB; the limit keeps an upload far below the heap. */
const MAX_UPLOAD = 16 * 1024 * 1024;

/**
 * POST /api/import: a rain-gauge logger download (HOBO CSV or Campbell TOA5) as the request body, fed
 * through the same store and rules as live data. Importing a file twice stores nothing new.
 */
export const importsPlugin: FastifyPluginAsync<{ ctx: ApiContext }> = async (app, { ctx }) => {
  app.addContentTypeParser(
    ['text/plain', 'text/csv', 'application/octet-stream'],
    { parseAs: 'string', bodyLimit: MAX_UPLOAD },
    (_req, body, done) => done(null, body),
  );
  app.post(
    '/api/import',
    {
      bodyLimit: MAX_UPLOAD,
      schema: {
        tags: ['telemetry'],
        summary: 'Import a rain-gauge logger file (engineer or above); the body is the file',
        querystring: openapi(importQuery),
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
  );
};
