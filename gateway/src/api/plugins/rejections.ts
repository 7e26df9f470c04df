import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { rejectionSchema } from '../../../../shared/src/api.ts';
import { idText } from '../../../../shared/src/bounds.ts';
import { REJECT_REASONS } from '../../../../shared/src/telemetry.ts';
import { maySee, mustSee } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { openapi, parseWith } from '../query.ts';
import { answers } from '../responses.ts';

const query = z.strictObject({
  reason: z.enum(REJECT_REASONS).optional(),
  siteId: idText().optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

/** GET /api/rejections: the latest rejected messages with their reasons. */
/** What the rejected messages use. */
export type RejectionsServices = Pick<ApiContext, 'auth' | 'readings'>;

export const rejectionsPlugin: FastifyPluginAsync<RejectionsServices> = async (app, ctx) => {
  app.get(
    '/api/rejections',
    {
      schema: {
        tags: ['telemetry'],
        summary: 'Latest rejected messages, newest first',
        querystring: openapi(query),
        response: answers({ 200: z.array(rejectionSchema) }),
      },
    },
    async (req) => {
      const caller = ctx.auth.requireRead(req);
      const q = parseWith(query, req.query);
      if (q.siteId) mustSee(caller, q.siteId);
      return ctx.readings
        .recentRejections({
          limit: q.limit,
          ...(q.reason ? { reason: q.reason } : {}),
          ...(q.siteId ? { siteId: q.siteId } : {}),
        })
        .filter((r) => caller?.sites === undefined || (r.siteId != null && maySee(caller, r.siteId)))
        .map((r) => ({ ...r, at: new Date(r.at).toISOString() }));
    },
  );
};
