import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { rejectionSchema } from '../../../../shared/src/api.ts';
import { idText } from '../../../../shared/src/bounds.ts';
import { REJECT_REASONS } from '../../../../shared/src/telemetry.ts';
import { mustSee } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { paged, pageOf, pageShape, sendPage } from '../paging.ts';
import { openapi, parseWith } from '../query.ts';

const query = z.strictObject({
  reason: z.enum(REJECT_REASONS).optional(),
  siteId: idText().optional(),
  ...pageShape,
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
        summary: 'Latest rejected messages, newest first, a page at a time',
        querystring: openapi(query),
        response: paged(rejectionSchema),
      },
    },
    async (req, reply) => {
      const caller = ctx.auth.requireRead(req);
      const q = parseWith(query, req.query);
      if (q.siteId) mustSee(caller, q.siteId);
      const page = pageOf(q);
      const rows = ctx.readings.recentRejections({
        ...(q.reason ? { reason: q.reason } : {}),
        ...(q.siteId ? { siteId: q.siteId } : {}),
        ...(caller?.sites === undefined ? {} : { siteIds: caller.sites }),
        page,
      });
      return sendPage(req, reply, rows, page, (r) => [r.id ?? 0, r.id ?? 0]).map((r) => ({
        ...r,
        at: new Date(r.at).toISOString(),
      }));
    },
  );
};
