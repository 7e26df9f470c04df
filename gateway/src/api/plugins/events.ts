import type { FastifyPluginAsync } from 'fastify';
import { type Caller, maySee } from '../auth.ts';
import type { ApiContext } from '../context.ts';

const MAX_QUEUED = 1000;

/** What an owner or contractor is sent of the live feed: their own sites' events only. */
function visible(caller: Caller | undefined, data: unknown): boolean {
  if (caller?.sites === undefined) return true;
  const d = data as { siteId?: string; alert?: { siteId?: string }; latest?: Array<{ siteId: string }> };
  const siteId = d.siteId ?? d.alert?.siteId;
  if (siteId !== undefined) return maySee(caller, siteId);
  return d.latest?.some((r) => maySee(caller, r.siteId)) ?? false;
}

/** GET /api/events: server-sent events (readings summaries, device status, alert changes), live. */
export const eventsPlugin: FastifyPluginAsync<{ ctx: ApiContext }> = async (app, { ctx }) => {
  app.get(
    '/api/events',
    { schema: { tags: ['events'], summary: 'Server-sent events, live' } },
    (req, reply) => {
      const caller = ctx.auth.requireReadStream(req);
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
        if (queued > MAX_QUEUED || !visible(caller, e.data)) return;
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
