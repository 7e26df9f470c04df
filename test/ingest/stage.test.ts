import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../gateway/src/config/load.ts';
import { buildRegistry } from '../../gateway/src/config/registry.ts';
import type { ConfigInput } from '../../gateway/src/config/schema.ts';
import { IngestStage, type IngestStageOptions } from '../../gateway/src/ingest/stage.ts';
import { Registry } from '../../gateway/src/metrics.ts';
import type { IngestResult, RawMessage } from '../../gateway/src/pipeline.ts';
import { type Db, openDatabase } from '../../gateway/src/store/db.ts';
import type { StoredReading } from '../../gateway/src/store/readings.ts';
import { auditAll, readingStore } from '../helpers/evidence.ts';
import { testConfigInput } from '../helpers/gateway.ts';
import { MemoryLog } from './mqtt/support.ts';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const SITE = 'maple-ridge';

const topic = (device: string, kind = 'telemetry', site = SITE) => `sites/${site}/devices/${device}/${kind}`;

/** An MQTT publish as a transport hands it over. */
function publish(on: string, payload: object | string, receivedAt = NOW): RawMessage {
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return { transport: 'mqtt', topic: on, payload: Buffer.from(text), receivedAt };
}
const mqttMsg = (device: string, payload: object | string, receivedAt = NOW) =>
  publish(topic(device), payload, receivedAt);
const panelStatus = (payload: string, receivedAt = NOW, device = 'panel-1') =>
  publish(topic(device, 'status', 'oak-lane'), payload, receivedAt);

/** The committed state, read through a second connection: only what a commit made durable shows. */
function reader(dir: string) {
  const db = new Database(join(dir, 'gateway.db'), { readonly: true });
  return {
    db,
    readings: (where = '1=1') =>
      (db.prepare(`SELECT count(*) AS n FROM readings WHERE ${where}`).get() as { n: number }).n,
    rejections: () =>
      db
        .prepare('SELECT reason, detail, excerpt, site_id, device_id FROM rejections ORDER BY id')
        .all() as Array<{
        reason: string;
        detail: string;
        excerpt: string;
        site_id: string | null;
        device_id: string | null;
      }>,
  };
}

/** Lets queued microtasks (the group commit) run. */
const settled = () => new Promise<void>((r) => setImmediate(r));

