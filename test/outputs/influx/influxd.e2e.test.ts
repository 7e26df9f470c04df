import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from '../../../gateway/src/metrics.ts';
import { readingToLine } from '../../../gateway/src/outputs/influx/lineProtocol.ts';
import { InfluxOutbox } from '../../../gateway/src/outputs/influx/outbox.ts';
import type { WriteClient } from '../../../gateway/src/outputs/influx/source.ts';
import { InfluxV1Client } from '../../../gateway/src/outputs/influx/v1.ts';
import { InfluxWriter } from '../../../gateway/src/outputs/influx/writer.ts';
import { silentLog } from '../../../gateway/src/pipeline.ts';
import { migrate } from '../../../gateway/src/store/schema/index.ts';
import type { Reading } from '../../../shared/src/telemetry.ts';
import { haveBinary, waitFor } from '../../helpers/env.ts';
import { type InfluxdServer, startInfluxd } from '../../helpers/influxd.ts';

const BASE_TS = Date.UTC(2026, 5, 1, 12, 0, 0);

function rain(seq: number, tips = seq): Reading {
  return {
    siteId: 'maple ridge',
    deviceId: 'rg-1',
    deviceKind: 'rain-gauge',
    ts: BASE_TS + seq * 1000 + 7,
    seq,
    receivedAt: BASE_TS,
    transport: 'mqtt',
    values: { rainTips: tips, batteryV: 3.6 },
  };
}

/** Records the lines of every successful request, in order. */
class Recording implements WriteClient {
  written: string[] = [];
  requests = 0;
  constructor(private readonly inner: WriteClient) {}
  async write(lines: readonly string[]): Promise<void> {
    this.requests++;
    await this.inner.write(lines);
    this.written.push(...lines);
  }
}

const seqOf = (line: string) => Number(/seq=(\d+)i/.exec(line)?.[1]);

function setup(url: string, db: string, o: { batchSize?: number; flushIntervalMs?: number } = {}) {
  const sqlite = new Database(':memory:');
  migrate(sqlite);
  const outbox = new InfluxOutbox(sqlite);
  const client = new Recording(new InfluxV1Client({ url, db, timeoutMs: 2000 }));
  const metrics = new Registry();
  const writer = new InfluxWriter({
    source: outbox,
    client,
    batchSize: o.batchSize ?? 100,
    flushIntervalMs: o.flushIntervalMs ?? 50,
    metrics,
    log: silentLog,
    minBackoffMs: 50,
    maxBackoffMs: 400,
    configBackoffMs: 300,
  });
  return { sqlite, outbox, client, writer, metrics };
}

