import type { FastifyPluginAsync } from 'fastify';
import type { ApiContext } from '../context.ts';

const MAX_QUEUED = 1000;

/** GET /api/events: server-sent events (readings summaries, device status, alert changes), live. */
export const eventsPlugin: FastifyPluginAsync<{ ctx: ApiContext }> = async (app, { ctx }) => {
  app.get(
    '/api/events',
    { schema: { tags: ['events'], summary: 'Server-sent events, live' } },
    (req, reply) => {
      ctx.auth.requireReadStream(req);
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      res.write(`event: hello\ndata: ${JSON.stringify({ gatewayId: ctx.config.gatewayId })}\n\n`);
      let queued = 0;
      const unsubscribe = ctx.events.subscribe((e) => {
        if (queued > MAX_QUEUED) return;
        const ok = res.write(`event: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`);
        if (!ok) {
          queued++;
          res.once('drain', () => {
            queued = 0;
          });
        }
      });
      const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
      req.raw.on('close', () => {
        clearInterval(ping);
        unsubscribe();
      });
    },
  );
};
