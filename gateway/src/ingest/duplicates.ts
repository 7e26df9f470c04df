import type { Reading } from '../../../shared/src/telemetry.ts';
import { DeviceKeys } from '../deviceKey.ts';
import type { ReadingStore } from '../store/readings.ts';
import { SeqRing } from './seqRing.ts';

/** Sequence numbers remembered per device. */
const SEQ_MEMORY = 1024;

/**
 * Duplicate deliveries before they reach the store: the same device and `seq` within the window of
 * source time is one delivery. (The same device and source time is the store's own rule: it ignores the
 * second insert, so a redelivery that kept its source time needs no seq.) A device's recent seqs are read
 * from the store the first time it is seen, so a redelivery after a restart is still recognised.
 *
 * A counter that starts again (a device restarted, a LoRaWAN device joined again and its frame counter
 * is back at 0): a seq below the one of the device's newest reading, with a source time of the device's
 * own newer than that reading's, is no redelivery (a redelivery keeps its source time), so the device's
 * seqs are forgotten and counting starts again from it. A device that sends no time of its own is
 * stamped on arrival, and a redelivery of it would look the same: its seqs are kept.
 *
 * Memory: a device keeps at most `SEQ_MEMORY` seqs, and none whose source time lies more than the window
 * before the newest it sent (no restamped redelivery can match those), in a compact ring (`seqRing.ts`).
 */
export class Duplicates {
  private seqs = new Map<string, SeqRing>();
  private lastArrivalTs = new Map<string, number>();

  constructor(
    private readonly store: ReadingStore,
    private readonly windowSec: number,
    private readonly keys = new DeviceKeys(),
  ) {}

  /**
   * Two readings stamped with the same arrival millisecond are still two readings: keeps arrival stamps
   * strictly increasing per device so the (device, source time) rule cannot merge them.
   */
  stampArrival(r: Reading): void {
    if (!r.arrivalTs) return;
    const key = this.keys.of(r.siteId, r.deviceId);
    const last = this.lastArrivalTs.get(key) ?? 0;
    if (r.ts <= last) r.ts = last + 1;
    this.lastArrivalTs.set(key, r.ts);
  }

  /** Whether the reading's seq was seen within the window; if not, it is remembered. */
  seenSeq(r: Reading): boolean {
    if (r.seq === undefined) return false;
    const key = this.keys.of(r.siteId, r.deviceId);
    const windowMs = this.windowSec * 1000;
    let ring = this.seqs.get(key);
    if (!ring) {
      ring = new SeqRing(SEQ_MEMORY);
      for (const row of this.store.recentSeqs(r.siteId, r.deviceId, SEQ_MEMORY).reverse())
        ring.add(row.seq, row.ts);
      this.seqs.set(key, ring);
    }
    if (!r.arrivalTs && r.ts > ring.newestTs && r.seq < ring.newestSeq) ring.clear();
    if (ring.has(r.seq, r.ts, windowMs)) return true;
    const newer = r.ts > ring.newestTs;
    ring.add(r.seq, r.ts);
    if (newer) ring.pruneBefore(r.ts - windowMs);
    return false;
  }

  /** The reading was not stored after all (its commit failed): its seq may come again. */
  forget(r: Reading): void {
    if (r.seq !== undefined) this.seqs.get(this.keys.of(r.siteId, r.deviceId))?.forget(r.seq);
  }
}
