import type { SimClock } from './clock.ts';
import type { SimDevice } from './devices/base.ts';
import type { Transport } from './transports/types.ts';

export interface RunResult {
  /** Telemetry messages handed to transports. */
  messages: number;
  /** Virtual time when the run stopped. */
  endedAt: number;
}

/**
 * Advances devices in virtual-time order until `until` (inclusive) and hands every output to the
 * transport chosen for its device. In step mode it runs as fast as the host allows; otherwise it
 * sleeps so that virtual time tracks the clock's speed.
 */
export async function runDevices(
  devices: readonly SimDevice[],
  opts: {
    clock: SimClock;
    until: number;
    transportFor: (d: SimDevice) => Transport;
    signal?: AbortSignal;
    onTick?: (virtualNow: number) => void;
  },
): Promise<RunResult> {
  let messages = 0;
  let yieldCounter = 0;
  for (;;) {
    let next: SimDevice | undefined;
    let t = Number.POSITIVE_INFINITY;
    for (const d of devices) {
      const at = d.nextAt();
      if (at < t) {
        t = at;
        next = d;
      }
    }
    if (!next || t > opts.until) break;
    await opts.clock.sleepUntil(t, opts.signal);
    const tr = opts.transportFor(next);
    for (const out of next.fire(t)) {
      if (out.type === 'telemetry') messages++;
      const wait = tr.send(next, out);
      if (wait) await wait;
    }
    opts.onTick?.(t);
    // Let sockets breathe in step mode: without this a long run would queue everything before writing.
    if (++yieldCounter % 200 === 0) await new Promise((r) => setImmediate(r));
  }
  if (Number.isFinite(opts.until)) await opts.clock.sleepUntil(opts.until, opts.signal);
  return { messages, endedAt: opts.until };
}