describe.skipIf(!haveBinary('influxd'))('InfluxDB 1.x (influxd)', () => {
  let srv: InfluxdServer;
  beforeAll(async () => {
    srv = await startInfluxd({ db: null });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('writes readings through the outbox and reads them back with InfluxQL', async () => {
    await srv.query('CREATE DATABASE basic');
    const { outbox, writer, sqlite } = setup(srv.url, 'basic');
    const panel: Reading = {
      siteId: '12-oak-lane',
      deviceId: 'panel-1',
      deviceKind: 'septic-panel',
      ts: BASE_TS + 500,
      receivedAt: BASE_TS,
      transport: 'serial',
      values: { levelIn: 41.25 },
      alarms: { highWater: true, pump: false },
    };
    outbox.enqueue([readingToLine(rain(1, 12)), readingToLine(rain(2, 15)), readingToLine(panel)]);
    await writer.start();
    await waitFor(() => outbox.depth() === 0, 10_000, 'outbox drained');
    await writer.stop();
    sqlite.close();

    const rows = await srv.select('SELECT * FROM telemetry ORDER BY time', 'basic');
    expect(rows).toHaveLength(3);
    expect(rows.map((r) => r.device)).toEqual(['panel-1', 'rg-1', 'rg-1']);
    expect(rows[1]).toMatchObject({
      time: BASE_TS + 1007,
      site: 'maple ridge',
      device: 'rg-1',
      kind: 'rain-gauge',
      rainTips: 12,
      batteryV: 3.6,
      seq: 1,
    });
    expect(rows[2]).toMatchObject({ time: BASE_TS + 2007, rainTips: 15 });
    const p = await srv.select(`SELECT * FROM telemetry WHERE device = 'panel-1'`, 'basic');
    expect(p).toEqual([
      expect.objectContaining({
        time: BASE_TS + 500,
        site: '12-oak-lane',
        kind: 'septic-panel',
        levelIn: 41.25,
        alarm_highWater: true,
        alarm_pump: false,
      }),
    ]);
    const types = await srv.query('SHOW FIELD KEYS FROM telemetry', 'basic');
    const fieldTypes = Object.fromEntries(
      (types.results[0]?.series?.[0]?.values ?? []).map((v) => [String(v[0]), String(v[1])]),
    );
    expect(fieldTypes).toMatchObject({
      rainTips: 'float',
      batteryV: 'float',
      levelIn: 'float',
      seq: 'integer',
      alarm_highWater: 'boolean',
    });
  });

  it('a field type conflict goes to the dead-letter table with the server reason; the rest lands', async () => {
    await srv.query('CREATE DATABASE conflict');
    const { outbox, writer, sqlite, metrics } = setup(srv.url, 'conflict');
    const bad = `telemetry,device=rg-1,kind=rain-gauge,site=maple\\ ridge rainTips="lots" ${BASE_TS + 3007}`;
    outbox.enqueue([
      readingToLine(rain(1)),
      readingToLine(rain(2)),
      bad,
      readingToLine(rain(4)),
      readingToLine(rain(5)),
    ]);
    await writer.start();
    await waitFor(() => outbox.depth() === 0, 10_000, 'outbox drained');
    await writer.stop();

    const dead = outbox.deadLetters(10);
    expect(dead).toHaveLength(1);
    expect(dead[0]!.line).toBe(bad);
    expect(dead[0]!.reason).toMatch(/^400 partial write: field type conflict/);
    expect(dead[0]!.reason).toContain('rainTips');
    expect(metrics.render()).toContain('gateway_influx_dead_letter_total 1');
    sqlite.close();

    const rows = await srv.select('SELECT rainTips, seq FROM telemetry ORDER BY time', 'conflict');
    expect(rows.map((r) => r.seq)).toEqual([1, 2, 4, 5]);
  });

  it('a missing database is a configuration error: reported, retried, nothing dead-lettered', async () => {
    const { outbox, writer, sqlite, client } = setup(srv.url, 'later');
    outbox.enqueue([readingToLine(rain(1)), readingToLine(rain(2))]);
    await writer.start();
    await waitFor(() => client.requests >= 1 && !writer.health().ok, 5000, 'config error in health');
    const h = writer.health();
    expect(h.detail).toMatch(/configuration/);
    expect(h.lastError).toMatchObject({ reason: 'config', status: 404 });
    expect(String((h.lastError as { message: string }).message)).toContain('database not found');
    expect(outbox.depth()).toBe(2);
    await srv.query('CREATE DATABASE later');
    await waitFor(() => outbox.depth() === 0, 5000, 'drained once the database exists');
    await writer.stop();
    expect(outbox.deadLetterCount()).toBe(0);
    expect(writer.health().ok).toBe(true);
    sqlite.close();
    const rows = await srv.select('SELECT count(rainTips) FROM telemetry', 'later');
    expect(rows[0]?.count).toBe(2);
  });

  it('outage: a killed server comes back and receives every point exactly once, in order', async () => {
    await srv.query('CREATE DATABASE outage');
    const { outbox, writer, sqlite, client, metrics } = setup(srv.url, 'outage', {
      batchSize: 50,
      flushIntervalMs: 50,
    });
    await writer.start();
    let seq = 0;
    const produce = setInterval(() => {
      outbox.enqueue([readingToLine(rain(seq)), readingToLine(rain(seq + 1))]);
      seq += 2;
      writer.notify();
    }, 10);
    try {
      await waitFor(() => client.written.length > 0, 5000, 'points written before the outage');
      await srv.kill();
      await waitFor(() => !writer.health().ok, 5000, 'writer notices the outage');
      const backlogAtFailure = outbox.depth();
      // The outage lasts: readings keep coming and are kept.
      await new Promise((r) => setTimeout(r, 2500));
      const h = writer.health();
      expect(h.ok).toBe(false);
      expect(h.lastError).toMatchObject({ kind: 'retryable', reason: 'network' });
      expect(h.backlog as number).toBeGreaterThan(backlogAtFailure + 100);
      expect(h.oldestAgeMs as number).toBeGreaterThan(1500);
      await srv.restart();
      // Readings keep coming until the writer has written again.
      await waitFor(() => writer.health().ok, 15_000, 'the writer to write again');
    } finally {
      clearInterval(produce);
    }
    const total = seq;
    expect(total).toBeGreaterThan(200);
    await waitFor(() => outbox.depth() === 0, 15_000, 'backlog drained after restart');
    expect(metrics.render()).toMatch(/gateway_influx_write_errors_total\{kind="retryable"\} [1-9]/);
    await writer.stop();
    expect(writer.health()).toMatchObject({ ok: true, backlog: 0 });
    sqlite.close();

    // Every point was acknowledged by a successful request exactly once, in id (= seq) order.
    const seqs = client.written.map(seqOf);
    expect(seqs).toEqual(Array.from({ length: total }, (_, i) => i));

    // And the server holds each of them once.
    const count = await srv.select('SELECT count(rainTips), sum(seq) FROM telemetry', 'outage');
    expect(count[0]?.count).toBe(total);
    expect(count[0]?.sum).toBe((total * (total - 1)) / 2);
    const rows = await srv.select('SELECT seq FROM telemetry ORDER BY time', 'outage');
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: total }, (_, i) => i));
  });
});
