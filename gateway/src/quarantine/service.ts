/**
 * The quarantine as a stage: it tells the rules of a device whose clock runs ahead the moment one of its
 * readings is kept (and again at start for what still waits), releases a device's readings with a clock
 * correction an admin gives (a change record with who and the offset, in the transaction that marks them
 * released), and releases a device's messages kept before it was registered once it is added.
 *
 * A release stores the readings first (the ingest stage's group commit, so they reach the rules, InfluxDB
 * and the evidence log as late data does) and then marks them released; a crash in between leaves them
 * waiting, and releasing them again stores each once (duplicates are recognised by their time and seq).
 */
import type { ReleaseBody, ReleaseResponse } from '../../../shared/src/quarantine.ts';
import type { SiteChange } from '../config/sites.ts';
import type { ComponentHealth, IngestResult, Log, RawMessage, Stage } from '../pipeline.ts';
import type { RuleInput } from '../rules/types.ts';
import type { Db } from '../store/types.ts';
import type { Quarantined, QuarantineRecord, QuarantineRows, Release, ReleaseOutcome } from './rows.ts';

export class QuarantineError extends Error {
  constructor(
    readonly code: 'NOT_FOUND' | 'CONFLICT' | 'BAD_REQUEST',
    message: string,
  ) {
    super(message);
  }
}

/** A release as the change log records it (admin/changes.ts), in the release's own transaction. */
export interface ReleaseChange {
  entity: 'quarantine';
  action: 'release';
  by: string;
  siteId: string;
  deviceId: string;
  new: Record<string, unknown>;
}

/** What the service asks of the ingest stage's quarantine intake (ingest/quarantine.ts). */
export interface Intake {
  /** Listeners run once a message is kept (committed), with its device's count of messages waiting. */
  onKept(fn: (rec: QuarantineRecord, waiting: number) => void): void;
  /** Keeps a message again, for a time still ahead of the clock. */
  keep(
    msg: RawMessage,
    why: { reason: 'future_timestamp'; detail: string; siteId: string; deviceId: string; ts: number },
    done: (err: Error | null, result?: IngestResult) => void,
  ): void;
  /** Messages of a device released: they no longer count against it (nor against the total). */
  left(siteId: string, deviceId: string, n: number): void;
}

export interface QuarantineServiceOptions {
  db: Db;
  rows: QuarantineRows;
  changes: { record(c: ReleaseChange): { id: number; logIndex: number } };
  ingest: {
    quarantine: Intake;
    release(msgs: readonly Quarantined[], offsetMs: number): Promise<ReleaseOutcome[]>;
  };
  /** Whether a device is registered now. */
  registered(siteId: string, deviceId: string): boolean;
  /**
   * The stand-in identities a device's messages may have waited under before it was added (a LoRaWAN
   * device's DevEUI: `lorawan/eui-<deveui>`); released with the device's own.
   */
  heldAs?(siteId: string, deviceId: string): ReadonlyArray<{ siteId: string; deviceId: string }>;
  /** Tells the rules of a clock ahead or corrected (alerts/engine.ts `deviceClock`). */
  clock(input: Extract<RuleInput, { type: 'clock-ahead' | 'clock-corrected' }>): void;
  now: () => number;
  log: Log;
}

export class QuarantineService implements Stage {
  readonly name = 'quarantine';
  private readonly busy = new Set<string>();

  constructor(private readonly o: QuarantineServiceOptions) {
    o.ingest.quarantine.onKept((rec, waiting) => {
      if (rec.reason !== 'future_timestamp' || rec.sourceTs === undefined) return;
      this.tell({
        type: 'clock-ahead',
        siteId: rec.siteId,
        deviceId: rec.deviceId,
        at: rec.receivedAt,
        aheadMs: rec.sourceTs - rec.receivedAt,
        waiting,
      });
    });
  }

  /** What still waits with a clock ahead is told to the rules again (a problem raised before a crash is kept). */
  async start(): Promise<void> {
    for (const d of this.o.rows.waitingDevices('future_timestamp'))
      this.tell({
        type: 'clock-ahead',
        siteId: d.siteId,
        deviceId: d.deviceId,
        at: Date.parse(d.firstReceivedAt),
        aheadMs: (d.maxAheadSeconds ?? 0) * 1000,
        waiting: d.waiting,
      });
  }

