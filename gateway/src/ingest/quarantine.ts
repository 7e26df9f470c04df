/**
 * What the ingest stage keeps in the quarantine instead of refusing it: a telemetry message whose
 * timestamp is ahead of the gateway's clock, or whose device is not registered yet. It is kept whole with
 * its reason in the group commit (`quarantine` rows), and only then acknowledged, so a device resending in
 * order is never stuck behind it; it stays out of the readings, the rules and InfluxDB until released
 * (`../quarantine/`). Each client (its MQTT client id, else the device the message names) may have at
 * most `ingest.quarantinePerClient` messages waiting; beyond, they are refused (`quarantine_full`).
 */
import type { QuarantineReason } from '../../../shared/src/quarantine.ts';
import type { RawMessage } from '../pipeline.ts';
import type { QuarantineRecord, QuarantineRows } from '../quarantine/rows.ts';
import type { GroupCommit, Settle } from './groupCommit.ts';
import type { Rejections, Why } from './rejections.ts';

const KEPT: ReadonlySet<string> = new Set<QuarantineReason>(['future_timestamp', 'unregistered_device']);

/** The most of a payload kept (the message's own limit is ingest.maxPayloadBytes, checked before). */
const MAX_PAYLOAD_CHARS = 16_384;

export class QuarantineIntake {
  /** Waiting messages per client: read from the store on first use, then kept up to date. */
  private readonly waiting = new Map<string, number>();
  private readonly listeners: Array<(rec: QuarantineRecord, waiting: number) => void> = [];

  constructor(
    private readonly rows: QuarantineRows,
    private readonly commits: GroupCommit,
    private readonly rejections: Rejections,
    private readonly perClient: number,
  ) {}

  /** Whether a rejection is one the quarantine keeps: a telemetry message that may be usable later. */
  keeps(why: Why & { ts?: number }): why is Why & { siteId: string; deviceId: string; ts?: number } {
    return KEPT.has(why.reason) && why.siteId !== undefined && why.deviceId !== undefined;
  }

  /** Keeps the message (acknowledged once committed), or refuses it when its client's quarantine is full. */
  keep(msg: RawMessage, why: Why & { siteId: string; deviceId: string; ts?: number }, done: Settle): void {
    const client = msg.clientId ?? `${why.siteId}/${why.deviceId}`;
    const n = this.count(client);
    if (n >= this.perClient) {
      this.rejections.refuseOrRecord(
        msg,
        {
          reason: 'quarantine_full',
          detail: `${n} messages of ${client} already wait in the quarantine (at most ${this.perClient}): ${why.detail}`,
          siteId: why.siteId,
          deviceId: why.deviceId,
        },
        done,
      );
      return;
    }
    this.waiting.set(client, n + 1);
    const payload = typeof msg.payload === 'string' ? msg.payload : msg.payload.toString('utf8');
    const rec: QuarantineRecord = {
      receivedAt: msg.receivedAt,
      transport: msg.transport,
      topic: msg.topic,
      client,
      siteId: why.siteId,
      deviceId: why.deviceId,
      reason: why.reason as QuarantineReason,
      detail: why.detail,
      sourceTs: why.ts,
      payload: payload.slice(0, MAX_PAYLOAD_CHARS),
    };
    this.commits.add({
      kind: 'quarantine',
      rec,
      settle: (err, res) => {
        done(err, res);
        if (err || res?.status !== 'quarantined') return;
        for (const fn of this.listeners) fn(rec, this.waiting.get(client) ?? 1);
      },
    });
  }

  /** Listeners run once a message is kept (committed), with its client's count of messages waiting. */
  onKept(fn: (rec: QuarantineRecord, waiting: number) => void): void {
    this.listeners.push(fn);
  }

  /** A quarantined message's commit failed: it does not count against its client. */
  readonly rolledBack = (rec: QuarantineRecord): void => this.left(rec.client, 1);

  /** Messages of a client left the quarantine (released). */
  left(client: string, n: number): void {
    const had = this.waiting.get(client);
    if (had === undefined) return;
    if (had - n > 0) this.waiting.set(client, had - n);
    else this.waiting.delete(client);
  }

  private count(client: string): number {
    let n = this.waiting.get(client);
    if (n === undefined) {
      n = this.rows.waitingOf(client);
      this.waiting.set(client, n);
    }
    return n;
  }
}
