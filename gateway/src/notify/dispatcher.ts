/**
 * The notification dispatcher: drains the `notification_events` outbox the alert engine writes,
 * fans each event out into deliveries (one row per channel and target) and sends them with retries.
 *
 * Guarantees
 *   - Fan-out is one transaction per batch and idempotent (UNIQUE(event_id, channel, target) and the
 *     `notification_fanout` marker), so a crash mid-fan-out never duplicates or loses a delivery.
 *   - At least once across crashes: a delivery is marked sent right after the channel confirms it;
 *     a crash between the two resends it after the restart (webhook receivers de-duplicate on
 *     X-Gateway-Delivery, e-mail readers see the same Message-ID). Within one process a delivery is
 *     never sent twice: the loop is single, and marking sent is the step right after the send.
 *   - Never silently dropped: a delivery that keeps failing is retried with exponential backoff
 *     (base 5 s doubling up to 1 h, ±20 % jitter; Retry-After is honoured) and is marked `failed`
 *     after `maxAttempts` (30, about a day) or at once on a permanent error. Failed deliveries stay
 *     in the table, are counted in `gateway_notifications_failed_total`, shown by health() and list(),
 *     and can be put back in the queue with retryFailed().
 *   - Order: due deliveries go out oldest first; deliveries to one target go one at a time, and when
 *     one fails the target's other pending deliveries wait for its retry, so they do not overtake it.
 *
 * Routing: see routing.ts. MQTT gets one delivery per event (alerts/{siteId}/{rule}), when the wiring
 * gives an MQTT channel. Webhook and e-mail deliveries are created for the recipients even when that
 * channel is not configured: they then fail (retryably) with the reason, so a missing SMTP server or
 * webhook secret shows in health and metrics instead of swallowing notices.
 */
import type Database from 'better-sqlite3';
import { alertTopic } from '../../../shared/src/topics.ts';
import type { Config, SiteConfig } from '../config/schema.ts';
import type { Counter, Registry } from '../metrics.ts';
import { type ComponentHealth, type Log, type Output, silentLog } from '../pipeline.ts';
import type { EmailSender } from './channels/email.ts';
import type { WebhookSender } from './channels/webhook.ts';
import { classifyError, DeliveryError, displayTarget, safeErrorText, secretForms } from './errors.ts';
import {
  type AlertDto,
  alertDtoSchema,
  type Channel,
  type DeliveryRow,
  type DeliveryStatus,
  type EventRow,
} from './queue.ts';
import { routeRecipients } from './routing.ts';

export interface MqttPublisher {
  /** Resolves once the broker has the message (QoS 1 PUBACK); rejects otherwise. */
  publish(topic: string, payload: string): Promise<void>;
}

export interface NotificationChannels {
  mqtt?: MqttPublisher;
  webhook?: WebhookSender;
  email?: EmailSender;
}

export interface RetryPolicy {
  /** First retry delay, ms (default 5 000); doubles per attempt. */
  baseMs: number;
  /** Largest retry delay, ms (default 3 600 000). */
  maxMs: number;
  /** Attempts before a delivery is marked failed (default 30). */
  maxAttempts: number;
  /** Relative jitter, 0..1 (default 0.2: the delay is scaled by a random factor in [0.8, 1.2]). */
  jitter: number;
}

export const DEFAULT_RETRY: RetryPolicy = { baseMs: 5_000, maxMs: 3_600_000, maxAttempts: 30, jitter: 0.2 };

export interface NotificationDispatcherOptions {
  db: Database.Database;
  config: Config;
  channels: NotificationChannels;
  /** Clock, epoch ms (default Date.now). */
  now?: () => number;
  log?: Log;
  metrics?: Registry;
  retry?: Partial<RetryPolicy>;
  /** Targets sent to in parallel (default 4). */
  concurrency?: number;
  /** Safety poll for events committed without notify(), ms (default 5 000). */
  pollIntervalMs?: number;
  /** Deliveries read per pass (default 100). */
  batchSize?: number;
  /** health() is not ok while a delivery has been pending longer than this, ms (default 1 h). */
  staleAfterMs?: number;
  /** Random source in [0, 1) for jitter (default Math.random). */
  random?: () => number;
}