  async stop(): Promise<void> {}

  health(): ComponentHealth {
    const devices = this.o.rows.summary({ status: 'waiting', limit: 1000 });
    const waiting = devices.reduce((n, d) => n + d.waiting, 0);
    return {
      name: this.name,
      ok: true,
      detail:
        waiting === 0
          ? 'no messages waiting'
          : `${waiting} message${waiting === 1 ? '' : 's'} of ${devices.length} device${devices.length === 1 ? '' : 's'} waiting in quarantine`,
      waiting,
    };
  }

  /** Releases a device's readings kept for a clock ahead, moved by the correction; answers what became of them. */
  async release(b: ReleaseBody, by: string): Promise<ReleaseResponse> {
    if (!this.o.registered(b.siteId, b.deviceId))
      throw new QuarantineError('NOT_FOUND', `Device ${b.siteId}/${b.deviceId} is not registered.`);
    const msgs = this.o.rows.waiting(b.siteId, b.deviceId, 'future_timestamp', b.ids);
    if (msgs.length === 0)
      throw new QuarantineError(
        'NOT_FOUND',
        `No readings of device ${b.deviceId} wait in quarantine for a clock correction${b.ids ? ' with those numbers' : ''}.`,
      );
    if (b.ids && msgs.length !== new Set(b.ids).size)
      throw new QuarantineError(
        'BAD_REQUEST',
        `Some of those readings are not waiting for a clock correction of device ${b.deviceId}.`,
      );
    const offsetMs = b.offsetSeconds * 1000;
    return this.exclusive(b.siteId, b.deviceId, async () => {
      const outcomes = await this.o.ingest.release(msgs, offsetMs);
      const left = outcomes.filter((o) => o.outcome !== 'still_ahead');
      const counts = tally(outcomes);
      const at = this.o.now();
      let change: { id: number; logIndex: number } | undefined;
      this.o.db.transaction(() => {
        if (left.length === 0) return;
        change = this.o.changes.record({
          entity: 'quarantine',
          action: 'release',
          by,
          siteId: b.siteId,
          deviceId: b.deviceId,
          new: {
            reason: 'future_timestamp',
            offsetSeconds: b.offsetSeconds,
            ids: left.map((o) => o.id),
            ...counts,
            ...(b.note ? { note: b.note } : {}),
          },
        });
        this.o.rows.markReleased(releases(left, at, by, offsetMs, change.id));
      })();
      this.left(msgs, left);
      const waiting = this.o.rows.waiting(b.siteId, b.deviceId, 'future_timestamp').length;
      this.tell({
        type: 'clock-corrected',
        siteId: b.siteId,
        deviceId: b.deviceId,
        at,
        by,
        offsetMs,
        released: left.length,
        waiting,
      });
      return { ...counts, changeId: change?.id ?? null, logIndex: change?.logIndex ?? null };
    });
  }

  /** The messages kept, for the API (the table's own queries). */
  readonly list: QuarantineRows['list'] = (q, sites, afterId) => this.o.rows.list(q, sites, afterId);
  readonly summary: QuarantineRows['summary'] = (q, sites) => this.o.rows.summary(q, sites);

  /** For the site catalogue's listeners: a device added or changed has its early messages released. */
  readonly siteEvent = (e: SiteChange): void => {
    if (!e.deviceId || e.what !== 'device') return;
    const { siteId, deviceId } = e;
    this.deviceAdded(siteId, deviceId, e.by).catch((err: Error) =>
      this.o.log.error({ err: err.message, siteId, deviceId }, 'quarantine release failed'),
    );
  };

