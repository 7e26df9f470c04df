import type { FastifyPluginAsync } from 'fastify';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { route } from '../routes.ts';

/**
 * GET /api/health and GET /metrics. Both need a signed-in person or a viewer token for their details;
 * /api/health answers a liveness probe without credentials with its status alone and the gateway's facts
 * (whether the public view is on, the configured time zone: the dashboard's first page reads them). /metrics
 * covers every site's devices and duties: an owner's or contractor's account (which sees its own sites
 * only) is refused it.
 */
/** What health and metrics use. */
export type HealthServices = Pick<ApiContext, 'auth' | 'config' | 'health' | 'metrics'>;

export const healthPlugin: FastifyPluginAsync<HealthServices> = async (app, ctx) => {
  app.route(
    route(
      'GET /api/health',
      {
        schema: {
          tags: ['health'],
          summary: 'Gateway health: broker, serial ports, store, InfluxDB and its backlog',
        },
      },
      async (req, reply) => {
        const h = ctx.health();
        reply.code(h.components.find((c) => c.name === 'store' && !c.ok) ? 503 : 200);
        const facts = { publicView: ctx.auth.publicViewOn, timezone: ctx.config.timezone };
        if (!ctx.auth.caller(req)) return { status: h.status, ...facts };
        return { ...h, ...facts };
      },
    ),
  );
  app.route(
    route(
      'GET /metrics',
      {
        schema: {
          tags: ['health'],
          summary: 'Prometheus metrics (text exposition format)',
          media: { description: 'The metrics', content: { 'text/plain': 'text' } },
        },
      },
      async (req, reply) => {
        const caller = ctx.auth.requireRead(req);
        if (caller?.sites !== undefined) throw new ApiError('METRICS_STAFF');
        reply.type('text/plain; version=0.0.4; charset=utf-8');
        return ctx.metrics.render();
      },
    ),
  );
};
