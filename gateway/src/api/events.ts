/**
 * A small fan-out hub for server-sent events. Slow clients are dropped rather than buffered without bound.
 * A subscriber may bring a check of its rights: `recheck()` asks every one again and drops those whose
 * check says no (the check itself closes its stream).
 */
export interface HubEvent {
  type: string;
  data: unknown;
}

type Subscriber = (e: HubEvent) => void;
/** Whether a subscriber may still be sent events; false ends its subscription. */
export type StillAllowed = () => boolean;

export class EventHub {
  private subs = new Map<Subscriber, StillAllowed | undefined>();
  subscribe(fn: Subscriber, stillAllowed?: StillAllowed): () => void {
    this.subs.set(fn, stillAllowed);
    return () => this.subs.delete(fn);
  }
  publish(type: string, data: unknown): void {
    for (const fn of this.subs.keys()) fn({ type, data });
  }
  /** Checks every subscriber's rights again; those that lost them are dropped. How many were. */
  recheck(): number {
    let ended = 0;
    for (const [fn, allowed] of this.subs)
      if (allowed && !allowed()) {
        this.subs.delete(fn);
        ended++;
      }
    return ended;
  }
  get size(): number {
    return this.subs.size;
  }
}
