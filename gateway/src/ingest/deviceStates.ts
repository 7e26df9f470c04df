import type { Reading } from '../../../shared/src/telemetry.ts';
import type { DeviceStatus } from '../decode/status.ts';
import { DeviceKeys } from '../deviceKey.ts';
import type { Log } from '../pipeline.ts';
import type { DeviceStateRow, ReadingStore } from '../store/readings.ts';

/**
 * The newest state of every device seen: the latest value of each reading with its source time, the last
 * source and arrival times, and the status the device last announced. Kept in memory, loaded from the
 * store at start and written back to it once a second (and at stop) for the devices that changed.
 */
export class DeviceStates {
  private states = new Map<string, DeviceStateRow>();
  /** The states changed since the last save. */
  private dirty = new Set<DeviceStateRow>();
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: ReadingStore,
    private readonly log: Log,
    private readonly keys = new DeviceKeys(),
  ) {
    for (const s of store.loadDeviceStates()) this.states.set(keys.of(s.siteId, s.deviceId), s);
  }

  all(): DeviceStateRow[] {
    return [...this.states.values()];
  }

  get(siteId: string, deviceId: string): DeviceStateRow | undefined {
    return this.states.get(this.keys.of(siteId, deviceId));
  }

  get size(): number {
    return this.states.size;
  }

  /** Saves changed states every `intervalMs` until stop(). */
  start(intervalMs: number): void {
    this.flushTimer = setInterval(() => this.flush(), intervalMs);
    this.flushTimer.unref();
  }

  /** Stops the timer and saves what changed since the last save. */
  stop(): void {
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.flushTimer = undefined;
    this.flush();
  }

  setStatus(siteId: string, deviceId: string, status: DeviceStatus, at: number): void {
    const st = this.state(siteId, deviceId);
    st.status = status;
    st.statusAt = at;
    this.dirty.add(st);
  }

  /** A stored reading: its values become the latest unless newer ones are known. */
  applyReading(r: Reading): void {
    const s = this.state(r.siteId, r.deviceId);
    if (s.lastTs === null || r.ts >= s.lastTs) s.lastTs = r.ts;
    if (s.lastReceivedAt === null || r.receivedAt > s.lastReceivedAt) s.lastReceivedAt = r.receivedAt;
    const values = r.values as Record<string, number>;
    for (const k in values) setLatest(s, k, values[k]!, r.ts);
    if (r.alarms) {
      const alarms = r.alarms as Record<string, boolean | undefined>;
      for (const k in alarms) {
        const v = alarms[k];
        if (v !== undefined) setLatest(s, `alarms.${k}`, v, r.ts);
      }
    }
    this.dirty.add(s);
  }

  private state(siteId: string, deviceId: string): DeviceStateRow {
    const key = this.keys.of(siteId, deviceId);
    let s = this.states.get(key);
    if (!s) {
      s = {
        siteId,
        deviceId,
        lastTs: null,
        lastReceivedAt: null,
        status: 'unknown',
        statusAt: null,
        latest: {},
      };
      this.states.set(key, s);
    }
    return s;
  }

  private flush(): void {
    if (!this.dirty.size) return;
    const rows = [...this.dirty];
    this.dirty.clear();
    try {
      this.store.saveDeviceStates(rows);
    } catch (e) {
      for (const r of rows) this.dirty.add(r);
      this.log.error({ err: (e as Error).message }, 'saving device state failed; will retry');
    }
  }
}

/** Late data never overwrites a newer value. */
function setLatest(s: DeviceStateRow, key: string, value: number | boolean, ts: number): void {
  const cur = s.latest[key];
  if (!cur) s.latest[key] = { value, ts };
  else if (cur.ts <= ts) {
    cur.value = value;
    cur.ts = ts;
  }
}
