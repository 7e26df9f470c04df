/**
 * The InfluxDB output, a stage of its own: what InfluxDB still lacks (the readings after the writer's
 * cursor and the queued alert changes, see readingsSource.ts) drained into it by an InfluxWriter. It
 * holds its durable queue and dead letters (outbox.ts, over the store's `influx_outbox` and
 * `influx_dead_letter` tables) and turns alert changes into lines of the `alerts` measurement itself, so
 * the rest of the gateway only tells it what changed. Without an InfluxDB configured it writes nothing
 * and says so in its health; the dead letters of an earlier configuration stay readable.
 */

import type { Config } from '../../config/schema.ts';
import type { Registry } from '../../metrics.ts';
import type { ComponentHealth, Log, Output } from '../../pipeline.ts';
import { Cursor } from '../../store/cursor.ts';
import type { StoredReading } from '../../store/readings.ts';
import type { Db } from '../../store/types.ts';
import { influxClientFromConfig } from './client.ts';
import { type DeviceOfReading, derivedFields } from './derived.ts';
import { type AlertChange, alertChangeToLine, readingToLine } from './lineProtocol.ts';
import { type DeadLetter, InfluxOutbox } from './outbox.ts';
import { ReadingsSource } from './readingsSource.ts';
import type { WriteClient } from './source.ts';
import { type StormPoint, stormToLine } from './storms.ts';
import { InfluxWriter } from './writer.ts';

export interface InfluxOutputOptions {
  db: Db;
  /** The alert-change queue (and the dead letters); by default the one over `db`. */
  outbox?: InfluxOutbox;
  influx: Config['influx'];
  metrics: Registry;
  log: Log;
  now?: () => number;
  /** The write client; by default the one `influx` names (none without a url). */
  client?: WriteClient;
  /** A device and its site as configured now: for the fields derived from them (derived.ts). */
  deviceOf?: (siteId: string, deviceId: string) => DeviceOfReading | undefined;
  /** A site's unresolved duties of a rule now, and the overdue ones: written with each alert change. */
  dutiesOf?: (siteId: string, rule: string) => { open: number; overdue: number };
}

/** The alert an alert change is about, with the fields its line is made of. */
export type AlertOfChange = Pick<AlertChange, 'siteId' | 'rule' | 'deviceId' | 'status' | 'overdue'> & {
  id: string;
  /** ISO 8601; null or absent for an alert without a deadline. */
  dueAt?: string | null;
};

export class InfluxOutput implements Output {
  readonly name = 'influxdb';
  private readonly writer: InfluxWriter | undefined;
  private readonly source: ReadingsSource | undefined;
  private readonly now: () => number;
  private readonly outbox: InfluxOutbox;

  constructor(private readonly o: InfluxOutputOptions) {
    this.now = o.now ?? Date.now;
    this.outbox = o.outbox ?? new InfluxOutbox(o.db);
    const client = o.client ?? influxClientFromConfig(o.influx);
    if (!client) return;
    // InfluxDB is fed from the readings table itself, after a cursor, and from the alert-change outbox.
    this.source = new ReadingsSource({
      db: o.db,
      outbox: this.outbox,
      readingsCursor: new Cursor(o.db, 'influx-readings'),
      outboxCursor: new Cursor(o.db, 'influx-outbox'),
      maxBuffered: o.influx.batchSize * 10,
      toLine: (r) => readingToLine(r, derivedFields(r, o.deviceOf?.(r.siteId, r.deviceId))),
    });
    this.writer = new InfluxWriter({
      source: this.source,
      client,
      batchSize: o.influx.batchSize,
      flushIntervalMs: o.influx.flushIntervalMs,
      metrics: o.metrics,
      log: o.log,
    });
  }

  async start(): Promise<void> {
    await this.writer?.start();
  }

  async stop(): Promise<void> {
    await this.writer?.stop();
  }

  /** Queues a line of another measurement (a checkpoint) in the store, for the writer to send. */
  enqueueLine(line: string): void {
    if (!this.writer) return;
    this.outbox.enqueue([line], this.now());
    this.writer.notify();
  }

  health(): ComponentHealth {
    return (
      this.writer?.health() ?? {
        name: this.name,
        ok: true,
        detail: 'not configured: the local store serves the API',
      }
    );
  }

  /** Readings just committed to the local store, in id order: their lines wait for the next write. */
  offer(readings: readonly StoredReading[]): void {
    if (!this.writer || !this.source) return;
    this.source.offer(readings);
    this.writer.notify();
  }

  /** A storm event was recorded or changed: queues its `storms` point (storms.ts). */
  stormChanged(storm: StormPoint): void {
    if (!this.writer) return;
    try {
      const thresholdIn = this.o.deviceOf?.(storm.siteId, storm.deviceId)?.site.storm.thresholdIn;
      this.enqueueLine(stormToLine(storm, thresholdIn));
    } catch (err) {
      this.o.log.error(
        { err: (err as Error).message, storm: storm.id },
        'could not queue the storm for InfluxDB',
      );
    }
  }

  /** An alert changed (raised, acknowledged, extended, overdue, resolved...): queues its line. */
  alertChanged(alert: AlertOfChange, action: string): void {
    if (!this.writer) return;
    try {
      this.outbox.enqueue(
        [
          alertChangeToLine({
            siteId: alert.siteId,
            rule: alert.rule,
            alertId: alert.id,
            ...(alert.deviceId ? { deviceId: alert.deviceId } : {}),
            status: alert.status,
            overdue: alert.overdue,
            at: this.now(),
            ...(alert.dueAt ? { dueAt: Date.parse(alert.dueAt) } : {}),
            action,
            ...(this.o.dutiesOf ? { duties: this.o.dutiesOf(alert.siteId, alert.rule) } : {}),
          }),
        ],
        this.now(),
      );
      this.writer.notify();
    } catch (err) {
      this.o.log.error(
        { err: (err as Error).message, alert: alert.id },
        'could not queue the alert change for InfluxDB',
      );
    }
  }

  /** The lines InfluxDB refused for good, newest first (`GET /api/influx/dead-letters`). */
  deadLetters(limit?: number): DeadLetter[] {
    return this.outbox.deadLetters(limit);
  }

  /** The last reading id InfluxDB has (or that was dead-lettered); undefined without InfluxDB. */
  writtenUpTo(): number | undefined {
    return this.source?.writtenUpTo();
  }
}
