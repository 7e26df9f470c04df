import type { FastifyPluginAsync } from 'fastify';
import { maySee } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { route } from '../routes.ts';

/**
 * GET /api/fleet: the gateways this one follows, read-only, each with its sites, status and staleness; for
 * an owner or contractor, only their own sites.
 */
/** What the fleet view use. */
export type FleetServices = Pick<ApiContext, 'auth' | 'fleet'>;

export const fleetPlugin: FastifyPluginAsync<FleetServices> = async (app, ctx) => {
  app.route(
    route(
      'GET /api/fleet',
      {
        schema: {
          tags: ['fleet'],
          summary: "Followed gateways' sites with their devices and open duties (read-only)",
        },
      },
      async (req) => {
        const caller = ctx.auth.requireRead(req);
        const view = ctx.fleet.view();
        if (caller?.sites === undefined) return view;
        // An owner or contractor sees of other gateways only their own sites, as everywhere else.
        const gateways = view.gateways
          .map((g) => ({ ...g, sites: g.sites.filter((s) => maySee(caller, s.id)) }))
          .filter((g) => g.sites.length > 0);
        return { ...view, gateways };
      },
    ),
  );
};
