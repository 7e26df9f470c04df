import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Registry } from '../../../gateway/src/metrics.ts';
import { PermanentWriteError, RetryableWriteError } from '../../../gateway/src/outputs/influx/errors.ts';
import { InfluxOutbox } from '../../../gateway/src/outputs/influx/outbox.ts';
import type { WriteClient } from '../../../gateway/src/outputs/influx/source.ts';
import { InfluxWriter, type InfluxWriterOptions } from '../../../gateway/src/outputs/influx/writer.ts';
import { silentLog } from '../../../gateway/src/pipeline.ts';
import { migrate } from '../../../gateway/src/store/schema/index.ts';
import { waitFor } from '../../helpers/env.ts';

/** A client whose outcome per request is scripted; it logs every request and every success. */
class FakeClient implements WriteClient {
  calls: string[][] = [];
  written: string[] = [];
  constructor(
    private readonly behave: (lines: readonly string[], call: number) => Promise<void> | void = () => {},
  ) {}
  async write(lines: readonly string[]): Promise<void> {
    this.calls.push([...lines]);
    await this.behave(lines, this.calls.length);
    this.written.push(...lines);
  }
}

const lines = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `m v=${from + i} ${from + i}`);

describe('InfluxWriter', () => {
  let db: Database.Database;
  let outbox: InfluxOutbox;
  let metrics: Registry;
  let writer: InfluxWriter | undefined;

  const make = (client: WriteClient, o: Partial<InfluxWriterOptions> = {}) => {
    writer = new InfluxWriter({
      source: outbox,
      client,
      batchSize: 4,
      flushIntervalMs: 20,
      metrics,
      log: silentLog,
      minBackoffMs: 10,
      maxBackoffMs: 40,
      configBackoffMs: 60,
      ...o,
    });
    return writer;
  };

  beforeEach(() => {
    db = new Database(':memory:');
    migrate(db);
    outbox = new InfluxOutbox(db);
    metrics = new Registry();
  });
  afterEach(async () => {
    await writer?.stop();
    writer = undefined;
    db.close();
  });

  it('drains the outbox in id order, in batches of batchSize', async () => {
    outbox.enqueue(lines(1, 10));
    const client = new FakeClient();
    await make(client).start();
    await waitFor(() => outbox.depth() === 0, 5000, 'drained');
    expect(client.calls.map((c) => c.length)).toEqual([4, 4, 2]);
    expect(client.written).toEqual(lines(1, 10));
    const text = metrics.render();
    expect(text).toContain('gateway_influx_points_written_total 10');
    expect(text).toContain('gateway_influx_backlog 0');
    expect(text).toMatch(/gateway_influx_write_seconds_count 3/);
    expect(writer!.health()).toMatchObject({ name: 'influxdb', ok: true, backlog: 0, deadLetters: 0 });
  });

  it('notify() sends a full batch at once; a partial batch waits for the flush interval', async () => {
    const client = new FakeClient();
    const w = make(client, { flushIntervalMs: 800, batchSize: 5 });
    await w.start();
    outbox.enqueue(lines(1, 3));
    w.notify();
    // Time passes and the partial batch is not sent before the flush interval.
    await new Promise((r) => setTimeout(r, 150));
    expect(client.calls).toHaveLength(0);
    outbox.enqueue(lines(4, 5));
    const t0 = Date.now();
    w.notify();
    await waitFor(() => client.calls.length === 1, 2000, 'full batch');
    expect(Date.now() - t0).toBeLessThan(400);
    expect(client.written).toEqual(lines(1, 5));
    outbox.enqueue(lines(6, 6));
    w.notify();
    await waitFor(() => client.calls.length === 2, 3000, 'partial batch at the flush interval');
    expect(client.written).toEqual(lines(1, 6));
  });

  it('retries a retryable failure with backoff, from the same head, and reports it in health', async () => {
    outbox.enqueue(lines(1, 6));
    let fail = true;
    const client = new FakeClient(() => {
      if (fail) throw new RetryableWriteError('network', 'ECONNREFUSED');
    });
    const w = make(client);
    await w.start();
    await waitFor(() => client.calls.length >= 3, 3000, 'three attempts');
    expect(client.calls.every((c) => c[0] === 'm v=1 1')).toBe(true);
    const h = w.health();
    expect(h.ok).toBe(false);
    expect(h.backlog).toBe(6);
    expect(h.detail).toContain('ECONNREFUSED');
    expect(h.lastError).toMatchObject({ kind: 'retryable', reason: 'network' });
    expect(metrics.render()).toMatch(/gateway_influx_write_errors_total\{kind="retryable"\} [3-9]/);
    expect(metrics.render()).toContain('gateway_influx_backlog 6');
    fail = false;
    await waitFor(() => outbox.depth() === 0, 3000, 'drained after recovery');
    expect(client.written).toEqual(lines(1, 6));
    expect(w.health()).toMatchObject({ ok: true, backlog: 0 });
    expect(w.health().lastSuccessAt).toEqual(expect.any(String));
  });

  it('backs off exponentially and honours Retry-After', async () => {
    outbox.enqueue(lines(1, 1));
    const at: number[] = [];
    const client = new FakeClient((_l, n) => {
      at.push(Date.now());
      if (n === 1) throw new RetryableWriteError('throttled', 'slow down', 429, 300);
      if (n < 5) throw new RetryableWriteError('server', 'boom', 503);
    });
    make(client, { minBackoffMs: 40, maxBackoffMs: 1000, random: () => 0.999 });
    await writer!.start();
    await waitFor(() => outbox.depth() === 0, 5000, 'drained');
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    expect(gaps[0]).toBeGreaterThanOrEqual(290);
    // Doubling from 40 ms: ~80, ~160, ~320 for failures 2..4 (jitter in the upper half).
    expect(gaps[2]!).toBeGreaterThan(gaps[1]! * 1.4);
    expect(gaps[3]!).toBeGreaterThan(gaps[2]! * 1.4);
  });

  it('bisects a permanently rejected batch: good lines land, bad ones are dead-lettered once', async () => {
    const good = lines(1, 8);
    const all = [...good.slice(0, 2), 'm v="bad1" 3', ...good.slice(2, 6), 'm v="bad2" 9', ...good.slice(6)];
    outbox.enqueue(all);
    const client = new FakeClient((ls) => {
      const bad = ls.find((l) => l.includes('bad'));
      if (bad)
        throw new PermanentWriteError(
          400,
          `partial write: field type conflict: ${bad.slice(0, 9)} dropped=1`,
          true,
        );
    });
    make(client, { batchSize: 10 });
    await writer!.start();
    await waitFor(() => outbox.depth() === 0, 5000, 'drained');
    expect(client.written).toEqual(good);
    const dead = outbox.deadLetters(10).reverse();
    expect(dead.map((d) => d.line)).toEqual(['m v="bad1" 3', 'm v="bad2" 9']);
    expect(dead[0]!.reason).toBe('400 partial write: field type conflict: m v="bad1 dropped=1');
    // Each bad line was sent alone exactly once: no retry loop.
    for (const b of ['m v="bad1" 3', 'm v="bad2" 9'])
      expect(client.calls.filter((c) => c.length === 1 && c[0] === b)).toHaveLength(1);
    expect(client.calls.length).toBeLessThanOrEqual(12);
    // Time passes and the bad lines are not sent again.
    await new Promise((r) => setTimeout(r, 100));
    expect(client.calls.filter((c) => c.some((l) => l.includes('bad'))).length).toBeLessThanOrEqual(7);
    const text = metrics.render();
    expect(text).toContain('gateway_influx_dead_letter_total 2');
    expect(text).toMatch(/gateway_influx_write_errors_total\{kind="permanent"\} [1-9]/);
    expect(writer!.health()).toMatchObject({ ok: true, deadLetters: 2 });
  });

  it('a retryable failure during a bisection resumes from the head without losing order', async () => {
    outbox.enqueue(['m v=1 1', 'm v=2 2', 'm bad 3', 'm v=4 4']);
    let outages = 1;
    const client = new FakeClient((ls, n) => {
      if (n === 2 && outages-- > 0) throw new RetryableWriteError('network', 'ECONNRESET');
      if (ls.some((l) => l.includes('bad'))) throw new PermanentWriteError(400, 'unable to parse');
    });
    make(client);
    await writer!.start();
    await waitFor(() => outbox.depth() === 0, 5000, 'drained');
    expect(client.written).toEqual(['m v=1 1', 'm v=2 2', 'm v=4 4']);
    expect(outbox.deadLetters(5).map((d) => d.line)).toEqual(['m bad 3']);
    expect(client.calls[1]).toEqual(['m v=1 1', 'm v=2 2']);
    expect(client.calls[2]![0]).toBe('m v=1 1');
  });

  it('configuration errors are retried with the long backoff, never dead-lettered', async () => {
    outbox.enqueue(lines(1, 3));
    let bad = true;
    const at: number[] = [];
    const client = new FakeClient(() => {
      at.push(Date.now());
      if (bad) throw new RetryableWriteError('config', 'database not found: "gateway"', 404);
    });
    const w = make(client, { configBackoffMs: 250 });
    await w.start();
    await waitFor(() => at.length >= 2, 3000, 'second attempt');
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(240);
    const h = w.health();
    expect(h.ok).toBe(false);
    expect(h.detail).toMatch(/configuration/);
    expect(outbox.deadLetterCount()).toBe(0);
    bad = false;
    await waitFor(() => outbox.depth() === 0, 3000, 'drained');
    expect(client.written).toEqual(lines(1, 3));
  });

  it('stop() lets the write in flight finish and sends nothing after', async () => {
    outbox.enqueue(lines(1, 8));
    let release: () => void = () => {};
    const client = new FakeClient(
      () =>
        new Promise<void>((r) => {
          release = r;
        }),
    );
    const w = make(client);
    await w.start();
    await waitFor(() => client.calls.length === 1, 2000, 'first write started');
    let stopped = false;
    const stopping = w.stop().then(() => {
      stopped = true;
    });
    // Time passes and stop() still waits for the write in flight.
    await new Promise((r) => setTimeout(r, 50));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(client.calls).toHaveLength(1);
    expect(outbox.depth()).toBe(4);
    // Stopped: time passes and nothing more is written.
    await new Promise((r) => setTimeout(r, 100));
    expect(client.calls).toHaveLength(1);
    expect(w.health().state).toBe('stopped');
  });

  it('an unexpected exception from the client is treated as retryable, never drops data', async () => {
    outbox.enqueue(lines(1, 2));
    let n = 0;
    const client = new FakeClient(() => {
      if (n++ === 0) throw new Error('socket hang up');
    });
    make(client);
    await writer!.start();
    await waitFor(() => outbox.depth() === 0, 3000, 'drained');
    expect(client.written).toEqual(lines(1, 2));
    expect(outbox.deadLetterCount()).toBe(0);
  });

  it('a local store failure after a write is reported and the batch is sent again (idempotent)', async () => {
    class FlakyOutbox extends InfluxOutbox {
      failures = 1;
      override remove(which: readonly number[] | { upToId: number }): number {
        if (this.failures-- > 0) throw new Error('disk I/O error');
        return super.remove(which);
      }
    }
    const flaky = new FlakyOutbox(db);
    flaky.enqueue(lines(1, 3));
    const client = new FakeClient();
    writer = new InfluxWriter({
      source: flaky,
      client,
      batchSize: 10,
      flushIntervalMs: 20,
      metrics,
      log: silentLog,
      minBackoffMs: 200,
      maxBackoffMs: 200,
    });
    await writer.start();
    await waitFor(() => client.calls.length === 1, 2000, 'first write');
    await waitFor(() => writer!.health().ok === false, 2000, 'store error in health');
    expect(writer.health().detail).toContain('disk I/O error');
    expect(writer.health().lastError).toMatchObject({ kind: 'store' });
    await waitFor(() => flaky.depth() === 0, 3000, 'drained');
    expect(client.calls).toEqual([lines(1, 3), lines(1, 3)]);
    expect(writer.health().ok).toBe(true);
  });
});
