import type { FastifyPluginAsync } from 'fastify';
import { liveEventSchemas } from '../../../../shared/src/api.ts';
import { type Caller, maySee } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { route } from '../routes.ts';

const MAX_QUEUED = 1000;

/** What an owner or contractor is sent of an event of the live feed: their own sites' part, or nothing. */
function scoped(caller: Caller | undefined, data: unknown): unknown {
  if (caller?.sites === undefined) return data;
  const d = data as { siteId?: string; alert?: { siteId?: string }; latest?: Array<{ siteId: string }> };
  const siteId = d.siteId ?? d.alert?.siteId;
  if (siteId !== undefined) return maySee(caller, siteId) ? data : undefined;
  const latest = d.latest?.filter((r) => maySee(caller, r.siteId));
  return latest?.length ? { ...d, count: latest.length, latest } : undefined;
}

/** What a refused feed is asked to wait: a tab closed frees its place at once; the gateway's, later. */
const RETRY_ACCOUNT_SEC = 10;
const RETRY_FULL_SEC = 60;

/** Whose feeds count together: an account or a configured token (an address, for a caller without either). */
function holder(caller: Caller | undefined, address: string): string {
  if (caller?.userId !== undefined) return `user:${caller.userId}`;
  if (caller) return `token:${caller.tokenName ?? caller.name}`;
  return `address:${address}`;
}

/** How often the open feeds' rights are checked again (expiries; changes are checked at once). */
const RECHECK_MS = 1000;

const ENDED =
  'Your access has ended: you signed out, your password was changed, your account was disabled, or the ' +
  'token was revoked or expired. Sign in again to go on.';

/**
 * GET /api/events: server-sent events (readings summaries, device status, alert changes), live. A feed
 * lasts as long as the rights it was opened with: it is checked again right after any change of accounts,
 * sessions or tokens and every second, and ends (a last `closed` event says why) once they are gone.
 * Feeds are capped per holder (`http.liveFeedsPerAccount`) and in all (`http.liveFeeds`): beyond, 429
 * with Retry-After and words; a feed's place is freed when it closes.
 */
/** What the live feed use. */
export type EventsServices = Pick<ApiContext, 'auth' | 'config' | 'events' | 'metrics'>;

export const eventsPlugin: FastifyPluginAsync<EventsServices> = async (app, ctx) => {
  const ended = ctx.metrics.counter(
    'gateway_live_feeds_ended_total',
    'Live feeds ended because their rights ended (rights) or could not be checked again (check_failed)',
  );
  const refused = ctx.metrics.counter(
    'gateway_live_feeds_refused_total',
    'Live feeds refused because their account (account) or the gateway (total) had as many open as allowed',
  );
  const perHolder = new Map<string, number>();
  let open = 0;
  ctx.metrics.gauge('gateway_live_feeds', 'Live feeds open now').collect((set) => set(open));
  const { liveFeeds, liveFeedsPerAccount } = ctx.config.http;
  /** Takes a place for a feed of `who`, or refuses it; the function returned frees the place (once). */
  const take = (who: string): (() => void) => {
    const mine = perHolder.get(who) ?? 0;
    if (mine >= liveFeedsPerAccount) {
      refused.inc({ reason: 'account' });
      throw new ApiError('LIVE_FEEDS_ACCOUNT', undefined, RETRY_ACCOUNT_SEC);
    }
    if (open >= liveFeeds) {
      refused.inc({ reason: 'total' });
      throw new ApiError('LIVE_FEEDS_FULL', undefined, RETRY_FULL_SEC);
    }
    perHolder.set(who, mine + 1);
    open++;
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      open--;
      const left = (perHolder.get(who) ?? 1) - 1;
      if (left > 0) perHolder.set(who, left);
      else perHolder.delete(who);
    };
  };
  const timer = setInterval(() => ctx.events.recheck(), RECHECK_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
  app.route(
    route(
      'GET /api/events',
      {
        schema: {
          tags: ['events'],
          summary: 'Server-sent events, live',
          description: `Events: ${Object.keys(liveEventSchemas).join(', ')}; their data are the contract's liveEventSchemas.`,
          media: { description: 'The event stream', content: { 'text/event-stream': 'text' } },
        },
      },
      (req, reply) => {
        let caller = ctx.auth.requireReadStream(req);
        const free = take(holder(caller, req.ip));
        reply.hijack();
        const res = reply.raw;
        // The place is freed however the feed ends: closed by the client, by the gateway, or cut.
        res.once('close', free);
        res.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
          connection: 'keep-alive',
          'x-accel-buffering': 'no',
        });
        res.write(`event: hello\ndata: ${JSON.stringify({ gatewayId: ctx.config.gatewayId })}\n\n`);
        let queued = 0;
        const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
        const end = (reason: string) => {
          clearInterval(ping);
          res.end(`event: closed\ndata: ${JSON.stringify({ reason })}\n\n`);
          return false;
        };
        // The feed's rights, checked again while it stays open.
        const stillAllowed = (opened: Caller) => () => {
          let now: Caller | undefined;
          try {
            now = ctx.auth.again(opened);
          } catch {
            // Counted, and the client told: a feed whose rights cannot be checked does not go on.
            ended.inc({ reason: 'check_failed' });
            return end('The gateway could not check your access again just now: reconnect to go on.');
          }
          if (!now) {
            ended.inc({ reason: 'rights' });
            return end(ENDED);
          }
          caller = now;
          return true;
        };
        const unsubscribe = ctx.events.subscribe((e) => {
          const data = scoped(caller, e.data);
          if (queued > MAX_QUEUED || data === undefined) return;
          const ok = res.write(`event: ${e.type}\ndata: ${JSON.stringify(data)}\n\n`);
          if (!ok) {
            queued++;
            res.once('drain', () => {
              queued = 0;
            });
          }
        }, caller && stillAllowed(caller));
        req.raw.on('close', () => {
          clearInterval(ping);
          unsubscribe();
        });
      },
    ),
  );
};
