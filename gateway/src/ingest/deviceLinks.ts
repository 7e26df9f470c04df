/**
 * How each device of a native transport (LoRaWAN, Modbus, SDI-12) was heard, kept in memory for its page:
 * the last message as it came with what the ingest stage made of it, its last errors in words, and its
 * counts. Bounded: one entry per configured device that spoke, 20 errors and 4 KB of message each.
 */
import { DeviceKeys } from '../deviceKey.ts';

const MAX_RAW = 4096;
const MAX_ERRORS = 20;

export interface LinkLast {
  at: number;
  raw: string;
  outcome: 'stored' | 'duplicate' | 'rejected' | 'quarantined';
  values: Record<string, number | boolean>;
  detail?: string;
}

export interface LinkState {
  last: LinkLast | null;
  errors: { at: number; text: string }[];
  counts: Record<string, number>;
}

export class DeviceLinks {
  private readonly keys = new DeviceKeys();
  private readonly byDevice = new Map<string, LinkState>();

  private of(siteId: string, deviceId: string): LinkState {
    const key = this.keys.of(siteId, deviceId);
    let s = this.byDevice.get(key);
    if (!s) {
      s = { last: null, errors: [], counts: {} };
      this.byDevice.set(key, s);
    }
    return s;
  }

  /** The last message heard from the device and what came of it. */
  heard(siteId: string, deviceId: string, last: LinkLast): void {
    this.of(siteId, deviceId).last = { ...last, raw: last.raw.slice(0, MAX_RAW) };
  }

  /** An error of the device's link, in words (no answer, a damaged frame, ...). */
  error(siteId: string, deviceId: string, at: number, text: string): void {
    const s = this.of(siteId, deviceId);
    s.errors.unshift({ at, text });
    if (s.errors.length > MAX_ERRORS) s.errors.length = MAX_ERRORS;
  }

  /** Counts one event of the device's link (`polls`, `timeouts`, `uplinks`, ...). */
  count(siteId: string, deviceId: string, what: string, n = 1): void {
    const c = this.of(siteId, deviceId).counts;
    c[what] = (c[what] ?? 0) + n;
  }

  get(siteId: string, deviceId: string): LinkState | undefined {
    return this.byDevice.get(this.keys.of(siteId, deviceId));
  }

  /** A device removed from the configuration: forgotten. */
  forget(siteId: string, deviceId: string): void {
    this.byDevice.delete(this.keys.of(siteId, deviceId));
  }
}
