/**
 * A client of the gateway's live feed (`GET /api/events`, server-sent events) over a plain HTTP
 * connection, the way a browser's EventSource holds it: every event with the time it arrived, and when
 * the gateway ended the stream. Each event's data is checked against the contract (shared/src/api.ts).
 */
import { request } from 'node:http';
import { z } from 'zod';
import { liveEventSchemas } from '../../shared/src/api.ts';
import { withViewerToken } from './viewerFetch.ts';

export interface FeedEvent {
  type: string;
  data: unknown;
  /** Date.now() when it arrived. */
  at: number;
}

export interface LiveFeed {
  events: FeedEvent[];
  /** The events of a type that arrived after `since` (Date.now()). */
  count(type: string, since?: number): number;
  /** Date.now() when the gateway ended the stream, or undefined while it is open. */
  closedAt(): number | undefined;
  /** Resolves when the stream ends. */
  closed: Promise<void>;
  /** Ends the stream from this side. */
  close(): void;
}

/** The answer when the gateway refused to open the feed. */
export class FeedRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    /** Its Retry-After header, when it had one. */
    readonly retryAfter?: string,
  ) {
    super(`the live feed was refused: HTTP ${status} ${body}`);
  }
}

/**
 * Opens the feed (to a test gateway with its viewer token unless `headers` or the URL bring credentials);
 * resolves once its `hello` event arrived, rejects with FeedRefused on an error answer.
 */
export function openFeed(url: string, headers: Record<string, string> = {}): Promise<LiveFeed> {
  return new Promise((resolve, reject) => {
    const sent = withViewerToken(url, new Headers({ accept: 'text/event-stream', ...headers }));
    const req = request(url, { headers: Object.fromEntries(sent) });
    req.once('error', reject);
    req.once('response', (res) => {
      res.setEncoding('utf8');
      if (res.statusCode !== 200) {
        let body = '';
        res.on('data', (d: string) => {
          body += d;
        });
        res.once('end', () => {
          const retry = res.headers['retry-after'];
          reject(new FeedRefused(res.statusCode ?? 0, body, typeof retry === 'string' ? retry : undefined));
        });
        return;
      }
      const events: FeedEvent[] = [];
      let closedAt: number | undefined;
      let buffer = '';
      let settled = false;
      const closed = new Promise<void>((done) => {
        res.once('close', () => {
          closedAt ??= Date.now();
          done();
          if (!settled) reject(new Error('the live feed ended before its hello event'));
        });
      });
      const feed: LiveFeed = {
        events,
        count: (type, since = 0) => events.filter((e) => e.type === type && e.at > since).length,
        closedAt: () => closedAt,
        closed,
        close: () => req.destroy(),
      };
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
          let type = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) type = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length === 0) continue; // a comment (ping)
          const parsed: unknown = JSON.parse(data.join('\n'));
          // Every event read is checked against the contract's schema of its kind: a mismatch fails the test.
          const checked = (liveEventSchemas as Record<string, z.ZodType>)[type]?.safeParse(parsed);
          if (checked && !checked.success)
            throw new Error(
              `the live feed's ${type} event does not match its schema: ${z.prettifyError(checked.error)}`,
            );
          events.push({ type, data: parsed, at: Date.now() });
          if (type === 'hello' && !settled) {
            settled = true;
            resolve(feed);
          }
        }
      });
    });
    req.end();
  });
}
