/** The live feed (server-sent events): a connection indicator, and reconnection by itself. */

export type LiveState = 'connecting' | 'live' | 'reconnecting';

export type LiveHandlers = {
  onEvent: (type: string, data: unknown) => void;
  onState: (s: LiveState, detail: string) => void;
  onReconnected: () => void;
};

import { getToken } from './api.js';

export const EVENT_TYPES = ['readings', 'device-status', 'alert', 'storm', 'inspection'];

/**
 * Opens /api/events and keeps it open. The browser retries a dropped stream itself; when it gives up
 * (the stream closed for good, e.g. the gateway answered with an error), a new one is opened with backoff.
 */
export function connectLive(handlers: LiveHandlers, path: string = '/api/events') {
  let es: EventSource | undefined;
  let attempt = 0;
  let everConnected = false;
  let lostSince = 0;

  let retry: ReturnType<typeof setTimeout> | undefined;

  const open = () => {
    clearTimeout(retry);
    es?.close();
    handlers.onState(everConnected ? 'reconnecting' : 'connecting', '');
    // EventSource cannot send an Authorization header: a gateway that requires tokens for reads takes it here.
    const token = getToken();
    es = new EventSource(token ? `${path}?access_token=${encodeURIComponent(token)}` : path);
    es.addEventListener('hello', () => {
      attempt = 0;
      handlers.onState('live', '');
      if (everConnected && lostSince) handlers.onReconnected();
      everConnected = true;
      lostSince = 0;
    });
    for (const type of EVENT_TYPES)
      es.addEventListener(type, (e) => {
        let data: unknown;
        try {
          data = JSON.parse((e as MessageEvent).data);
        } catch {
          return;
        }
        handlers.onEvent(type, data);
      });
    es.onerror = () => {
      if (!lostSince) lostSince = Date.now();
      const current = es;
      if (current && current.readyState === EventSource.CLOSED) {
        attempt++;
        const wait = Math.min(30_000, 1000 * 2 ** Math.min(attempt - 1, 5));
        handlers.onState('reconnecting', `retrying in ${Math.round(wait / 1000)} s`);
        retry = setTimeout(open, wait);
      } else handlers.onState('reconnecting', '');
    };
  };
  open();
  return {
    close() {
      clearTimeout(retry);
      es?.close();
    },
  };
}
