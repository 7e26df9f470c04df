/**
 * Report building, one at a time: a report reads a site's whole period out of the store, so the
 * gateway builds `running` at once, lets `waiting` more wait their turn, and refuses the rest at once
 * (the caller answers 503 with Retry-After), so that any number of readers cannot exhaust its heap.
 */
export class ReportsBusy extends Error {
  override name = 'ReportsBusy';
  constructor(readonly retryAfterSec: number) {
    super(`the gateway is building other reports: try again in ${retryAfterSec} seconds`);
  }
}

export class ReportQueue {
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(private readonly o: { running: number; waiting: number; retryAfterSec: number }) {}

  /** Runs `fn` when a place is free; throws ReportsBusy when the queue is full. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.o.running) {
      if (this.queue.length >= this.o.waiting) throw new ReportsBusy(this.o.retryAfterSec);
      await new Promise<void>((resolve) => this.queue.push(resolve));
    } else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.active--;
    }
  }

  /** Reports being built and waiting. */
  load(): { running: number; waiting: number } {
    return { running: this.active, waiting: this.queue.length };
  }
}