/** A delivery as the API shows it (webhook URLs without user info or query string). */
export interface DeliveryView {
  id: number;
  eventId: string;
  kind: string | null;
  alertId: string | null;
  siteId: string | null;
  rule: string | null;
  channel: Channel;
  target: string;
  status: DeliveryStatus;
  attempts: number;
  nextAt: string | null;
  lastError: string | null;
  sentAt: string | null;
  createdAt: string | null;
}

export interface ListOptions {
  status?: DeliveryStatus;
  channel?: Channel;
  siteId?: string;
  eventId?: string;
  alertId?: string;
  limit?: number;
  offset?: number;
}

export interface NotificationHealth extends ComponentHealth {
  pending: number;
  failed: number;
  /** Age of the oldest pending delivery's event, seconds; null when none is pending. */
  oldestPendingAgeSec: number | null;
}

const iso = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString();

const DELIVERY_COLUMNS = `d.id, d.event_id, d.channel, d.target, d.status, d.attempts, d.next_at, d.last_error, d.sent_at,
  e.kind, e.alert_id, e.site_id, e.rule, e.payload, e.created_at`;

export class NotificationDispatcher implements Output {
  readonly name = 'notifications';

  private readonly db: Database.Database;
  private readonly config: Config;
  private readonly channels: NotificationChannels;
  private readonly now: () => number;
  private readonly log: Log;
  private readonly retry: RetryPolicy;
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly staleAfterMs: number;
  private readonly random: () => number;
  private readonly sites: Map<string, SiteConfig>;
  private readonly forms: string[];
  private readonly sentCounter: Counter | undefined;
  private readonly failedCounter: Counter | undefined;
  private readonly attemptErrors: Counter | undefined;

  /** Deliveries sent whose `sent` mark could not be stored: never sent again by this process. */
  private readonly sentInProcess = new Set<number>();
  private running = false;
  private loop: Promise<void> | undefined;
  private woken = false;
  private wake: (() => void) | undefined;

  private readonly stmts: {
    unfanned: Database.Statement;
    insertDelivery: Database.Statement;
    markFanned: Database.Statement;
    due: Database.Statement;
    nextDue: Database.Statement;
    markSent: Database.Statement;
    markRetry: Database.Statement;
    markFailed: Database.Statement;
    deferTarget: Database.Statement;
    counts: Database.Statement;
    oldestPending: Database.Statement;
  };

