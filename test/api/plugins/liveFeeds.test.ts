/**
 * Live feeds are capped per account and in all (http.liveFeedsPerAccount, http.liveFeeds): at the cap
 * the next feed is refused with 429, Retry-After and words, before anything is held for it; a feed's
 * place is freed when it closes; the feeds open and refused are counted in /metrics. Before the cap any
 * one viewer token could open feeds until the heap ran out (about 10,750); the long form is
 * `npm run soak:feeds`.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { FeedRefused, type LiveFeed, openFeed } from '../../helpers/sse.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const PER_ACCOUNT = 3;
const TOTAL = 5;

describe('live feeds at their caps', () => {
  let gw: TestGateway;
  const feeds: LiveFeed[] = [];
  const open = async (token: string) => {
    const f = await openFeed(`${gw.httpUrl}/api/events`, { authorization: `Bearer ${token}` });
    feeds.push(f);
    return f;
  };
  const refusal = async (token: string) => {
    const e = await open(token).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(FeedRefused);
    const r = e as FeedRefused;
    return { status: r.status, retryAfter: r.retryAfter, body: JSON.parse(r.body) as unknown };
  };
  const metric = async (line: string) =>
    (await (await fetch(`${gw.httpUrl}/metrics`, { headers: { authorization: 'Bearer tok-c' } })).text())
      .split('\n')
      .find((l) => l.startsWith(line));

  beforeAll(async () => {
    gw = await startTestGateway({
      http: { liveFeeds: TOTAL, liveFeedsPerAccount: PER_ACCOUNT },
      auth: {
        tokens: ['a', 'b', 'c'].map((n) => ({
          name: `Viewer ${n}`,
          role: 'viewer' as const,
          tokenSha256: sha(`tok-${n}`),
        })),
      },
    } as never);
  });
  afterAll(async () => {
    for (const f of feeds) f.close();
    await gw?.cleanup();
  });

  it('refuses an account’s feed beyond its cap with 429, Retry-After and words; a closed one frees its place', async () => {
    const mine = [];
    for (let i = 0; i < PER_ACCOUNT; i++) mine.push(await open('tok-a'));
    expect(await refusal('tok-a')).toEqual({
      status: 429,
      retryAfter: '10',
      body: {
        error: 'LIVE_FEEDS_ACCOUNT',
        message:
          'You have too many live views of the gateway open: close a tab or window of the dashboard, then try again.',
      },
    });
    mine[0]!.close();
    await mine[0]!.closed;
    const again = await waitFor(
      () => open('tok-a').catch(() => undefined),
      10_000,
      'a feed once another of the account closed',
    );
    expect(again.events[0]?.type).toBe('hello');
  });

  it('refuses any feed beyond the gateway’s cap, whoever asks; counted in /metrics', async () => {
    // tok-a holds 3; tok-b takes the last 2 places.
    await open('tok-b');
    await open('tok-b');
    expect(await refusal('tok-c')).toEqual({
      status: 429,
      retryAfter: '60',
      body: {
        error: 'LIVE_FEEDS_FULL',
        message: 'The gateway has as many live views open as it can serve: try again in a minute.',
      },
    });
    expect(await metric('gateway_live_feeds ')).toBe(`gateway_live_feeds ${TOTAL}`);
    // At least the one above (the retry while the closed feed's place was being freed may add more).
    expect(await metric('gateway_live_feeds_refused_total{reason="account"}')).toMatch(/ [1-9]\d*$/);
    expect(await metric('gateway_live_feeds_refused_total{reason="total"}')).toMatch(/ 1$/);
    for (const f of feeds) f.close();
    await waitFor(
      async () => (await metric('gateway_live_feeds ')) === 'gateway_live_feeds 0' || undefined,
      10_000,
      'every place free once the feeds closed',
    );
    expect((await open('tok-c')).events[0]?.type).toBe('hello');
  });
});
