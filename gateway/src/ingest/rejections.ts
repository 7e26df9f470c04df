/**
 * What the ingest stage does with a message it does not store: refused unacknowledged, for a reason that
 * may pass, when the sender waits for an acknowledgement; otherwise a rejection, counted in full and
 * stored sampled (rejectionSampler.ts), the message told once that is committed.
 */
import type { Reading, RejectReason } from '../../../shared/src/telemetry.ts';
import { type RawMessage, RefusedError } from '../pipeline.ts';
import type { GroupCommit, Settle } from './groupCommit.ts';
import type { IngestMetrics } from './metrics.ts';
import { RejectionSampler } from './rejectionSampler.ts';

/** What a rejection record is made from: a transport's message, or an imported reading (its text made only if stored). */
export type Rejected = Pick<RawMessage, 'topic' | 'receivedAt'> & {
  transport: string;
  payload: RawMessage['payload'] | (() => string);
};

/** How much of a rejected payload is kept with the rejection, in characters. */
const EXCERPT = 200;

/**
 * Reasons that may pass on a retry: refused unacknowledged when the sender waits. A full quarantine
 * empties as it is released. (A timestamp ahead of the clock and a device not registered yet are kept in
 * the quarantine instead: quarantine.ts.)
 */
const PASSING: ReadonlySet<RejectReason> = new Set(['quarantine_full', 'not_authorized']);

/** Why a message is not stored, and whose it is when known. */
export interface Why {
  reason: RejectReason;
  detail: string;
  siteId?: string | undefined;
  deviceId?: string | undefined;
}

export class Rejections {
  private readonly sampler: RejectionSampler;

  constructor(
    private readonly commits: GroupCommit,
    private readonly m: IngestMetrics,
    perMinute: number,
  ) {
    this.sampler = new RejectionSampler(perMinute);
  }

  /** A commit failed: the sample windows start again. */
  rolledBack(): void {
    this.sampler.reset();
  }

  /** Refused unacknowledged when the reason may pass and the sender waits (RefusedError), else recorded. */
  refuseOrRecord(msg: RawMessage, why: Why, done: Settle): void {
    const { reason, detail } = why;
    if (!(msg.refusable && PASSING.has(reason))) {
      this.record(msg, why, done);
      return;
    }
    this.m.count(msg.transport, 'refused');
    this.m.rejected(reason);
    this.m.refused.inc({ reason });
    // Recorded too, sampled, without holding the refusal up.
    this.sampledRow(msg, why, () => {});
    done(new RefusedError(reason, `${reason}: ${detail}`));
  }

  /** Counts a rejection and stores it sampled; the message is told once that is committed. */
  record(msg: Rejected, why: Why, done: Settle, result = 'rejected'): void {
    this.m.count(msg.transport, result);
    this.m.rejected(why.reason);
    this.sampledRow(msg, why, done);
  }

  private sampledRow(msg: Rejected, why: Why, done: Settle): void {
    const { reason, detail, siteId, deviceId } = why;
    const { window, store } = this.sampler.take(siteId, deviceId, reason, msg.receivedAt);
    const p = msg.payload;
    const text = !store
      ? ''
      : typeof p === 'function'
        ? p()
        : typeof p === 'string'
          ? p
          : p.subarray(0, EXCERPT * 4).toString('utf8');
    this.commits.add({
      kind: 'rejection',
      rec: {
        at: msg.receivedAt,
        transport: msg.transport,
        topic: msg.topic,
        siteId,
        deviceId,
        reason,
        detail,
        excerpt: text.slice(0, EXCERPT),
      },
      window,
      store,
      settle: done,
    });
  }
}

/** A logger import's reading as the message it came in (for its rejection record). */
export function importMessage(r: Reading): Rejected {
  return {
    transport: 'import',
    topic: `import:${r.siteId}/${r.deviceId}`,
    payload: () => JSON.stringify({ ts: new Date(r.ts).toISOString(), ...r.values }),
    receivedAt: r.receivedAt,
  };
}