  constructor(opts: NotificationDispatcherOptions) {
    this.db = opts.db;
    this.config = opts.config;
    this.channels = opts.channels;
    this.now = opts.now ?? Date.now;
    this.log = opts.log ?? silentLog;
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.concurrency = Math.max(1, opts.concurrency ?? 4);
    this.pollIntervalMs = opts.pollIntervalMs ?? 5_000;
    this.batchSize = opts.batchSize ?? 100;
    this.staleAfterMs = opts.staleAfterMs ?? 3_600_000;
    this.random = opts.random ?? Math.random;
    this.sites = new Map(opts.config.sites.map((s) => [s.id, s]));
    const smtp = opts.config.notify.smtp;
    this.forms = [
      ...new Set([...secretForms(opts.config.notify.webhookSecret), ...secretForms(smtp?.pass, smtp?.user)]),
    ].sort((a, b) => b.length - a.length);

    this.stmts = {
      unfanned: this.db.prepare(
        `SELECT e.id, e.event_id, e.kind, e.alert_id, e.site_id, e.rule, e.payload, e.created_at
         FROM notification_events e LEFT JOIN notification_fanout f ON f.event_id = e.event_id
         WHERE f.event_id IS NULL AND e.event_id IS NOT NULL ORDER BY e.id LIMIT ?`,
      ),
      insertDelivery: this.db.prepare(
        `INSERT OR IGNORE INTO notification_deliveries (event_id, channel, target, status, attempts, next_at)
         VALUES (?, ?, ?, 'pending', 0, ?)`,
      ),
      markFanned: this.db.prepare(
        'INSERT OR IGNORE INTO notification_fanout (event_id, fanned_at) VALUES (?, ?)',
      ),
      due: this.db.prepare(
        `SELECT ${DELIVERY_COLUMNS}
         FROM notification_deliveries d LEFT JOIN notification_events e ON e.event_id = d.event_id
         WHERE d.status = 'pending' AND d.next_at <= ? ORDER BY d.next_at, d.id LIMIT ?`,
      ),
      nextDue: this.db.prepare(
        "SELECT MIN(next_at) AS at FROM notification_deliveries WHERE status = 'pending'",
      ),
      markSent: this.db.prepare(
        "UPDATE notification_deliveries SET status = 'sent', attempts = ?, sent_at = ? WHERE id = ? AND status = 'pending'",
      ),
      markRetry: this.db.prepare(
        "UPDATE notification_deliveries SET attempts = ?, next_at = ?, last_error = ? WHERE id = ? AND status = 'pending'",
      ),
      markFailed: this.db.prepare(
        "UPDATE notification_deliveries SET status = 'failed', attempts = ?, last_error = ? WHERE id = ? AND status = 'pending'",
      ),
      deferTarget: this.db.prepare(
        `UPDATE notification_deliveries SET next_at = ?
         WHERE status = 'pending' AND channel = ? AND target = ? AND next_at < ? AND id != ?`,
      ),
      counts: this.db.prepare('SELECT status, COUNT(*) AS n FROM notification_deliveries GROUP BY status'),
      oldestPending: this.db.prepare(
        `SELECT MIN(COALESCE(e.created_at, d.next_at)) AS at
         FROM notification_deliveries d LEFT JOIN notification_events e ON e.event_id = d.event_id
         WHERE d.status = 'pending'`,
      ),
    };

    const m = opts.metrics;
    this.sentCounter = m?.counter('gateway_notifications_sent_total', 'Notifications delivered, by channel');
    this.failedCounter = m?.counter(
      'gateway_notifications_failed_total',
      'Notifications given up on (permanent error or too many attempts), by channel',
    );
    this.attemptErrors = m?.counter(
      'gateway_notification_attempt_errors_total',
      'Failed notification send attempts (retried or not), by channel',
    );
    m?.gauge('gateway_notification_deliveries', 'Notification deliveries in the store, by status').collect(
      (set) => {
        if (!this.db.open) return;
        const c = this.counts();
        set(c.pending, { status: 'pending' });
        set(c.failed, { status: 'failed' });
      },
    );
    m?.gauge(
      'gateway_notification_oldest_pending_seconds',
      'Age of the oldest pending notification, seconds (0 when none)',
    ).collect((set) => {
      if (!this.db.open) return;
      set(this.oldestPendingAgeSec() ?? 0);
    });
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    const c = this.counts();
    if (c.pending) this.log.info({ pending: c.pending }, 'resuming pending notifications');
    this.loop = this.run();
  }

  /** Wakes the delivery loop now (the engine calls it after committing events). */
  notify(): void {
    this.woken = true;
    this.wake?.();
  }

