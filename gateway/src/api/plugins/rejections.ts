import type { FastifyPluginAsync } from 'fastify';
import { rejectionsQuery } from '../../../../shared/src/api/requests.ts';
import { mustSee } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { pageOf, sendPage } from '../paging.ts';
import { parseWith } from '../query.ts';
import { route } from '../routes.ts';

/** GET /api/rejections: the latest rejected messages with their reasons. */
/** What the rejected messages use. */
export type RejectionsServices = Pick<ApiContext, 'auth' | 'readings'>;

export const rejectionsPlugin: FastifyPluginAsync<RejectionsServices> = async (app, ctx) => {
  app.route(
    route(
      'GET /api/rejections',
      {
        schema: {
          tags: ['telemetry'],
          summary: 'Latest rejected messages, newest first, a page at a time',
        },
      },
      async (req, reply) => {
        const caller = ctx.auth.requireRead(req);
        const q = parseWith(rejectionsQuery, req.query);
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
    ),
  );
};
