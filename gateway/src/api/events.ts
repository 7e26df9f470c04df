/** A small fan-out hub for server-sent events. Slow clients are dropped rather than buffered without bound. */
export interface HubEvent {
  type: string;
  data: unknown;
}

type Subscriber = (e: HubEvent) => void;

export class EventHub {
  private subs = new Set<Subscriber>();
  subscribe(fn: Subscriber): () => void {
    this.subs.add(fn);
    return () => this.subs.delete(fn);
  }
  publish(type: string, data: unknown): void {
    for (const fn of this.subs) fn({ type, data });
  }
  get size(): number {
    return this.subs.size;
  }
}
