/**
 * What the ingest stage keeps in the quarantine instead of refusing it: a telemetry message whose
 * timestamp is ahead of the gateway's clock, or whose device is not registered yet. It is kept with its
 * reason in the group commit (`quarantine` rows), and only then acknowledged, so a device resending in
 * order is never stuck behind it; it stays out of the readings, the rules and InfluxDB until released
 * (`../quarantine/`).
 *
 * Bounds, whatever client ids a device connects with:
 * - each device the message names (`site/device`, registered or not) may have at most
 *   `ingest.quarantinePerDevice` messages waiting;
 * - the quarantine holds at most `ingest.quarantineTotal` messages waiting in all, so made-up device
 *   names cannot grow it without bound either;
 * - what is kept is the message's JSON object as compact JSON (`../decode/canonical.ts`): whitespace
 *   padding is not kept; a payload that is not a JSON object is refused with its reason.
 * Beyond a cap, messages are refused (`quarantine_full`, with which cap in words): at QoS 1 unacknowledged,
 * otherwise recorded; counted either way.
 */
import type { QuarantineReason } from '../../../shared/src/quarantine.ts';
import { canonicalPayload } from '../decode/canonical.ts';
import type { RawMessage } from '../pipeline.ts';
import type { QuarantineRecord, QuarantineRows } from '../quarantine/rows.ts';
import type { GroupCommit, Settle } from './groupCommit.ts';
import type { Rejections, Why } from './rejections.ts';

const KEPT: ReadonlySet<string> = new Set<QuarantineReason>(['future_timestamp', 'unregistered_device']);

/** The most of a payload kept (the message's own limit is ingest.maxPayloadBytes, checked before). */
const MAX_PAYLOAD_CHARS = 16_384;

export interface QuarantineCaps {
  /** Messages one device may have waiting. */
  perDevice: number;
  /** Messages waiting in all. */
  total: number;
}

type Kept = Why & { siteId: string; deviceId: string; ts?: number };

export class QuarantineIntake {
  /** Waiting messages per device: read from the store on first use, then kept up to date. */
  private readonly waiting = new Map<string, number>();
  /** Waiting messages in all: read from the store on first use, then kept up to date. */
  private inAll: number | undefined;
  private readonly listeners: Array<(rec: QuarantineRecord, waiting: number) => void> = [];

  constructor(
    private readonly rows: QuarantineRows,
    private readonly commits: GroupCommit,
    private readonly rejections: Rejections,
    private readonly caps: QuarantineCaps,
  ) {}

  /** Whether a rejection is one the quarantine keeps: a telemetry message that may be usable later. */
  keeps(why: Why & { ts?: number }): why is Kept {
    return KEPT.has(why.reason) && why.siteId !== undefined && why.deviceId !== undefined;
  }

  /** Keeps the message (acknowledged once committed), or refuses it when it cannot be kept or a cap is reached. */
  keep(msg: RawMessage, why: Kept, done: Settle): void {
    const ids = { siteId: why.siteId, deviceId: why.deviceId };
    const canonical = canonicalPayload(msg.transport, msg.payload, MAX_PAYLOAD_CHARS);
    if (!canonical.ok) {
      this.rejections.refuseOrRecord(
        msg,
        { reason: canonical.reason, detail: `not kept in the quarantine: ${canonical.detail}`, ...ids },
        done,
      );
      return;
    }
    const device = `${why.siteId}/${why.deviceId}`;
    const n = this.count(why.siteId, why.deviceId);
    const all = this.total();
    const full =
      n >= this.caps.perDevice
        ? `${n} messages of device ${device} already wait in the quarantine (at most ${this.caps.perDevice} a device)`
        : all >= this.caps.total
          ? `the quarantine already holds ${all} messages waiting (at most ${this.caps.total} in all)`
          : undefined;
    if (full) {
      this.rejections.refuseOrRecord(
        msg,
        { reason: 'quarantine_full', detail: `${full}: ${why.detail}`, ...ids },
        done,
      );
      return;
    }
    this.waiting.set(key(why.siteId, why.deviceId), n + 1);
    this.inAll = all + 1;
    const rec: QuarantineRecord = {
      receivedAt: msg.receivedAt,
      transport: msg.transport,
      topic: msg.topic,
      client: msg.clientId ?? device,
      siteId: why.siteId,
      deviceId: why.deviceId,
      reason: why.reason as QuarantineReason,
      detail: why.detail,
      sourceTs: why.ts,
      payload: canonical.text,
    };
    this.commits.add({
      kind: 'quarantine',
      rec,
      settle: (err, res) => {
        done(err, res);
        if (err || res?.status !== 'quarantined') return;
        for (const fn of this.listeners) fn(rec, this.waiting.get(key(why.siteId, why.deviceId)) ?? 1);
      },
    });
  }

  /** Listeners run once a message is kept (committed), with its device's count of messages waiting. */
  onKept(fn: (rec: QuarantineRecord, waiting: number) => void): void {
    this.listeners.push(fn);
  }

  /** A quarantined message's commit failed: it does not count. */
  readonly rolledBack = (rec: QuarantineRecord): void => this.left(rec.siteId, rec.deviceId, 1);

  /** Messages of a device left the quarantine (released). */
  left(siteId: string, deviceId: string, n: number): void {
    if (this.inAll !== undefined) this.inAll = Math.max(0, this.inAll - n);
    const device = key(siteId, deviceId);
    const had = this.waiting.get(device);
    if (had === undefined) return;
    if (had - n > 0) this.waiting.set(device, had - n);
    else this.waiting.delete(device);
  }

  /**
   * A device's messages waiting. Only devices with some are kept in the map (a device with none is asked
   * of the store), so the map never holds more devices than the quarantine holds messages: made-up device
   * names refused at the cap leave nothing behind.
   */
  private count(siteId: string, deviceId: string): number {
    const device = key(siteId, deviceId);
    let n = this.waiting.get(device);
    if (n === undefined) {
      n = this.rows.waitingOfDevice(siteId, deviceId);
      if (n > 0) this.waiting.set(device, n);
    }
    return n;
  }

  private total(): number {
    this.inAll ??= this.rows.waitingInAll();
    return this.inAll;
  }
}

/** One map key per device (ids of serial lines may hold any character, so not `site/device`). */
const key = (siteId: string, deviceId: string) => JSON.stringify([siteId, deviceId]);
