import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from '../../../gateway/src/metrics.ts';
import { readingToLine } from '../../../gateway/src/outputs/influx/lineProtocol.ts';
import { InfluxOutbox } from '../../../gateway/src/outputs/influx/outbox.ts';
import type { WriteClient } from '../../../gateway/src/outputs/influx/source.ts';
import { InfluxV2Client } from '../../../gateway/src/outputs/influx/v2.ts';
import { InfluxWriter } from '../../../gateway/src/outputs/influx/writer.ts';
import { silentLog } from '../../../gateway/src/pipeline.ts';
import { migrate } from '../../../gateway/src/store/schema/index.ts';
import type { Reading } from '../../../shared/src/telemetry.ts';
import { haveBinary, waitFor } from '../../helpers/env.ts';
import { startVictoria, type VictoriaServer, type VmSeries } from '../../helpers/victoria.ts';

class Recording implements WriteClient {
  written: string[] = [];
  constructor(private readonly inner: WriteClient) {}
  async write(lines: readonly string[]): Promise<void> {
    await this.inner.write(lines);
    this.written.push(...lines);
  }
}

function setup(url: string, bucket: string, batchSize = 100) {
  const sqlite = new Database(':memory:');
  migrate(sqlite);
  const outbox = new InfluxOutbox(sqlite);
  const client = new Recording(
    new InfluxV2Client({ url, org: 'town', bucket, token: 'unused', timeoutMs: 2000 }),
  );
  const metrics = new Registry();
  const writer = new InfluxWriter({
    source: outbox,
    client,
    batchSize,
    flushIntervalMs: 50,
    metrics,
    log: silentLog,
    minBackoffMs: 50,
    maxBackoffMs: 400,
  });
  return { sqlite, outbox, client, writer, metrics };
}

/** Exports a series, waiting until it holds `n` samples (fresh samples need a flush to be visible). */
async function exported(vm: VictoriaServer, match: string, n: number): Promise<VmSeries[]> {
  let last: VmSeries[] = [];
  await waitFor(
    async () => {
      await vm.forceFlush();
      last = await vm.exportSeries(match);
      return last.reduce((s, x) => s + x.values.length, 0) >= n;
    },
    15_000,
    `${n} samples for ${match}`,
  );
  return last;
}

describe.skipIf(!haveBinary('victoria-metrics'))('InfluxDB 2 write API (victoria-metrics)', () => {
  let vm: VictoriaServer;
  // VictoriaMetrics keeps only data inside its retention window: use recent timestamps.
  const base = Date.now() - 3_600_000;
  beforeAll(async () => {
    vm = await startVictoria();
  });
  afterAll(async () => {
    await vm?.stop();
  });

  it('writes readings through the v2 client; series, labels, values and ms timestamps match', async () => {
    const { outbox, writer, sqlite } = setup(vm.url, 'basic');
    const r = (seq: number, tips: number): Reading => ({
      siteId: 'maple-ridge',
      deviceId: 'rg-9',
      deviceKind: 'rain-gauge',
      ts: base + seq * 1000 + 3,
      seq,
      receivedAt: base,
      transport: 'mqtt',
      values: { rainTips: tips },
    });
    const panel: Reading = {
      siteId: '12-oak-lane',
      deviceId: 'panel-9',
      deviceKind: 'septic-panel',
      ts: base + 500,
      receivedAt: base,
      transport: 'mqtt',
      values: { levelIn: 41.25 },
      alarms: { highWater: true },
    };
    outbox.enqueue([readingToLine(r(1, 10)), readingToLine(r(2, 12.5)), readingToLine(panel)]);
    await writer.start();
    await waitFor(() => outbox.depth() === 0, 10_000, 'outbox drained');
    await writer.stop();
    sqlite.close();

    const tips = await exported(vm, '{__name__="telemetry_rainTips",device="rg-9"}', 2);
    expect(tips).toHaveLength(1);
    expect(tips[0]!.metric).toMatchObject({ site: 'maple-ridge', device: 'rg-9', kind: 'rain-gauge' });
    expect(tips[0]!.values).toEqual([10, 12.5]);
    expect(tips[0]!.timestamps).toEqual([base + 1003, base + 2003]);
    const seq = await exported(vm, '{__name__="telemetry_seq",device="rg-9"}', 2);
    expect(seq[0]!.values).toEqual([1, 2]);
    const alarm = await exported(vm, '{__name__="telemetry_alarm_highWater",device="panel-9"}', 1);
    expect(alarm[0]!.values).toEqual([1]);
    expect(alarm[0]!.timestamps).toEqual([base + 500]);
    const level = await exported(vm, '{__name__="telemetry_levelIn",device="panel-9"}', 1);
    expect(level[0]!.values).toEqual([41.25]);
  });

  it('outage: a stopped server comes back and receives every point once, in order', async () => {
    const { outbox, writer, sqlite, client } = setup(vm.url, 'outage', 50);
    await writer.start();
    let seq = 0;
    const produce = setInterval(() => {
      const r: Reading = {
        siteId: 'maple-ridge',
        deviceId: 'rg-outage',
        deviceKind: 'rain-gauge',
        ts: base + seq * 10,
        seq,
        receivedAt: base,
        transport: 'mqtt',
        values: { rainTips: seq },
      };
      outbox.enqueue([readingToLine(r)]);
      seq++;
      writer.notify();
    }, 5);
    try {
      await waitFor(() => client.written.length > 0, 5000, 'points written before the outage');
      await vm.shutdown();
      await waitFor(() => !writer.health().ok, 5000, 'writer notices the outage');
      const during = outbox.depth();
      // The outage lasts: readings keep coming and are kept.
      await new Promise((r) => setTimeout(r, 2000));
      expect(outbox.depth()).toBeGreaterThan(during);
      expect(writer.health().lastError).toMatchObject({ kind: 'retryable', reason: 'network' });
      await vm.restart();
      // Readings keep coming until the writer has written again.
      await waitFor(() => writer.health().ok, 15_000, 'the writer to write again');
    } finally {
      clearInterval(produce);
    }
    const total = seq;
    expect(total).toBeGreaterThan(100);
    await waitFor(() => outbox.depth() === 0, 15_000, 'backlog drained after restart');
    await writer.stop();
    sqlite.close();

    const sent = client.written.map((l) => Number(/seq=(\d+)i/.exec(l)?.[1]));
    expect(sent).toEqual(Array.from({ length: total }, (_, i) => i));
    const series = await exported(vm, '{__name__="telemetry_rainTips",device="rg-outage"}', total);
    expect(series).toHaveLength(1);
    expect(series[0]!.values).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(series[0]!.timestamps).toEqual(Array.from({ length: total }, (_, i) => base + i * 10));
  });
});