describe('ingest stage (real SQLite)', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const c of cleanups.splice(0).reverse()) c();
  });

  function open(
    opts: { ingest?: ConfigInput['ingest']; dir?: string; stage?: Partial<IngestStageOptions> } = {},
  ) {
    const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'stage-'));
    if (!opts.dir) cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const db: Db = openDatabase(dir);
    cleanups.push(() => db.close());
    const { store } = readingStore(db);
    const config = parseConfig(testConfigInput(opts.ingest ? { ingest: opts.ingest } : {}));
    const metrics = new Registry();
    const log = new MemoryLog();
    const clock = { now: NOW };
    const stage = new IngestStage({
      db,
      store,
      registry: buildRegistry(config),
      ingest: config.ingest,
      metrics,
      log,
      now: () => clock.now,
      ...opts.stage,
    });
    const r = reader(dir);
    cleanups.push(() => r.db.close());
    const counter = (name: string, labels?: Record<string, string>) => metrics.counter(name, '').get(labels);
    return { dir, db, store, stage, metrics, log, clock, read: r, counter };
  }

  /** Hands messages over in one go, as a transport does with one socket read; their outcomes, in order. */
  function hand(stage: IngestStage, msgs: RawMessage[]) {
    const out: Array<{ err: Error | null; result?: IngestResult }> = [];
    msgs.forEach((m, i) => {
      stage.ingestWith(m, (err, result) => {
        out[i] = { err, ...(result ? { result } : {}) };
      });
    });
    return out;
  }
  /** How many of the messages handed over have been told their outcome. */
  const told = (out: unknown[]) => out.filter((o) => o !== undefined).length;

  describe('group commit', () => {
    it('commits the messages handed over together in one transaction, and acknowledges them after it', async () => {
      const { stage, read, counter } = open();
      const seenAtAck: number[] = [];
      const results: IngestResult[] = [];
      for (let i = 1; i <= 5; i++)
        stage.ingestWith(mqttMsg('rg-1', { seq: i, ts: NOW - 10_000 + i, rainTips: i }), (err, res) => {
          expect(err).toBeNull();
          seenAtAck.push(read.readings());
          results.push(res!);
        });
      // Nothing is acknowledged, nor stored, before the commit.
      expect(results).toHaveLength(0);
      expect(read.readings()).toBe(0);
      await settled();
      expect(results.map((r) => r.status)).toEqual(['stored', 'stored', 'stored', 'stored', 'stored']);
      // Every acknowledgement already sees all five readings: they were committed together, before it.
      expect(seenAtAck).toEqual([5, 5, 5, 5, 5]);
      expect(counter('gateway_store_commits_total')).toBe(1);
      expect(counter('gateway_store_writes_total', { table: 'readings' })).toBe(5);
      expect(counter('gateway_messages_total', { transport: 'mqtt', result: 'stored' })).toBe(5);
    });

    it('commits at once when a batch reaches its largest size', async () => {
      const { stage, counter } = open({ stage: { maxBatch: 3 } });
      const out = hand(
        stage,
        Array.from({ length: 7 }, (_, i) => mqttMsg('rg-1', { seq: i, ts: NOW - 10_000 + i, rainTips: i })),
      );
      // Two full batches were committed while the messages were handed over; the seventh waits.
      expect(told(out)).toBe(6);
      expect(counter('gateway_store_commits_total')).toBe(2);
      await settled();
      expect(told(out)).toBe(7);
      expect(out.every((o) => o.err === null && o.result?.status === 'stored')).toBe(true);
      expect(counter('gateway_store_commits_total')).toBe(3);
    });

    it('commits readings and rejections in one transaction, and stop() commits what is pending', async () => {
      const { stage, read, counter } = open();
      const out = hand(stage, [mqttMsg('rg-1', { seq: 1, rainTips: 1 }), mqttMsg('rg-1', '{"rainTips":')]);
      await stage.stop();
      expect(out.map((o) => o.result?.status)).toEqual(['stored', 'rejected']);
      expect(read.readings()).toBe(1);
      expect(read.rejections()).toHaveLength(1);
      expect(counter('gateway_store_commits_total')).toBe(1);
      expect(counter('gateway_store_writes_total', { table: 'rejections' })).toBe(1);
    });

    it('offers a promise form, and stores already-decoded readings (an import) like live data', async () => {
      const { stage, read } = open();
      await expect(
        stage.ingest(mqttMsg('rg-1', { seq: 1, ts: NOW - 5000, rainTips: 1 })),
      ).resolves.toMatchObject({
        status: 'stored',
        reading: { siteId: SITE, deviceId: 'rg-1', seq: 1, values: { rainTips: 1 } },
      });
      const reading = (seq: number, ts: number) => ({
        siteId: SITE,
        deviceId: 'rg-2',
        deviceKind: 'rain-gauge' as const,
        ts,
        seq,
        receivedAt: NOW,
        transport: 'import' as const,
        values: { rainTips: seq },
      });
      expect(
        await stage.ingestReadings([reading(1, NOW - 3000), reading(2, NOW - 2000), reading(2, NOW - 2000)]),
      ).toEqual({ stored: 2, duplicates: 1 });
      expect(read.readings()).toBe(3);
    });

    it('ignores messages on topics that are neither telemetry nor status', async () => {
      const { stage, read, counter } = open();
      const out = hand(stage, [{ ...mqttMsg('rg-1', 'x'), topic: 'gateway/other/status' }]);
      expect(out).toEqual([{ err: null, result: { status: 'ignored' } }]);
      await settled();
      expect(read.readings()).toBe(0);
      expect(read.rejections()).toHaveLength(0);
      expect(counter('gateway_messages_total', { transport: 'mqtt', result: 'ignored' })).toBe(1);
    });
  });

  describe('lifecycle', () => {
    it('starts, reports its health, and stops', async () => {
      const { stage } = open();
      await stage.start();
      expect(stage.name).toBe('ingest');
      stage.ingestWith(mqttMsg('rg-1', { seq: 1, ts: NOW - 1000, rainTips: 1 }), () => {});
      expect(stage.health()).toEqual({ name: 'ingest', ok: true, detail: 'storing', devices: 0, waiting: 1 });
      await settled();
      expect(stage.health()).toEqual({ name: 'ingest', ok: true, detail: 'storing', devices: 1, waiting: 0 });
      await stage.stop();
    });
  });

  describe('duplicates', () => {
    it('stores a repeated seq once while it lies within the window of source time', async () => {
      const { stage, read, counter } = open({ ingest: { seqDedupWindowSec: 600 } });
      const out = hand(stage, [
        mqttMsg('rg-1', { seq: 7, ts: NOW - 700_000, rainTips: 1 }),
        // A redelivery, restamped by the device: the same seq, a little later.
        mqttMsg('rg-1', { seq: 7, ts: NOW - 695_000, rainTips: 1 }),
        // The counter came round again: the same seq, outside the window, is a new reading.
        mqttMsg('rg-1', { seq: 7, ts: NOW - 700_000 + 601_000, rainTips: 2 }),
        // Another device's seq 7 is its own.
        mqttMsg('rg-2', { seq: 7, ts: NOW - 700_000, rainTips: 1 }),
      ]);
      await settled();
      expect(out.map((o) => o.result?.status)).toEqual(['stored', 'duplicate', 'stored', 'stored']);
      expect(read.readings()).toBe(3);
      expect(read.readings("device_id = 'rg-1' AND seq = 7")).toBe(2);
      expect(counter('gateway_messages_total', { transport: 'mqtt', result: 'duplicate' })).toBe(1);
    });

    it('stores two readings of one device with the same source time once, in one batch or across batches', async () => {
      const { stage, read, counter } = open();
      const ts = NOW - 30_000;
      const out = hand(stage, [
        mqttMsg('rg-1', { seq: 1, ts, rainTips: 1 }),
        mqttMsg('rg-1', { seq: 2, ts, rainTips: 1 }),
        mqttMsg('rg-1', { ts, rainTips: 1 }),
      ]);
      await settled();
      expect(await stage.ingest(mqttMsg('rg-1', { seq: 3, ts, rainTips: 1 }))).toMatchObject({
        status: 'duplicate',
      });
      expect(out.map((o) => o.result?.status)).toEqual(['stored', 'duplicate', 'duplicate']);
      expect(read.readings()).toBe(1);
      expect(counter('gateway_messages_total', { transport: 'mqtt', result: 'duplicate' })).toBe(3);
    });

    it('remembers the stored seqs of a device after a restart', async () => {
      const first = open();
      expect(
        await first.stage.ingest(mqttMsg('rg-1', { seq: 41, ts: NOW - 20_000, rainTips: 1 })),
      ).toMatchObject({
        status: 'stored',
      });
      await first.stage.stop();
      const again = open({ dir: first.dir });
      expect(
        await again.stage.ingest(mqttMsg('rg-1', { seq: 41, ts: NOW - 19_000, rainTips: 1 })),
      ).toMatchObject({
        status: 'duplicate',
      });
      expect(again.read.readings()).toBe(1);
    });

    it('keeps readings stamped on arrival in the same millisecond apart', async () => {
      const { stage, read } = open();
      const out = hand(stage, [mqttMsg('rg-1', { rainTips: 1 }), mqttMsg('rg-1', { rainTips: 2 })]);
      await settled();
      expect(out.map((o) => o.result?.status)).toEqual(['stored', 'stored']);
      const ts = out.map((o) => (o.result?.status === 'stored' ? o.result.reading.ts : 0));
      expect(ts).toEqual([NOW, NOW + 1]);
      expect(read.readings()).toBe(2);
    });
  });

  describe('rate limit', () => {
    it('slows a device past its burst down instead of refusing: each message waits for its token, none is dropped', async () => {
      const { stage, read, counter } = open({ ingest: { deviceRatePerSec: 20, deviceBurst: 3 } });
      let seq = 0;
      const next = () => mqttMsg('rg-1', { seq: ++seq, ts: NOW - 100_000 + seq, rainTips: seq });
      const t0 = performance.now();
      const burst = hand(stage, [next(), next(), next(), next(), next()]);
      await settled();
      // The burst is stored at once; the two over it wait for tokens (one every 50 ms at 20/s).
      expect([0, 1, 2, 3, 4].map((i) => burst[i]?.result?.status)).toEqual([
        'stored',
        'stored',
        'stored',
        undefined,
        undefined,
      ]);
      expect(stage.health()).toMatchObject({ paced: 2 });
      // Another device has its own allowance and does not wait behind it.
      expect(await stage.ingest(mqttMsg('rg-2', { seq: 1, ts: NOW - 1000, rainTips: 1 }))).toMatchObject({
        status: 'stored',
      });
      await new Promise<void>((r) => {
        const poll = () => (told(burst) === 5 ? r() : setTimeout(poll, 5));
        poll();
      });
      expect(performance.now() - t0).toBeGreaterThanOrEqual(90);
      expect(burst.map((o) => o.result?.status)).toEqual(['stored', 'stored', 'stored', 'stored', 'stored']);
      expect(read.readings("device_id = 'rg-1'")).toBe(5);
      expect(counter('gateway_rejections_total', { reason: 'rate_limited' })).toBe(0);
      expect(counter('gateway_rate_paced_total')).toBe(2);
      expect(read.rejections()).toHaveLength(0);
    });

    it('lets QoS 0 over the rate wait up to a second for its token, and drops and counts the rest', async () => {
      const { stage, read, counter } = open({ ingest: { deviceRatePerSec: 10, deviceBurst: 2 } });
      const out = hand(
        stage,
        Array.from({ length: 20 }, (_, i) => ({
          ...mqttMsg('rg-1', { seq: i, ts: NOW - 10_000 + i, rainTips: i }),
          qos: 0 as const,
        })),
      );
      await settled();
      // Two at once, ten waiting (100 ms apart at 10/s, the last a second off), eight dropped.
      const now = [...Array(20).keys()].map((i) => out[i]?.result?.status);
      expect(now.filter((x) => x === 'stored')).toHaveLength(2);
      expect(now.filter((x) => x === 'rejected')).toHaveLength(8);
      expect(counter('gateway_messages_total', { transport: 'mqtt', result: 'dropped' })).toBe(8);
      expect(counter('gateway_rejections_total', { reason: 'rate_limited' })).toBe(8);
      await new Promise<void>((r) => {
        const poll = () => (told(out) === 20 ? r() : setTimeout(poll, 10));
        poll();
      });
      expect(read.readings("device_id = 'rg-1'")).toBe(12);
      expect(read.rejections().map((r) => r.reason)).toEqual(Array(5).fill('rate_limited'));
    });

    it('slows a flood of invalid messages down on a bucket of its own', async () => {
      const { stage, read, counter } = open({ ingest: { deviceRatePerSec: 20, deviceBurst: 2 } });
      const out = hand(
        stage,
        Array.from({ length: 6 }, () => ({ ...mqttMsg('rg-1', '{"rainTips":'), qos: 1 as const })),
      );
      await settled();
      expect(told(out)).toBe(2);
      await new Promise<void>((r) => {
        const poll = () => (told(out) === 6 ? r() : setTimeout(poll, 10));
        poll();
      });
      expect(counter('gateway_rejections_total', { reason: 'malformed_json' })).toBe(6);
      // The valid allowance is untouched.
      expect(await stage.ingest(mqttMsg('rg-1', { seq: 1, ts: NOW - 1000, rainTips: 1 }))).toMatchObject({
        status: 'stored',
      });
      expect(read.readings()).toBe(1);
    });

    it('does not spend a device allowance on messages rejected before it', async () => {
      const { stage } = open({ ingest: { deviceRatePerSec: 1, deviceBurst: 2 } });
      const out = hand(stage, [
        mqttMsg('rg-1', '{"rainTips":'),
        mqttMsg('rg-1', '{"rainTips":-1}'),
        mqttMsg('rg-1', { seq: 1, ts: NOW - 2000, rainTips: 1 }),
        mqttMsg('rg-1', { seq: 2, ts: NOW - 1000, rainTips: 1 }),
      ]);
      await settled();
      expect(out.map((o) => o.result?.status)).toEqual(['rejected', 'rejected', 'stored', 'stored']);
    });
  });

  describe('rejections', () => {
    it('records each rejection with its reason, device, detail and an excerpt, and counts it by reason', async () => {
      const { stage, read, counter } = open();
      const long = `{"rainTips":1,"note":"${'x'.repeat(400)}"}`;
      const out = hand(stage, [
        mqttMsg('rg-1', '{"rainTips":'),
        mqttMsg('ghost', { rainTips: 1 }),
        mqttMsg('rg-1', long),
        mqttMsg('rg-1', { levelIn: 3 }),
        {
          transport: 'serial',
          topic: 'serial:/dev/ttyUSB0',
          payload: '{"siteId":"maple-ridge"}*0000',
          receivedAt: NOW,
        },
      ]);
      await settled();
      // A device not registered yet is no rejection: its message waits in the quarantine.
      expect(out.map((o) => (o.result?.status === 'rejected' ? o.result.reason : o.result?.status))).toEqual([
        'malformed_json',
        'quarantined',
        'unknown_field',
        'field_not_for_kind',
        'bad_crc',
      ]);
      const rows = read.rejections();
      expect(rows.map((r) => r.reason)).toEqual([
        'malformed_json',
        'unknown_field',
        'field_not_for_kind',
        'bad_crc',
      ]);
      expect(rows[0]).toMatchObject({ site_id: SITE, device_id: 'rg-1', excerpt: '{"rainTips":' });
      expect(rows[0]!.detail).toMatch(/^malformed JSON/);
      expect(rows[1]!.excerpt).toBe(long.slice(0, 200));
      expect(rows[3]).toMatchObject({ site_id: null, device_id: null });
      for (const reason of ['malformed_json', 'unknown_field', 'field_not_for_kind', 'bad_crc'])
        expect(counter('gateway_rejections_total', { reason }), reason).toBe(1);
      expect(counter('gateway_quarantined_total', { reason: 'unregistered_device' })).toBe(1);
      expect(counter('gateway_messages_total', { transport: 'mqtt', result: 'rejected' })).toBe(3);
      expect(counter('gateway_messages_total', { transport: 'serial', result: 'rejected' })).toBe(1);
    });

    it('records what a transport refuses itself', async () => {
      const { stage, read, counter } = open();
      const res = await stage.refuse(
        { ...mqttMsg('rg-2', { rainTips: 1 }), clientId: 'maple-ridge/rg-1' },
        'not_authorized',
        'maple-ridge/rg-1 may publish only under sites/maple-ridge/devices/rg-1/',
        SITE,
        'rg-2',
      );
      expect(res).toEqual({
        status: 'rejected',
        reason: 'not_authorized',
        detail: 'maple-ridge/rg-1 may publish only under sites/maple-ridge/devices/rg-1/',
      });
      expect(read.rejections()).toEqual([
        {
          reason: 'not_authorized',
          detail: 'maple-ridge/rg-1 may publish only under sites/maple-ridge/devices/rg-1/',
          excerpt: '{"rainTips":1}',
          site_id: SITE,
          device_id: 'rg-2',
        },
      ]);
      expect(counter('gateway_rejections_total', { reason: 'not_authorized' })).toBe(1);
    });
  });

  describe('refusals, sampling and bounds', () => {
    const qos1 = (m: RawMessage): RawMessage => ({ ...m, qos: 1, refusable: true });

    it('keeps a time ahead of the clock and a device not registered in the quarantine, acknowledged, at any QoS; acknowledges a permanent rejection', async () => {
      const { stage, read, counter, db } = open();
      const out = hand(stage, [
        qos1(mqttMsg('rg-1', { ts: NOW + 3_600_000, rainTips: 1 })),
        qos1(publish(topic('ghost'), { rainTips: 1 })),
        qos1(mqttMsg('rg-1', '{"rainTips":')),
        qos1(mqttMsg('rg-1', { rainTips: 1, extra: 1 })),
        mqttMsg('rg-1', { ts: NOW + 3_600_000, rainTips: 1 }),
      ]);
      await settled();
      expect(out[0]).toMatchObject({
        err: null,
        result: { status: 'quarantined', reason: 'future_timestamp' },
      });
      expect(out[1]).toMatchObject({
        err: null,
        result: { status: 'quarantined', reason: 'unregistered_device' },
      });
      // Sending a malformed or unknown-field message again never helps: it is rejected, recorded and acknowledged.
      expect(out[2]).toMatchObject({ err: null, result: { status: 'rejected', reason: 'malformed_json' } });
      expect(out[3]).toMatchObject({ err: null, result: { status: 'rejected', reason: 'unknown_field' } });
      // Without a sender waiting (QoS 0, the external broker, serial) the same: kept, not lost.
      expect(out[4]).toMatchObject({
        err: null,
        result: { status: 'quarantined', reason: 'future_timestamp' },
      });
      expect(counter('gateway_refused_total', { reason: 'future_timestamp' })).toBe(0);
      expect(counter('gateway_messages_total', { transport: 'mqtt', result: 'quarantined' })).toBe(3);
      expect(counter('gateway_quarantined_total', { reason: 'future_timestamp' })).toBe(2);
      expect(
        read
          .rejections()
          .map((r) => r.reason)
          .sort(),
      ).toEqual(['malformed_json', 'unknown_field']);
      const kept = db.prepare('SELECT device_id, reason, source_ts FROM quarantine ORDER BY id').all();
      expect(kept).toEqual([
        { device_id: 'rg-1', reason: 'future_timestamp', source_ts: NOW + 3_600_000 },
        { device_id: 'ghost', reason: 'unregistered_device', source_ts: null },
        { device_id: 'rg-1', reason: 'future_timestamp', source_ts: NOW + 3_600_000 },
      ]);
    });

    it('counts every rejection but stores a few per device and reason a minute, with the count of the rest', async () => {
      const { stage, read, counter, db } = open({ ingest: { rejectionSamplePerMinute: 3 } });
      await Promise.all(Array.from({ length: 50 }, () => stage.ingest(mqttMsg('rg-1', '{"rainTips":'))));
      await Promise.all(Array.from({ length: 20 }, () => stage.ingest(mqttMsg('rg-2', '{"rainTips":'))));
      // The next minute starts a new sample.
      await Promise.all(
        Array.from({ length: 5 }, () => stage.ingest(mqttMsg('rg-1', '{"rainTips":', NOW + 60_000))),
      );
      expect(counter('gateway_rejections_total', { reason: 'malformed_json' })).toBe(75);
      const rows = db
        .prepare('SELECT device_id AS d, suppressed AS s, at FROM rejections ORDER BY id')
        .all() as Array<{ d: string; s: number; at: number }>;
      expect(rows.map((r) => `${r.d}:${r.s}`)).toEqual([
        'rg-1:0',
        'rg-1:0',
        'rg-1:47',
        'rg-2:0',
        'rg-2:0',
        'rg-2:17',
        'rg-1:0',
        'rg-1:0',
        'rg-1:2',
      ]);
      expect(read.rejections()).toHaveLength(9);
    });

    it('keeps the rejection table at its row cap as rows are added', async () => {
      const { stage, db } = open({
        ingest: { rejectionSamplePerMinute: 1000 },
        stage: { rejectionsKept: 20 },
      });
      for (let i = 0; i < 10; i++)
        await Promise.all(Array.from({ length: 30 }, () => stage.ingest(mqttMsg('rg-1', '{"rainTips":'))));
      const n = (db.prepare('SELECT count(*) AS n FROM rejections').get() as { n: number }).n;
      expect(n).toBeLessThanOrEqual(20 + 2);
    });

    it('rejects a rain-gauge counter that rose faster than the gauge can count, and takes the next plausible one', async () => {
      const { stage, read } = open();
      const at = (ms: number, tips: number) => mqttMsg('rg-1', { ts: NOW - 600_000 + ms, rainTips: tips });
      expect(await stage.ingest(at(0, 100))).toMatchObject({ status: 'stored' });
      // 32,438,300 tips (324,383 in) in 0.7 s.
      const jump = await stage.ingest(at(700, 100 + 32_438_300));
      expect(jump).toMatchObject({ status: 'rejected', reason: 'implausible_rate' });
      expect((jump as { detail: string }).detail).toMatch(
        /rose by 32438300 tips in 0.7 s .* more than 34 tips a minute/,
      );
      // 30 tips within the minute and a reboot (a drop) are plausible; so are 300 tips over 10 minutes.
      expect(await stage.ingest(at(30_000, 130))).toMatchObject({ status: 'stored' });
      expect(await stage.ingest(at(40_000, 2))).toMatchObject({ status: 'stored' });
      expect(await stage.ingest(at(640_000, 302))).toMatchObject({ status: 'stored' });
      expect(await stage.ingest(at(650_000, 400))).toMatchObject({
        status: 'rejected',
        reason: 'implausible_rate',
      });
      expect(read.readings("device_id = 'rg-1'")).toBe(4);
    });

    it('applies the future-time rule and the counter bound to imported readings too', async () => {
      const { stage, read } = open();
      const imported = (ts: number, tips: number, seq: number) => ({
        siteId: SITE,
        deviceId: 'rg-1',
        deviceKind: 'rain-gauge' as const,
        ts,
        seq,
        receivedAt: NOW,
        transport: 'import' as const,
        values: { rainTips: tips },
      });
      const out = await stage.ingestReadings([
        imported(NOW - 120_000, 0, 0),
        imported(NOW - 60_000, 1, 1),
        imported(NOW - 59_000, 5000, 2),
        imported(Date.parse('2062-01-01T00:00:00Z'), 2, 3),
      ]);
      expect(out).toEqual({
        stored: 2,
        duplicates: 0,
        rejected: 2,
        rejectedByReason: { implausible_rate: 1, future_timestamp: 1 },
      });
      expect(read.readings()).toBe(2);
      expect(
        read
          .rejections()
          .map((r) => r.reason)
          .sort(),
      ).toEqual(['future_timestamp', 'implausible_rate']);
    });
  });

  describe('device state', () => {
    it('follows status messages, tells its listeners, and keeps the state across a restart', async () => {
      const { dir, stage, counter } = open();
      const seen: unknown[] = [];
      stage.onDeviceStatus((...args) => seen.push(args));
      const msg = panelStatus;
      expect(await stage.ingest(msg('online', NOW))).toEqual({ status: 'ignored' });
      expect(stage.deviceState('oak-lane', 'panel-1')).toMatchObject({ status: 'online', statusAt: NOW });
      // The JSON form; the state keeps the arrival time, not the payload's.
      await stage.ingest(msg('{"status":"offline","ts":1714564800000}', NOW + 1000));
      expect(stage.deviceState('oak-lane', 'panel-1')).toMatchObject({
        status: 'offline',
        statusAt: NOW + 1000,
      });
      await stage.ingest(msg('"online"', NOW + 2000));
      expect(seen).toEqual([
        ['oak-lane', 'panel-1', 'online', NOW],
        ['oak-lane', 'panel-1', 'offline', NOW + 1000],
        ['oak-lane', 'panel-1', 'online', NOW + 2000],
      ]);
      expect(counter('gateway_messages_total', { transport: 'mqtt', result: 'status' })).toBe(3);
      await stage.stop();
      const again = open({ dir });
      expect(again.stage.deviceState('oak-lane', 'panel-1')).toMatchObject({
        status: 'online',
        statusAt: NOW + 2000,
      });
    });

    it('rejects status payloads that are not one, and status from unregistered devices', async () => {
      const { stage, read } = open();
      const out = await Promise.all(
        [
          panelStatus('{"status":'),
          panelStatus('asleep'),
          panelStatus(''),
          panelStatus('online', NOW, 'ghost'),
        ].map((m) => stage.ingest(m)),
      );
      expect(out.map((r) => (r.status === 'rejected' ? r.reason : r.status))).toEqual([
        'malformed_json',
        'wrong_type',
        'wrong_type',
        'unregistered_device',
      ]);
      const rows = read.rejections();
      expect(rows[0]!.detail).toMatch(/^malformed status: /);
      expect(rows[1]!.detail).toBe('status must be "online", "offline" or {"status": ...}');
      expect(rows[2]!.detail).toBe('status must be "online", "offline" or {"status": ...}');
      expect(stage.deviceState('oak-lane', 'panel-1')).toBeUndefined();
    });

    it('keeps the newest value of each reading, which late data does not overwrite', async () => {
      const { dir, stage } = open();
      const panel = (payload: object, receivedAt = NOW) =>
        publish(topic('panel-1', 'telemetry', 'oak-lane'), payload, receivedAt);
      await stage.ingest(panel({ seq: 2, ts: NOW - 1000, levelIn: 30, alarms: { pump: true } }));
      await stage.ingest(
        panel({ seq: 1, ts: NOW - 5000, levelIn: 20, sludgeIn: 4, alarms: { pump: false } }, NOW + 10),
      );
      const s = stage.deviceState('oak-lane', 'panel-1')!;
      expect(s.lastTs).toBe(NOW - 1000);
      expect(s.lastReceivedAt).toBe(NOW + 10);
      expect(s.latest).toEqual({
        levelIn: { value: 30, ts: NOW - 1000 },
        sludgeIn: { value: 4, ts: NOW - 5000 },
        'alarms.pump': { value: true, ts: NOW - 1000 },
      });
      expect(stage.deviceStates()).toHaveLength(1);
      await stage.stop();
      expect(open({ dir }).stage.deviceState('oak-lane', 'panel-1')?.latest).toEqual(s.latest);
    });
  });

  describe('a failed commit', () => {
    it('acknowledges nothing, stores nothing, and leaves the store able to chain the next commit', async () => {
      let fail = false;
      const { stage, store, read, counter, log, db } = open({
        stage: {
          inTransaction: () => {
            if (fail) throw new Error('disk I/O error');
          },
        },
      });
      const stored: StoredReading[][] = [];
      stage.onStored((rs) => stored.push(rs));
      const msg = (seq: number) => mqttMsg('rg-1', { seq, ts: NOW - 10_000 + seq, rainTips: seq });
      hand(stage, [msg(1), msg(2)]);
      await settled();
      const headBefore = store.head();
      fail = true;
      const failed = hand(stage, [msg(3), msg(4), mqttMsg('rg-1', '{"rainTips":')]);
      await settled();
      expect(told(failed)).toBe(3);
      for (const o of failed) {
        expect(o.err?.message).toBe('local store commit failed: disk I/O error');
        expect(o.result).toBeUndefined();
      }
      await expect(stage.ingest(msg(5))).rejects.toThrow(/local store commit failed/);
      expect(read.readings()).toBe(2);
      expect(read.rejections()).toHaveLength(0);
      expect(stored).toHaveLength(1);
      expect(counter('gateway_store_commits_total')).toBe(1);
      expect(log.lines.some((l) => l.level === 'error' && l.msg?.includes('not acknowledged'))).toBe(true);
      expect(store.head()).toEqual(headBefore);
      expect(stage.health()).toMatchObject({
        name: 'ingest',
        ok: false,
        detail: 'local store commits failing: disk I/O error',
      });
      fail = false;
      // Redelivered (the transport never acknowledged them): stored now, not taken for duplicates.
      const again = hand(stage, [msg(3), msg(4), msg(5)]);
      await settled();
      expect(again.map((o) => o.result?.status)).toEqual(['stored', 'stored', 'stored']);
      expect(read.readings()).toBe(5);
      // They are logged after the last committed entry, not after a rolled-back one: the log verifies.
      expect(auditAll(db)).toEqual({ size: 5, problems: [] });
      expect(stage.health()).toMatchObject({ name: 'ingest', ok: true });
    });
  });

  describe('stored-readings listeners', () => {
    it('run once per commit, in order, with the stored readings only, after the acknowledgements', async () => {
      const { stage, log } = open();
      const calls: Array<{ ids: number[]; seqs: Array<number | undefined>; acked: number }> = [];
      let acked = 0;
      stage.onStored(() => {
        throw new Error('listener broke');
      });
      stage.onStored((rs) => calls.push({ ids: rs.map((r) => r.id), seqs: rs.map((r) => r.seq), acked }));
      const msg = (seq: number, ts = NOW - 10_000 + seq) => mqttMsg('rg-1', { seq, ts, rainTips: seq });
      for (const m of [msg(1), msg(2), msg(2, NOW - 9000), msg(3)]) stage.ingestWith(m, () => acked++);
      await settled();
      for (const m of [msg(4), msg(5)]) stage.ingestWith(m, () => acked++);
      await settled();
      // Duplicates alone store nothing: no call.
      stage.ingestWith(msg(5), () => acked++);
      await settled();
      expect(acked).toBe(7);
      expect(calls).toEqual([
        { ids: [1, 2, 3], seqs: [1, 2, 3], acked: 4 },
        { ids: [4, 5], seqs: [4, 5], acked: 6 },
      ]);
      expect(log.lines.filter((l) => l.msg === 'a stored-readings listener failed')).toHaveLength(2);
    });

    it('hand over readings with their row id, log index and leaf hash', async () => {
      const { stage, db } = open();
      let got: StoredReading[] = [];
      stage.onStored((rs) => {
        got = rs;
      });
      await stage.ingest(mqttMsg('rg-1', { seq: 1, ts: NOW - 1000, rainTips: 9 }));
      expect(got).toHaveLength(1);
      expect(got[0]).toMatchObject({
        id: 1,
        siteId: SITE,
        deviceId: 'rg-1',
        seq: 1,
        values: { rainTips: 9 },
      });
      expect(got[0]!.logIdx).toBe(0);
      const entry = db.prepare('SELECT leaf FROM log_entries WHERE idx = 0').get() as { leaf: Buffer };
      expect(got[0]!.hash).toBe(entry.leaf.toString('hex'));
    });
  });
});
