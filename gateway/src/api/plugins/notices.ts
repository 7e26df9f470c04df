import type { FastifyPluginAsync } from 'fastify';
import { noticesQuery } from '../../../../shared/src/api/requests.ts';
import { noticeBody } from '../../../../shared/src/api.ts';
import { toIso } from '../../../../shared/src/time.ts';
import { type Caller, mustSee } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { pageOf, sendPage } from '../paging.ts';
import { parseWith } from '../query.ts';
import { route } from '../routes.ts';

/** The earliest milestone time a notice may name, and how far ahead at most. */
const EARLIEST = Date.UTC(2000, 0, 1);
const MAX_AHEAD_MS = 366 * 86_400_000;

/** What the milestone notice routes use. */
export type NoticesServices = Pick<ApiContext, 'auth' | 'catalogue' | 'enforcement' | 'now'>;

/**
 * Milestone notices (town law 001, A(1)): filed by the people who answer for a construction site (its
 * owner or contractor) or by an inspector, engineer or admin; late when filed less than 48 hours before.
 */
export const noticesPlugin: FastifyPluginAsync<NoticesServices> = async (app, ctx) => {
  const c = ctx.enforcement.notices;
  const knownSite = (siteId: string, caller: Caller | undefined) => {
    mustSee(caller, siteId);
    const site = ctx.catalogue.site(siteId);
    if (!site) throw new ApiError('NOT_FOUND', `no site ${siteId}`);
    return site;
  };

  app.route(
    route(
      'POST /api/notices',
      {
        schema: {
          tags: ['notices'],
          summary:
            'Notify the town of a construction milestone; late when filed less than 48 hours before it (recorded all the same)',
          security: [{ bearer: [] }],
        },
      },
      async (req, reply) => {
        const caller = ctx.auth.require(req, 'inspector');
        const b = parseWith(noticeBody, req.body);
        const site = knownSite(b.siteId, caller);
        if (site.kind !== 'construction')
          throw new ApiError(
            'NOT_CONSTRUCTION',
            `${site.name} is not a construction site: milestone notices are for construction sites only`,
          );
        const at = Date.parse(b.at);
        const now = ctx.now();
        if (at < EARLIEST) throw new ApiError('BAD_REQUEST', 'a milestone cannot be before 2000');
        if (at > now + MAX_AHEAD_MS)
          throw new ApiError(
            'BAD_REQUEST',
            `a milestone can be notified at most a year ahead, until ${toIso(now + MAX_AHEAD_MS)}`,
          );
        const filed = c.file({ siteId: b.siteId, milestone: b.milestone, at }, caller.actor);
        reply.code(201);
        return filed;
      },
    ),
  );

  app.route(
    route(
      'GET /api/notices',
      {
        schema: {
          tags: ['notices'],
          summary:
            'Milestone notices whose milestone falls in a time range, on time or late; newest first, a page at a time',
        },
      },
      async (req, reply) => {
        const caller = ctx.auth.requireRead(req);
        const { cursor, limit, ...q } = parseWith(noticesQuery, req.query);
        if (q.siteId !== undefined) knownSite(q.siteId, caller);
        const page = pageOf({ cursor, limit });
        const rows = c.list({
          ...q,
          ...(caller?.sites === undefined ? {} : { siteIds: caller.sites }),
          page,
        });
        return sendPage(req, reply, rows, page, (n) => [Date.parse(n.at), n.id]);
      },
    ),
  );
};
