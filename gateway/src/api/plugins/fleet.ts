import type { FastifyPluginAsync } from 'fastify';
import type { ApiContext } from '../context.ts';

/** GET /api/fleet: the gateways this one follows, read-only, each with its sites, status and staleness. */
export const fleetPlugin: FastifyPluginAsync<{ ctx: ApiContext }> = async (app, { ctx }) => {
  app.get(
    '/api/fleet',
    {
      schema: {
        tags: ['fleet'],
        summary: "Followed gateways' sites with their devices and open duties (read-only)",
      },
    },
    async (req) => {
      ctx.auth.requireRead(req);
      return ctx.fleet.view();
    },
  );
};