  /** Stops taking new deliveries and waits for the sends in flight. */
  async stop(): Promise<void> {
    if (!this.running) {
      await this.loop;
      return;
    }
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  health(): NotificationHealth {
    const c = this.counts();
    const age = this.oldestPendingAgeSec();
    const stale = age !== null && age * 1000 > this.staleAfterMs;
    const parts = [`${c.pending} pending`, `${c.failed} failed`];
    if (age !== null) parts.push(`oldest pending ${Math.round(age)} s`);
    if (!this.running) parts.push('stopped');
    return {
      name: this.name,
      ok: this.running && !stale,
      detail: parts.join(', '),
      pending: c.pending,
      failed: c.failed,
      oldestPendingAgeSec: age,
    };
  }

  list(opts: ListOptions = {}): DeliveryView[] {
    const where: string[] = [];
    const args: Array<string | number> = [];
    if (opts.status) {
      where.push('d.status = ?');
      args.push(opts.status);
    }
    if (opts.channel) {
      where.push('d.channel = ?');
      args.push(opts.channel);
    }
    if (opts.siteId) {
      where.push('e.site_id = ?');
      args.push(opts.siteId);
    }
    if (opts.eventId) {
      where.push('d.event_id = ?');
      args.push(opts.eventId);
    }
    if (opts.alertId) {
      where.push('e.alert_id = ?');
      args.push(opts.alertId);
    }
    const limit = Math.min(Math.max(1, Math.trunc(opts.limit ?? 100)), 1000);
    const offset = Math.max(0, Math.trunc(opts.offset ?? 0));
    const rows = this.db
      .prepare(
        `SELECT ${DELIVERY_COLUMNS}
         FROM notification_deliveries d LEFT JOIN notification_events e ON e.event_id = d.event_id
         ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY d.id DESC LIMIT ? OFFSET ?`,
      )
      .all(...args, limit, offset) as DeliveryRow[];
    return rows.map((r) => ({
      id: r.id,
      eventId: r.event_id,
      kind: r.kind,
      alertId: r.alert_id,
      siteId: r.site_id,
      rule: r.rule,
      channel: r.channel,
      target: displayTarget(r.channel, r.target),
      status: r.status,
      attempts: r.attempts,
      nextAt: r.status === 'pending' ? iso(r.next_at) : null,
      lastError: r.last_error,
      sentAt: iso(r.sent_at),
      createdAt: iso(r.created_at),
    }));
  }

  /** Puts failed deliveries (all, or the given ids) back in the queue with a fresh attempt budget. */
  retryFailed(ids?: number[]): number {
    const now = this.now();
    let n = 0;
    if (ids) {
      const stmt = this.db.prepare(
        "UPDATE notification_deliveries SET status = 'pending', attempts = 0, next_at = ? WHERE id = ? AND status = 'failed'",
      );
      this.db.transaction(() => {
        for (const id of ids) n += stmt.run(now, id).changes;
      })();
    } else {
      n = this.db
        .prepare(
          "UPDATE notification_deliveries SET status = 'pending', attempts = 0, next_at = ? WHERE status = 'failed'",
        )
        .run(now).changes;
    }
    if (n) this.notify();
    return n;
  }

  /**
   * Turns events not yet fanned out into deliveries, in one transaction. Idempotent: running it again
   * (or after a crash) never creates a second delivery for the same event, channel and target.
   * Returns the number of deliveries created.
   */
  fanOut(limit = 500): number {
    const events = this.stmts.unfanned.all(limit) as EventRow[];
    if (!events.length) return 0;
    const now = this.now();
    const created = this.db.transaction((evs: EventRow[]) => {
      let n = 0;
      for (const ev of evs) {
        for (const t of this.targetsFor(ev))
          n += this.stmts.insertDelivery.run(ev.event_id, t.channel, t.target, now).changes;
        this.stmts.markFanned.run(ev.event_id, now);
      }
      return n;
    })(events);
    this.log.debug({ events: events.length, deliveries: created }, 'notifications fanned out');
    return created;
  }

  private targetsFor(ev: EventRow): Array<{ channel: Channel; target: string }> {
    const out: Array<{ channel: Channel; target: string }> = [];
    if (this.channels.mqtt) out.push({ channel: 'mqtt', target: alertTopic(ev.site_id, ev.rule) });
    const site = this.sites.get(ev.site_id);
    if (!site)
      this.log.warn(
        { eventId: ev.event_id, siteId: ev.site_id },
        'notification for a site not in the configuration: MQTT only',
      );
    out.push(...routeRecipients(site, ev.kind, ev.rule));
    return out;
  }

  private counts(): { pending: number; failed: number; sent: number } {
    const c = { pending: 0, failed: 0, sent: 0 };
    for (const r of this.stmts.counts.all() as Array<{ status: DeliveryStatus; n: number }>)
      c[r.status] = r.n;
    return c;
  }

  private oldestPendingAgeSec(): number | null {
    const r = this.stmts.oldestPending.get() as { at: number | null } | undefined;
    if (r?.at === null || r?.at === undefined) return null;
    return Math.max(0, (this.now() - r.at) / 1000);
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.woken = false;
      let processed = 0;
      let failedPass = false;
      try {
        this.fanOut();
        processed = await this.deliverDue();
      } catch (e) {
        failedPass = true;
        this.log.error({ err: this.safe(e) }, 'notification pass failed');
      }
      if (!this.running) break;
      if (this.woken || (processed > 0 && !failedPass)) continue;
      await this.sleep(this.delayUntilNextDue(failedPass));
    }
  }

