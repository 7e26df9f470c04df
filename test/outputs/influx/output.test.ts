import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../gateway/src/config/load.ts';
import { Registry } from '../../../gateway/src/metrics.ts';
import { InfluxOutbox } from '../../../gateway/src/outputs/influx/outbox.ts';
import { InfluxOutput } from '../../../gateway/src/outputs/influx/output.ts';
import type { WriteClient } from '../../../gateway/src/outputs/influx/source.ts';
import { silentLog } from '../../../gateway/src/pipeline.ts';
import { type Db, openDatabase } from '../../../gateway/src/store/db.ts';
import type { StoredReading } from '../../../gateway/src/store/readings.ts';
import type { Reading } from '../../../shared/src/telemetry.ts';
import { waitFor } from '../../helpers/env.ts';
import { readingStore } from '../../helpers/evidence.ts';
import { testConfigInput } from '../../helpers/gateway.ts';

const NOW = Date.UTC(2026, 5, 1, 12);

class FakeClient implements WriteClient {
  written: string[] = [];
  async write(lines: readonly string[]): Promise<void> {
    this.written.push(...lines.flatMap((l) => l.split('\n')));
  }
}

const alert = {
  id: 'a-1',
  siteId: 'maple-ridge',
  rule: 'storm-inspection',
  status: 'open',
  overdue: false,
  dueAt: new Date(NOW + 86_400_000).toISOString(),
};

describe('InfluxDB output', () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /** An output on a fresh store; InfluxDB settings `influx`, the client `client` when given. */
  function open(influx: object = {}, client?: WriteClient) {
    const dir = mkdtempSync(join(tmpdir(), 'influx-out-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const db: Db = openDatabase(dir);
    cleanups.push(() => db.close());
    const outbox = new InfluxOutbox(db);
    const output = new InfluxOutput({
      db,
      outbox,
      influx: parseConfig(testConfigInput({ influx: { flushIntervalMs: 20, ...influx } })).influx,
      metrics: new Registry(),
      log: silentLog,
      now: () => NOW,
      ...(client ? { client } : {}),
    });
    cleanups.push(() => output.stop());
    return { db, outbox, output };
  }

  it('without an InfluxDB: writes nothing, queues nothing, and says so in its health', async () => {
    const { outbox, output } = open();
    await output.start();
    output.offer([]);
    output.alertChanged(alert, 'raised');
    expect(outbox.depth()).toBe(0);
    expect(output.writtenUpTo()).toBeUndefined();
    expect(output.health()).toEqual({
      name: 'influxdb',
      ok: true,
      detail: 'not configured: the local store serves the API',
    });
  });

  it('writes committed readings and the lines of alert changes it makes itself', async () => {
    const client = new FakeClient();
    const { db, output } = open({ url: 'http://127.0.0.1:1', db: 'x' }, client);
    const { store } = readingStore(db);
    const r: Reading = {
      siteId: 'maple-ridge',
      deviceId: 'rg-1',
      deviceKind: 'rain-gauge',
      ts: NOW - 60_000,
      seq: 3,
      receivedAt: NOW,
      transport: 'mqtt',
      values: { rainTips: 12 },
    };
    const stored = db.transaction(() => [Object.assign(r, store.insert(r)!) as StoredReading])();
    await output.start();
    output.offer(stored);
    output.alertChanged(alert, 'raised');
    output.alertChanged({ ...alert, deviceId: 'rg-1', status: 'resolved', dueAt: null }, 'resolved');
    await waitFor(() => client.written.length === 3, 5000, 'three lines written');
    expect(client.written).toEqual([
      `alerts,rule=storm-inspection,site=maple-ridge status="open",overdue=false,action="raised",alert_id="a-1",due_at=${NOW + 86_400_000}i ${NOW}`,
      `alerts,device=rg-1,rule=storm-inspection,site=maple-ridge status="resolved",overdue=false,action="resolved",alert_id="a-1" ${NOW}`,
      // With the arrival time (derived.ts): no device lookup here, so no configuration's fields.
      `telemetry,device=rg-1,kind=rain-gauge,site=maple-ridge rainTips=12,seq=3i,receivedAtMs=${NOW}i ${NOW - 60_000}`,
    ]);
    await waitFor(() => output.writtenUpTo() === stored[0]!.id, 5000, 'cursor saved');
    expect(output.health()).toMatchObject({ name: 'influxdb', ok: true, backlog: 0 });
  });
});
