/**
 * An uplink of a DevEUI no device has yet: kept in the quarantine under the stand-in identity
 * `lorawan/eui-<deveui>`, and released as the readings of the device added with that DevEUI (the ingest
 * stage and the quarantine on a real SQLite store).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chirpstackUplink, encodeThroughProfile } from '../../firmware-sim/src/transports/lorawanUplink.ts';
import { parseConfig } from '../../gateway/src/config/load.ts';
import { buildRegistry, type DeviceRegistry } from '../../gateway/src/config/registry.ts';
import { unknownEuiIdentity } from '../../gateway/src/decode/native/lorawan.ts';
import { draginoLsn50v2Count } from '../../gateway/src/decode/profiles/library/dragino-lsn50v2-count.ts';
import { IngestStage } from '../../gateway/src/ingest/stage.ts';
import { Registry } from '../../gateway/src/metrics.ts';
import { QuarantineRows } from '../../gateway/src/quarantine/rows.ts';
import { QuarantineService } from '../../gateway/src/quarantine/service.ts';
import { openDatabase } from '../../gateway/src/store/db.ts';
import { readingStore } from '../helpers/evidence.ts';
import { testConfigInput } from '../helpers/gateway.ts';
import { MemoryLog } from '../ingest/mqtt/support.ts';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const EUI = 'a8404100000000ee';
const APP = 'c0ffee00-0000-4000-8000-000000000001';

describe('an unknown DevEUI in the quarantine', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const c of cleanups.splice(0).reverse()) c();
  });

  it('is kept as lorawan/eui-<deveui>, and released as the readings of the device added with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lorawan-release-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const db = openDatabase(dir);
    cleanups.push(() => db.close());
    const { store } = readingStore(db);
    const base = testConfigInput();
    const registryOf = (withGauge: boolean) =>
      buildRegistry(
        parseConfig({
          ...base,
          sites: base.sites!.map((s) =>
            s.id === 'maple-ridge' && withGauge
              ? {
                  ...s,
                  devices: [
                    ...(s.devices ?? []),
                    {
                      id: 'rg-lora',
                      kind: 'rain-gauge',
                      inchesPerTip: 0.01,
                      transport: 'lorawan',
                      devEui: EUI.toUpperCase(),
                      profile: 'dragino-lsn50v2-count',
                    },
                  ],
                }
              : s,
          ),
        }),
      );
    let current = registryOf(false);
    const registry: DeviceRegistry = {
      lookup: (s, d) => current.lookup(s, d),
      byUsername: (u) => current.byUsername(u),
      byDevEui: (e) => current.byDevEui(e),
      all: () => current.all(),
    };
    const config = parseConfig(base);
    const log = new MemoryLog();
    const rows = new QuarantineRows(db);
    const stage = new IngestStage({
      db,
      store,
      registry,
      ingest: config.ingest,
      metrics: new Registry(),
      log,
      now: () => NOW,
      quarantine: rows,
    });
    const changes: unknown[] = [];
    const service = new QuarantineService({
      db,
      rows,
      changes: {
        record: (c) => {
          changes.push(c);
          return { id: changes.length, logIndex: changes.length - 1 };
        },
      },
      ingest: stage,
      registered: (s, d) => registry.lookup(s, d) !== undefined,
      heldAs: (s, d) => {
        const eui = registry.lookup(s, d)?.device.devEui;
        return eui ? [unknownEuiIdentity(eui)] : [];
      },
      clock: () => {},
      now: () => NOW,
      log,
    });

    const uplink = (fCnt: number, tips: number) => {
      const enc = encodeThroughProfile(draginoLsn50v2Count, { rainTips: tips, batteryV: 3.3 });
      const u = chirpstackUplink({
        ...enc,
        fCnt,
        time: NOW - (10 - fCnt) * 60_000,
        devEui: EUI,
        deviceName: 'new-gauge',
        application: APP,
      });
      return { transport: 'lorawan' as const, topic: u.topic, payload: u.payload, receivedAt: NOW };
    };
    const kept = await Promise.all([1, 2, 3].map((i) => stage.ingest(uplink(i, 100 + i))));
    expect(kept.map((k) => k.status)).toEqual(['quarantined', 'quarantined', 'quarantined']);
    expect(kept[0]).toMatchObject({ reason: 'unregistered_device' });
    expect(rows.waiting('lorawan', `eui-${EUI}`, 'unregistered_device')).toHaveLength(3);
    expect(store.recentSeqs('maple-ridge', 'rg-lora', 10)).toEqual([]);

    // The device is added with that DevEUI.
    current = registryOf(true);
    await service.deviceAdded('maple-ridge', 'rg-lora', 'Ada Admin');
    expect(rows.waiting('lorawan', `eui-${EUI}`, 'unregistered_device')).toEqual([]);
    const seqs = store.recentSeqs('maple-ridge', 'rg-lora', 10).map((r) => r.seq);
    expect(seqs.sort()).toEqual([1, 2, 3]);
    expect(changes).toEqual([
      expect.objectContaining({ siteId: 'maple-ridge', deviceId: 'rg-lora', action: 'release' }),
    ]);
    await stage.stop();
  });
});
