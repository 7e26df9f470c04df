import type { FastifyPluginAsync } from 'fastify';
import type { ApiContext } from '../context.ts';

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
    '/metrics',
    { schema: { tags: ['health'], summary: 'Prometheus metrics (text exposition format)' } },
    async (_req, reply) => {
      reply.type('text/plain; version=0.0.4; charset=utf-8');
      return ctx.metrics.render();
    },
  );
};
