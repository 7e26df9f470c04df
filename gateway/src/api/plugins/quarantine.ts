/**
 * The quarantine: GET /api/quarantine (the messages kept until they can be used, and the devices they
 * wait for; scoped to the caller's sites) and POST /api/quarantine/release (admin: a device's readings
 * kept for a clock ahead, released with a clock correction; a change record names who and the offset).
 */
import type { FastifyPluginAsync } from 'fastify';
import { quarantinePageQuery } from '../../../../shared/src/api/requests.ts';
import { releaseBody } from '../../../../shared/src/quarantine.ts';
import { QuarantineError } from '../../quarantine/service.ts';
import { mustSee } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { pageOf, sendPage } from '../paging.ts';
import { parseWith } from '../query.ts';
import { route } from '../routes.ts';

/** What the quarantine use. */
export type QuarantineServices = Pick<ApiContext, 'auth' | 'quarantine'>;

export const quarantinePlugin: FastifyPluginAsync<QuarantineServices> = async (app, ctx) => {
  app.route(
    route(
      'GET /api/quarantine',
      {
        schema: {
          tags: ['telemetry'],
          summary:
            'Messages kept in quarantine (a clock ahead, a device not registered yet), newest first, a page at a time; every device waiting',
        },
      },
      async (req, reply) => {
        const caller = ctx.auth.requireRead(req);
        const { cursor, ...q } = parseWith(quarantinePageQuery, req.query);
        if (q.siteId) mustSee(caller, q.siteId);
        const sites = caller?.sites;
        const page = pageOf({ cursor, limit: q.limit });
        const rows = ctx.quarantine.list({ ...q, limit: page.limit + 1 }, sites, page.after?.[0]);
        const items = sendPage(req, reply, rows, page, (m) => [m.id, m.id]);
        return { items, devices: ctx.quarantine.summary(q, sites) };
      },
    ),
  );

  app.route(
    route(
      'POST /api/quarantine/release',
      {
        schema: {
          tags: ['admin'],
          summary: "Release a device's quarantined readings with a clock correction (admin)",
          security: [{ bearer: [] }],
        },
      },
      async (req) => {
        const caller = ctx.auth.require(req, 'admin');
        const b = parseWith(releaseBody, req.body);
        try {
          return await ctx.quarantine.release(b, caller.actor);
        } catch (e) {
          if (e instanceof QuarantineError) throw new ApiError(e.code, e.message);
          throw e;
        }
      },
    ),
  );
};
