/**
 * Rejections are counted in full but stored sampled: the first `perMinute` of each device and reason in
 * a minute are stored as rows; the others are counted onto the window's last stored row (its
 * `suppressed` count), in the same commit. A flood of bad messages therefore costs the store a few rows a
 * minute, not one row each.
 */

/** One device's rejections for one reason in one minute. */
export interface SampleWindow {
  /** Rows stored so far in this window. */
  stored: number;
  /** The id of the window's newest stored row, once committed. */
  rowId?: number;
  /** Rejections not stored, waiting for the commit that counts them onto `rowId`. */
  pending: number;
}

/** Beyond this many device-and-reason windows in one minute, the rest share one window. */
const MAX_WINDOWS = 10_000;

export class RejectionSampler {
  /** Windows of the newest minute seen and the one before (messages held back for their rate arrive late). */
  private windows = new Map<string, SampleWindow & { minute: number }>();
  private newest = Number.NEGATIVE_INFINITY;

  constructor(private readonly perMinute: number) {}

  /** The window of a rejection at `at` (epoch ms, its arrival), and whether it is stored as a row. */
  take(
    siteId: string | undefined,
    deviceId: string | undefined,
    reason: string,
    at: number,
  ): {
    window: SampleWindow;
    store: boolean;
  } {
    const minute = Math.max(Math.floor(at / 60_000), this.newest - 1);
    if (minute > this.newest) {
      this.newest = minute;
      for (const [k, w] of this.windows) if (w.minute < minute - 1) this.windows.delete(k);
    }
    let key = `${minute}\u0000${siteId ?? ''}\u0000${deviceId ?? ''}\u0000${reason}`;
    if (!this.windows.has(key) && this.windows.size >= MAX_WINDOWS)
      key = `${minute}\u0000\u0000\u0000${reason}`;
    let w = this.windows.get(key);
    if (!w) {
      w = { stored: 0, pending: 0, minute };
      this.windows.set(key, w);
    }
    const store = w.stored < this.perMinute;
    if (store) w.stored++;
    return { window: w, store };
  }

  /** A commit failed: row ids it gave may not exist; the windows start again. */
  reset(): void {
    this.windows.clear();
  }
}