  private delayUntilNextDue(failedPass: boolean): number {
    if (failedPass) return this.pollIntervalMs;
    const r = this.stmts.nextDue.get() as { at: number | null } | undefined;
    if (r?.at === null || r?.at === undefined) return this.pollIntervalMs;
    return Math.min(Math.max(r.at - this.now(), 10), this.pollIntervalMs);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = undefined;
        done();
      };
    });
  }

  /** Sends the due deliveries: targets in parallel, one target's deliveries in order. */
  private async deliverDue(): Promise<number> {
    const rows = (this.stmts.due.all(this.now(), this.batchSize) as DeliveryRow[]).filter(
      (r) => !this.sentInProcess.has(r.id),
    );
    if (!rows.length) return 0;
    const groups = new Map<string, DeliveryRow[]>();
    for (const r of rows) {
      const k = `${r.channel}\n${r.target}`;
      const g = groups.get(k);
      if (g) g.push(r);
      else groups.set(k, [r]);
    }
    const queue = [...groups.values()];
    const worker = async () => {
      for (let g = queue.shift(); g && this.running; g = queue.shift()) {
        for (const r of g) {
          if (!this.running) return;
          if (!(await this.attempt(r))) break;
        }
      }
    };
    const results = await Promise.allSettled(
      Array.from({ length: Math.min(this.concurrency, queue.length) }, worker),
    );
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) throw failure.reason;
    return rows.length;
  }

  /** One send and its bookkeeping. False when the target should be left alone until its retry. */
  private async attempt(row: DeliveryRow): Promise<boolean> {
    const started = this.now();
    let error: ReturnType<typeof classifyError> | undefined;
    try {
      await this.send(row);
    } catch (e) {
      error = classifyError(e);
    }
    const now = this.now();
    const attempts = row.attempts + 1;
    const logCtx = {
      deliveryId: row.id,
      eventId: row.event_id,
      channel: row.channel,
      target: displayTarget(row.channel, row.target),
      attempts,
    };

    if (!error) {
      try {
        this.stmts.markSent.run(attempts, now, row.id);
      } catch (e) {
        this.sentInProcess.add(row.id);
        this.log.error(
          { ...logCtx, err: this.safe(e) },
          'notification sent but its sent mark was not stored',
        );
      }
      this.sentCounter?.inc({ channel: row.channel });
      this.log.info({ ...logCtx, ms: now - started }, 'notification sent');
      return true;
    }

    const message = safeErrorText(error.message, this.forms, 1000);
    this.attemptErrors?.inc({ channel: row.channel });
    if (error.permanent || attempts >= this.retry.maxAttempts) {
      this.stmts.markFailed.run(attempts, message, row.id);
      this.failedCounter?.inc({ channel: row.channel });
      this.log.error(
        { ...logCtx, err: message, permanent: error.permanent },
        'notification failed: giving up (kept in the store as failed)',
      );
      return true;
    }
    const nextAt = now + this.backoff(attempts, error.retryAfterMs);
    this.db.transaction(() => {
      this.stmts.markRetry.run(attempts, nextAt, message, row.id);
      this.stmts.deferTarget.run(nextAt, row.channel, row.target, nextAt, row.id);
    })();
    this.log.warn(
      { ...logCtx, err: message, retryAt: iso(nextAt) },
      'notification attempt failed: will retry',
    );
    return false;
  }

  /** Delay before the retry that follows attempt number `attempts`. */
  private backoff(attempts: number, retryAfterMs: number | undefined): number {
    const { baseMs, maxMs, jitter } = this.retry;
    const exp = Math.min(maxMs, baseMs * 2 ** Math.min(attempts - 1, 40));
    const jittered = exp * (1 - jitter + 2 * jitter * this.random());
    return Math.round(Math.min(maxMs, Math.max(jittered, retryAfterMs ?? 0)));
  }

  private async send(row: DeliveryRow): Promise<void> {
    if (row.payload === null || row.kind === null)
      throw new DeliveryError('the event is missing from the store', true);
    let alert: unknown;
    try {
      alert = JSON.parse(row.payload);
    } catch (e) {
      throw new DeliveryError(
        `the event payload is not JSON (${e instanceof Error ? e.message : 'error'})`,
        true,
      );
    }
    const body = JSON.stringify({ event: row.kind, eventId: row.event_id, alert });
    switch (row.channel) {
      case 'mqtt':
        // A channel that is not configured cannot succeed by retrying: the delivery fails at once, visibly,
        // and POST /api/notifications/retry sends it once the channel is configured.
        if (!this.channels.mqtt) throw new DeliveryError('no MQTT channel is configured', true);
        await this.channels.mqtt.publish(row.target, body);
        return;
      case 'webhook':
        if (!this.channels.webhook)
          throw new DeliveryError('no webhook channel is configured (is notify.webhookSecret set?)', true);
        await this.channels.webhook.send({ url: row.target, kind: row.kind, eventId: row.event_id, body });
        return;
      case 'email': {
        if (!this.channels.email)
          throw new DeliveryError('no e-mail channel is configured (notify.smtp)', true);
        const dto = this.alertDto(row, alert);
        const site = this.sites.get(dto.siteId);
        const toName = site?.recipients.find((r) => r.email === row.target)?.name;
        await this.channels.email.send({
          to: row.target,
          ...(toName ? { toName } : {}),
          kind: row.kind,
          eventId: row.event_id,
          alert: dto,
          ...(site?.name ? { siteName: site.name } : {}),
          timeZone: site?.timezone ?? this.config.timezone,
        });
        return;
      }
      default:
        throw new DeliveryError(`unknown channel ${String(row.channel)}`, true);
    }
  }

  private alertDto(row: DeliveryRow, alert: unknown): AlertDto {
    const base = { id: row.alert_id, rule: row.rule, siteId: row.site_id };
    const parsed = alertDtoSchema.safeParse(
      alert && typeof alert === 'object' ? { ...base, ...alert } : base,
    );
    if (!parsed.success)
      throw new DeliveryError(
        `the alert in the event payload is not an alert DTO: ${parsed.error.issues
          .map((i) => `${i.path.join('.')}: ${i.message}`)
          .join('; ')}`,
        true,
      );
    return parsed.data;
  }

  private safe(e: unknown): string {
    return safeErrorText(e instanceof Error ? `${e.name}: ${e.message}` : String(e), this.forms, 1000);
  }
}
