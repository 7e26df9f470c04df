/**
 * A physical bound on a rain gauge's counter: a tipping bucket counts at most so many tips a minute (its
 * `maxTipsPerMinute`, by default the tips of `ingest.maxRainInPerHour` inches an hour), so a cumulative
 * `rainTips` that rose by more than that since the device's previous reading is not rain but a fault.
 * Such a reading is rejected with its reason; the next readings are checked against the last accepted
 * one (a drop in the counter is a reboot and always passes). Time spans under a minute count as a
 * minute, so a gauge reporting each tip is never held to sub-minute rates.
 */

import type { Reading } from '../../../shared/src/telemetry.ts';
import type { DeviceInfo } from '../config/registry.ts';
import { DeviceKeys } from '../deviceKey.ts';
import type { ReadingStore } from '../store/readings.ts';

interface Last {
  ts: number;
  tips: number;
}

export class CounterBounds {
  /** Each gauge's newest accepted counter reading by source time (null: it has none yet). */
  private last = new Map<string, Last | null>();

  constructor(
    private readonly store: ReadingStore,
    private readonly maxRainInPerHour: number,
    private readonly keys = new DeviceKeys(),
  ) {}

  /** The most tips a minute a device's gauge counts. */
  bound(device: DeviceInfo): number {
    return (
      device.device.maxTipsPerMinute ??
      Math.ceil(this.maxRainInPerHour / (device.device.inchesPerTip ?? 0.01) / 60)
    );
  }

  /** Why a reading's counter jump is impossible, or undefined when it is plausible (it is then remembered). */
  check(r: Reading, device: DeviceInfo): string | undefined {
    const tips = r.values.rainTips;
    if (tips === undefined) return undefined;
    const key = this.keys.of(r.siteId, r.deviceId);
    let newest = this.last.get(key);
    if (newest === undefined) {
      newest = this.store.counterBefore(r.siteId, r.deviceId, Number.MAX_SAFE_INTEGER) ?? null;
      this.last.set(key, newest);
    }
    const prev = newest && r.ts > newest.ts ? newest : this.store.counterBefore(r.siteId, r.deviceId, r.ts);
    if (prev && tips > prev.tips) {
      const perMinute = this.bound(device);
      const minutes = Math.max(1, (r.ts - prev.ts) / 60_000);
      const jump = tips - prev.tips;
      if (jump > perMinute * minutes) {
        const span = Math.max(0, (r.ts - prev.ts) / 1000);
        return `rainTips rose by ${jump} tips in ${span} s since the reading at ${new Date(prev.ts).toISOString()}: more than ${perMinute} tips a minute is beyond what the gauge counts`;
      }
    }
    if (!newest || r.ts > newest.ts) this.last.set(key, { ts: r.ts, tips });
    return undefined;
  }

  /** A reading was not stored after all: the device's newest counter is read from the store again. */
  forget(r: Reading): void {
    if (r.values.rainTips !== undefined) this.last.delete(this.keys.of(r.siteId, r.deviceId));
  }
}
