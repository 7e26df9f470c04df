import { describe, expect, it } from 'vitest';
import { JobQueue, JobsBusy } from '../../gateway/src/jobs/queue.ts';
import { Registry } from '../../gateway/src/metrics.ts';

/** A job that runs until it is let go. */
function held() {
  let release!: () => void;
  const done = new Promise<void>((r) => {
    release = r;
  });
  return { release, job: () => done };
}

describe('the heavy jobs queue', () => {
  it('runs its places at once, lets the wait list wait in order, refuses the rest at once in words', async () => {
    const metrics = new Registry();
    const q = new JobQueue({ running: 2, waiting: 2, retryAfterSec: 10 }, metrics);
    const jobs = Array.from({ length: 6 }, () => held());
    const started: number[] = [];
    const runs = jobs.map((h, i) =>
      q.run(i % 2 ? 'notice-pdf' : 'report', async () => {
        started.push(i);
        await h.job();
        return i;
      }),
    );
    const refused = await Promise.allSettled(runs.slice(4));
    for (const r of refused) {
      expect(r.status).toBe('rejected');
      const e = (r as PromiseRejectedResult).reason as JobsBusy;
      expect(e).toBeInstanceOf(JobsBusy);
      expect(e.retryAfterSec).toBe(10);
      expect(e.message).toBe('the gateway is building other reports and documents: try again in 10 seconds');
    }
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(q.load()).toMatchObject({ running: 2, waiting: 2 });
    expect(metrics.render()).toContain('gateway_jobs{state="waiting"} 2');
    jobs[1]!.release();
    await runs[1];
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    for (const h of jobs) h.release();
    expect(await Promise.all(runs.slice(0, 4))).toEqual([0, 1, 2, 3]);
    expect(q.load()).toEqual({ running: 0, waiting: 0, peakRunning: 2 });
    const text = metrics.render();
    expect(text).toContain('gateway_jobs_total{kind="report",outcome="done"} 2');
    expect(text).toContain('gateway_jobs_total{kind="notice-pdf",outcome="refused"} 1');
  });

  it('frees its place when a job fails', async () => {
    const q = new JobQueue({ running: 1, waiting: 0, retryAfterSec: 5 });
    await expect(q.run('report', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await q.run('report', async () => 'next')).toBe('next');
    expect(q.load()).toMatchObject({ running: 0, waiting: 0 });
  });
});
