import type { Reading } from '../../../shared/src/telemetry.ts';
import type { ReadingStore } from '../store/readings.ts';

/** Sequence numbers remembered per device. */
const SEQ_MEMORY = 1024;

/**
 * Duplicate deliveries before they reach the store: the same device and `seq` within the window of
 * source time is one delivery. (The same device and source time is the store's own rule: it ignores the
 * second insert.) A device's recent seqs are read from the store the first time it is seen, so a
 * redelivery after a restart is still recognised.
 */
export class Duplicates {
  private seqs = new Map<string, Map<number, number>>();
  private lastArrivalTs = new Map<string, number>();

  constructor(
    private readonly store: ReadingStore,
    private readonly windowSec: number,
  ) {}

  /**
   * Two readings stamped with the same arrival millisecond are still two readings: keeps arrival stamps
   * strictly increasing per device so the (device, source time) rule cannot merge them.
   */
  stampArrival(r: Reading): void {
    if (!r.arrivalTs) return;
    const key = `${r.siteId}/${r.deviceId}`;
    const last = this.lastArrivalTs.get(key) ?? 0;
    if (r.ts <= last) r.ts = last + 1;
    this.lastArrivalTs.set(key, r.ts);
  }

  /** Whether the reading's seq was seen within the window; if not, it is remembered. */
  seenSeq(r: Reading): boolean {
    if (r.seq === undefined) return false;
    const key = `${r.siteId}/${r.deviceId}`;
    let m = this.seqs.get(key);
    if (!m) {
      m = new Map();
      for (const row of this.store.recentSeqs(r.siteId, r.deviceId, SEQ_MEMORY).reverse())
        m.set(row.seq, row.ts);
      this.seqs.set(key, m);
    }
    const prevTs = m.get(r.seq);
    if (prevTs !== undefined && Math.abs(prevTs - r.ts) <= this.windowSec * 1000) return true;
    m.delete(r.seq);
    m.set(r.seq, r.ts);
    if (m.size > SEQ_MEMORY) m.delete(m.keys().next().value as number);
    return false;
  }

  /** The reading was not stored after all (its commit failed): its seq may come again. */
  forget(r: Reading): void {
    if (r.seq !== undefined) this.seqs.get(`${r.siteId}/${r.deviceId}`)?.delete(r.seq);
  }
}
