import type { FastifyPluginAsync } from 'fastify';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';

/** GET /api/health and GET /metrics. */
export const healthPlugin: FastifyPluginAsync<{ ctx: ApiContext }> = async (app, { ctx }) => {
  app.get(
    '/api/health',
    {
      schema: {
        tags: ['health'],
        summary: 'Gateway health: broker, serial ports, store, InfluxDB and its backlog',
      },
    },
    async (_req, reply) => {
      const h = ctx.health();
      reply.code(h.components.find((c) => c.name === 'store' && !c.ok) ? 503 : 200);
      return h;
    },
  );
  app.get(
    '/api/auth/me',
    {
      schema: {
        tags: ['health'],
        summary: 'Who the bearer token belongs to, and its role',
        security: [{ bearer: [] }],
      },
    },
    async (req) => {
      const caller = ctx.auth.caller(req);
      if (!caller) throw new ApiError('UNAUTHORIZED');
      return caller;
    },
  );
  app.get(
    '/metrics',
    { schema: { tags: ['health'], summary: 'Prometheus metrics (text exposition format)' } },
    async (_req, reply) => {
      reply.type('text/plain; version=0.0.4; charset=utf-8');
      return ctx.metrics.render();
    },
  );
};
