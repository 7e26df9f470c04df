/**
 * The native transports' part of the ingest stage: a message of the gateway's own JSON (MQTT, serial) is
 * stored and leaves no link behind, on a real SQLite store; a native message of a registered device is
 * recorded on its link once its outcome is known, with what it said and what came of it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../gateway/src/config/load.ts';
import { buildRegistry } from '../../gateway/src/config/registry.ts';
import { NativeIntake } from '../../gateway/src/ingest/nativeIntake.ts';
import { IngestStage } from '../../gateway/src/ingest/stage.ts';
import { Registry } from '../../gateway/src/metrics.ts';
import type { IngestResult } from '../../gateway/src/pipeline.ts';
import { openDatabase } from '../../gateway/src/store/db.ts';
import { readingStore } from '../helpers/evidence.ts';
import { testConfigInput } from '../helpers/gateway.ts';
import { MemoryLog } from './mqtt/support.ts';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const SITE = 'maple-ridge';
const config = parseConfig(testConfigInput());
const opts = { maxPayloadBytes: 4096, maxFutureMs: 60_000 };

describe('native intake', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const c of cleanups.splice(0).reverse()) c();
  });

  it("stores the gateway's own JSON over MQTT and serial and records no link for it (real SQLite)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'intake-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const db = openDatabase(dir);
    cleanups.push(() => db.close());
    const stage = new IngestStage({
      db,
      store: readingStore(db).store,
      registry: buildRegistry(config),
      ingest: config.ingest,
      metrics: new Registry(),
      log: new MemoryLog(),
      now: () => NOW,
    });
    const mqtt = stage.ingest({
      transport: 'mqtt',
      topic: `sites/${SITE}/devices/rg-1/telemetry`,
      payload: Buffer.from(JSON.stringify({ seq: 1, ts: NOW - 1000, rainTips: 4 })),
      receivedAt: NOW,
    });
    const serial = stage.ingest({
      transport: 'serial',
      topic: 'serial:/dev/ttyUSB0',
      payload: JSON.stringify({ siteId: SITE, deviceId: 'rg-2', seq: 1, ts: NOW - 1000, rainTips: 9 }),
      receivedAt: NOW,
    });
    expect((await mqtt).status).toBe('stored');
    expect((await serial).status).toBe('stored');
    const n = db.prepare('SELECT count(*) AS n FROM readings').get() as { n: number };
    expect(n.n).toBe(2);
    expect(stage.links.get(SITE, 'rg-1')).toBeUndefined();
    expect(stage.links.get(SITE, 'rg-2')).toBeUndefined();
  });

  it("records a native message of a registered device on its link once told its outcome, and no other device's", () => {
    const intake = new NativeIntake(buildRegistry(config), { get: () => undefined });
    const payload = JSON.stringify({ ts: NOW - 1000, rainTips: 12, batteryV: 3.6 });
    // A decoded reading as a native decoder gives it (the MQTT decoder stands in for one).
    const decoded = intake.decode(
      { transport: 'mqtt', topic: `sites/${SITE}/devices/rg-1/telemetry`, payload, receivedAt: NOW },
      opts,
    );
    expect(decoded.ok).toBe(true);
    const msg = { transport: 'modbus' as const, topic: `modbus:${SITE}/rg-1`, payload, receivedAt: NOW };
    const told: IngestResult[] = [];
    const done = intake.settle(msg, decoded, (_err, res) => told.push(res!));
    // Nothing is recorded before the outcome is known.
    expect(intake.links.get(SITE, 'rg-1')).toBeUndefined();
    done(null, { status: 'rejected', reason: 'implausible_rate', detail: 'too many tips' });
    expect(told).toHaveLength(1);
    expect(intake.links.get(SITE, 'rg-1')?.last).toEqual({
      at: NOW,
      raw: payload,
      outcome: 'rejected',
      values: { rainTips: 12, batteryV: 3.6 },
      detail: 'too many tips',
    });

    // A device the registry does not know: settled, and recorded nowhere.
    const stranger = intake.decode(
      { transport: 'mqtt', topic: `sites/${SITE}/devices/nobody/telemetry`, payload, receivedAt: NOW },
      opts,
    );
    const plain = (_err: Error | null, _res?: IngestResult) => {};
    expect(intake.settle({ ...msg, topic: `modbus:${SITE}/nobody` }, stranger, plain)).toBe(plain);
    expect(intake.links.get(SITE, 'nobody')).toBeUndefined();
    // An MQTT message is settled as it was, its link untouched.
    expect(intake.settle({ ...msg, transport: 'mqtt' }, decoded, plain)).toBe(plain);
  });
});
