/**
 * Rain today at a gauge, in inches, for Home Assistant's "rain today" sensor: the rain since local
 * midnight (the site's time zone) by source time. A tip counter's increments are counted as the storm
 * rule counts them (a drop is a reboot: the new value is the tips since it), each at the inches per tip in
 * force at its time; a gauge that reports `rainIn` adds it. The day is read from the store once, then
 * kept up to date from the readings as they are stored; a late reading (older than the newest counted)
 * or a new day reads it from the store again.
 */
import type { Reading } from '../../../shared/src/telemetry.ts';
import type { DeviceConfig } from '../config/schema.ts';
import { inchesPerTipAt } from '../outputs/influx/derived.ts';
import { addDays, localParts, zonedMidnight } from '../rules/util.ts';
import type { ReadingStore } from '../store/readings.ts';

interface Day {
  from: number;
  to: number;
  lastTs: number;
  lastTips: number | null;
  inches: number;
  stale: boolean;
}

export class RainToday {
  private readonly days = new Map<string, Day>();

  constructor(private readonly readings: Pick<ReadingStore, 'iterate' | 'counterBefore'>) {}

  /** A reading just stored: counted into its gauge's day when that day is held and it is in order. */
  offer(r: Reading, device: DeviceConfig): void {
    const day = this.days.get(key(r.siteId, r.deviceId));
    if (!day || day.stale || r.ts < day.from) return;
    if (r.ts >= day.to || r.ts < day.lastTs) day.stale = true;
    else count(day, r, device);
  }

  /** The rain today (the local day of `now` in `tz`), rounded to a thousandth of an inch. */
  inches(siteId: string, device: DeviceConfig, tz: string, now: number): number {
    const k = key(siteId, device.id);
    let day = this.days.get(k);
    if (!day || day.stale || now >= day.to || now < day.from) {
      day = this.read(siteId, device, tz, now);
      this.days.set(k, day);
    }
    return Math.round(day.inches * 1000) / 1000;
  }

  /** Forgets a gauge (retired). */
  forget(siteId: string, deviceId: string): void {
    this.days.delete(key(siteId, deviceId));
  }

  private read(siteId: string, device: DeviceConfig, tz: string, now: number): Day {
    const p = localParts(now, tz);
    const from = zonedMidnight(p.year, p.month, p.day, tz);
    const next = addDays(p.year, p.month, p.day, 1);
    const to = zonedMidnight(next.year, next.month, next.day, tz);
    const day: Day = {
      from,
      to,
      lastTs: from - 1,
      lastTips: this.readings.counterBefore(siteId, device.id, from)?.tips ?? null,
      inches: 0,
      stale: false,
    };
    for (const r of this.readings.iterate({ siteId, deviceId: device.id, from, to: to - 1 }))
      count(day, r, device);
    return day;
  }
}

const key = (siteId: string, deviceId: string) => `${siteId}\u0000${deviceId}`;

function count(day: Day, r: Reading, device: DeviceConfig): void {
  const tips = r.values.rainTips;
  if (tips !== undefined) {
    if (day.lastTips !== null) {
      const inc = tips >= day.lastTips ? tips - day.lastTips : tips;
      day.inches += inc * (inchesPerTipAt(device, r.ts) ?? 0);
    }
    day.lastTips = tips;
  } else if (r.values.rainIn !== undefined) day.inches += r.values.rainIn;
  day.lastTs = r.ts;
}
