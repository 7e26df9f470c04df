/**
 * The one queue of the gateway's heavy jobs (a compliance report built, every PDF printed by Chromium,
 * a report's CSV): `running` at once, `waiting` more wait their turn in order, and the rest are refused
 * at once (JobsBusy; the API answers 503 with Retry-After), so that any number of readers cannot
 * exhaust the heap or start more Chromium prints than the queue's places.
 */
import type { Registry } from '../metrics.ts';

/** What a job is, for the metrics: a report build, a report's PDF, a notice's PDF. */
export type JobKind = 'report' | 'report-pdf' | 'notice-pdf';

export class JobsBusy extends Error {
  override name = 'JobsBusy';
  constructor(readonly retryAfterSec: number) {
    super(`the gateway is building other reports and documents: try again in ${retryAfterSec} seconds`);
  }
}

export interface JobQueueOptions {
  /** Jobs run at once (`reports.concurrent`). */
  running: number;
  /** Jobs that may wait their turn (`reports.waiting`); beyond, JobsBusy. */
  waiting: number;
  /** What a refusal asks the caller to wait, in seconds. */
  retryAfterSec: number;
}

export class JobQueue {
  private active = 0;
  private peakRunning = 0;
  private readonly queue: Array<() => void> = [];
  private readonly jobs;

  constructor(
    private readonly o: JobQueueOptions,
    metrics?: Registry,
  ) {
    this.jobs = metrics?.counter(
      'gateway_jobs_total',
      'Heavy jobs (reports, PDFs) by kind and outcome: done, failed, or refused (the wait list was full)',
    );
    metrics?.gauge('gateway_jobs', 'Heavy jobs running and waiting now').collect((set) => {
      set(this.active, { state: 'running' });
      set(this.queue.length, { state: 'waiting' });
    });
  }

  /** Runs `fn` when a place is free; throws JobsBusy at once when every place and the wait list are taken. */
  async run<T>(kind: JobKind, fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.o.running) {
      if (this.queue.length >= this.o.waiting) {
        this.jobs?.inc({ kind, outcome: 'refused' });
        throw new JobsBusy(this.o.retryAfterSec);
      }
      // The place is handed over by the job that ends (`active` stays the same).
      await new Promise<void>((resolve) => this.queue.push(resolve));
    } else this.active++;
    this.peakRunning = Math.max(this.peakRunning, this.active);
    try {
      const out = await fn();
      this.jobs?.inc({ kind, outcome: 'done' });
      return out;
    } catch (e) {
      this.jobs?.inc({ kind, outcome: 'failed' });
      throw e;
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.active--;
    }
  }

  /** Jobs running and waiting now, and the most that ever ran at once. */
  load(): { running: number; waiting: number; peakRunning: number } {
    return { running: this.active, waiting: this.queue.length, peakRunning: this.peakRunning };
  }
}