  /**
   * A device was added or changed: the messages it sent before it was registered are released, as they
   * came (a time still ahead of the clock is kept again, for that reason). `by`: who added it.
   */
  async deviceAdded(siteId: string, deviceId: string, by: string): Promise<void> {
    if (!this.o.registered(siteId, deviceId)) return;
    const msgs = [{ siteId, deviceId }, ...(this.o.heldAs?.(siteId, deviceId) ?? [])].flatMap((id) =>
      this.o.rows.waiting(id.siteId, id.deviceId, 'unregistered_device'),
    );
    if (msgs.length === 0) return;
    await this.exclusive(siteId, deviceId, async () => {
      const outcomes = await this.o.ingest.release(msgs, 0);
      const byId = new Map(msgs.map((m) => [m.id, m]));
      // A time ahead of the clock: kept again, now for that reason (and the device's clock problem raised).
      for (const o of outcomes)
        if (o.outcome === 'still_ahead') {
          const m = byId.get(o.id)!;
          const res = await this.keepAgain(m, o.ts!);
          o.outcome = res.status === 'quarantined' ? 'still_ahead' : 'rejected: quarantine_full';
        }
      const at = this.o.now();
      this.o.db.transaction(() => {
        const change = this.o.changes.record({
          entity: 'quarantine',
          action: 'release',
          by,
          siteId,
          deviceId,
          new: {
            reason: 'unregistered_device',
            offsetSeconds: 0,
            ids: msgs.map((m) => m.id),
            ...tally(outcomes),
          },
        });
        this.o.rows.markReleased(
          releases(outcomes, at, by, 0, change.id).map((r) =>
            r.outcome === 'still_ahead' ? { ...r, outcome: 'kept again: clock ahead' } : r,
          ),
        );
      })();
      this.left(
        msgs,
        msgs.map((m) => ({ id: m.id })),
      );
      this.o.log.info(
        { siteId, deviceId, released: msgs.length },
        'messages kept before the device was added released',
      );
    });
  }

  private keepAgain(m: Quarantined, ts: number): Promise<IngestResult> {
    const ahead = Math.round((ts - m.receivedAt) / 1000);
    return new Promise((resolve, reject) =>
      this.o.ingest.quarantine.keep(
        {
          transport: m.transport as RawMessage['transport'],
          topic: m.topic,
          payload: m.payload,
          receivedAt: m.receivedAt,
          clientId: m.client,
        },
        {
          reason: 'future_timestamp',
          detail: `ts ${new Date(ts).toISOString()} is ${ahead} s ahead of the gateway clock`,
          siteId: m.siteId,
          deviceId: m.deviceId,
          ts,
        },
        (err, res) => (err ? reject(err) : resolve(res!)),
      ),
    );
  }

  /** The released messages no longer count against the identity they waited under. */
  private left(msgs: readonly Quarantined[], gone: ReadonlyArray<{ id: number }>): void {
    const ids = new Set(gone.map((g) => g.id));
    const byIdentity = new Map<string, { siteId: string; deviceId: string; n: number }>();
    for (const m of msgs) {
      if (!ids.has(m.id)) continue;
      const k = `${m.siteId}\u0000${m.deviceId}`;
      const had = byIdentity.get(k);
      if (had) had.n++;
      else byIdentity.set(k, { siteId: m.siteId, deviceId: m.deviceId, n: 1 });
    }
    for (const { siteId, deviceId, n } of byIdentity.values())
      this.o.ingest.quarantine.left(siteId, deviceId, n);
  }

  /** One release of a device at a time. */
  private async exclusive<T>(siteId: string, deviceId: string, fn: () => Promise<T>): Promise<T> {
    const key = `${siteId}/${deviceId}`;
    if (this.busy.has(key))
      throw new QuarantineError(
        'CONFLICT',
        `A release of device ${deviceId} is already under way: try again shortly.`,
      );
    this.busy.add(key);
    try {
      return await fn();
    } finally {
      this.busy.delete(key);
    }
  }

  private tell(input: Parameters<QuarantineServiceOptions['clock']>[0]): void {
    try {
      this.o.clock(input);
    } catch (e) {
      this.o.log.error(
        { err: (e as Error).message, siteId: input.siteId, deviceId: input.deviceId },
        'could not tell the rules of a device clock',
      );
    }
  }
}

function tally(outcomes: readonly ReleaseOutcome[]) {
  const n = (f: (o: ReleaseOutcome) => boolean) => outcomes.filter(f).length;
  return {
    released: n((o) => o.outcome !== 'still_ahead'),
    stored: n((o) => o.outcome === 'stored'),
    duplicates: n((o) => o.outcome === 'duplicate'),
    rejected: n((o) => o.outcome.startsWith('rejected')),
    stillAhead: n((o) => o.outcome === 'still_ahead'),
  };
}

function releases(
  outcomes: readonly ReleaseOutcome[],
  at: number,
  by: string,
  offsetMs: number,
  changeId: number,
): Release[] {
  return outcomes.map((o) => ({ id: o.id, at, by, offsetMs, outcome: o.outcome, changeId }));
}
