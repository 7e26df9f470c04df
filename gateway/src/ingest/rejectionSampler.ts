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
  private windows = new Map<string, SampleWindow>();
  private minute = Number.NEGATIVE_INFINITY;

  constructor(private readonly perMinute: number) {}

  /** The window of a rejection at `at` (epoch ms), and whether it is stored as a row. */
  take(
    siteId: string | undefined,
    deviceId: string | undefined,
    reason: string,
    at: number,
  ): {
    window: SampleWindow;
    store: boolean;
  } {
    const minute = Math.floor(at / 60_000);
    if (minute !== this.minute) {
      this.minute = minute;
      this.windows.clear();
    }
    let key = `${siteId ?? ''}\u0000${deviceId ?? ''}\u0000${reason}`;
    if (!this.windows.has(key) && this.windows.size >= MAX_WINDOWS) key = `\u0000\u0000${reason}`;
    let w = this.windows.get(key);
    if (!w) {
      w = { stored: 0, pending: 0 };
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
