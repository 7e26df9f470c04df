/**
 * The notification dispatcher: one loop that fans new outbox events out into deliveries (routing.ts),
 * takes the due deliveries from the queue (queue.ts), hands each to its channel (channels/) and
 * records the outcome, scheduling retries with backoff (retry.ts).
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
 * MQTT gets one delivery per event when the wiring gives an MQTT channel. Webhook and e-mail
 * deliveries are created for the recipients even when that channel is not configured: they then fail
 * at once with the reason, so a missing SMTP server or webhook secret shows in health, metrics and the
 * API instead of swallowing notices. Those failures are logged at debug level only: a channel left out
 * is the configuration's choice, which the notification stage states once at start.
 */
import type Database from 'better-sqlite3';
import type { Config, SiteConfig } from '../config/schema.ts';
import type { Counter, Registry } from '../metrics.ts';
import { type ComponentHealth, type Log, type Output, silentLog } from '../pipeline.ts';
import type { NotificationChannel } from './channels/channel.ts';
import { type EmailSender, emailChannel } from './channels/email.ts';
import { type MqttPublisher, mqttChannel } from './channels/mqtt.ts';
import type { StopWorkDocument } from './channels/stopWorkEmail.ts';
import type { NoticeDocument } from './channels/violationEmail.ts';
import { type WebhookSender, webhookChannel } from './channels/webhook.ts';
import { type Delivery, readDelivery } from './delivery.ts';
import { displayTarget, failureOf, type SendOutcome, safeErrorText, secretForms } from './errors.ts';
import {
  type Channel,
  type DeliveryRow,
  type DeliveryView,
  type EventRow,
  type ListOptions,
  NotificationQueue,
} from './queue.ts';
import { backoffMs, DEFAULT_RETRY, type RetryPolicy } from './retry.ts';
import { routeEvent } from './routing.ts';

/** The transports the wiring provides; each missing one is a channel that fails its deliveries at once. */
export interface NotificationChannels {
  mqtt?: MqttPublisher;
  webhook?: WebhookSender;
  email?: EmailSender;
}

export interface NotificationDispatcherOptions {
  db: Database.Database;
  config: Config;
  /** The site (and its recipients) of a notification, as the live catalogue holds it now. */
  siteOf: (siteId: string) => SiteConfig | undefined;
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
  /** A notice's document, attached to the e-mail that serves it (`violationEmail.ts`). */
  noticeDocument?: NoticeDocument;
  /** A stop-work order's document, attached to the e-mail that serves it (`stopWorkEmail.ts`). */
  stopWorkDocument?: StopWorkDocument;
  /**
   * Told of each delivery sent, with the time its sent mark records (a notice's or a stop-work order's
   * first delivery to a party is its service: `main.ts` records it). A throw is logged; the delivery stays sent.
   */
  onSent?: (d: Delivery, at: number) => void;
}

export interface NotificationHealth extends ComponentHealth {
  pending: number;
  failed: number;
  /** Age of the oldest pending delivery's event, seconds; null when none is pending. */
  oldestPendingAgeSec: number | null;
}

export class NotificationDispatcher implements Output {
  readonly name = 'notifications';

  private readonly queue: NotificationQueue;
  private readonly channels: Record<Channel, NotificationChannel>;
  private readonly routesMqtt: boolean;
  private readonly now: () => number;
  private readonly log: Log;
  private readonly retry: RetryPolicy;
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly staleAfterMs: number;
  private readonly random: () => number;
  private readonly onSent: ((d: Delivery, at: number) => void) | undefined;
  private readonly siteOf: (siteId: string) => SiteConfig | undefined;
  private readonly forms: string[];
  private readonly sentCounter: Counter | undefined;
  private readonly failedCounter: Counter | undefined;
  private readonly attemptErrors: Counter | undefined;

  /** Deliveries sent whose `sent` mark could not be stored: never sent again by this process. */
  private readonly sentInProcess = new Set<number>();
  private running = false;
  private loop: Promise<void> | undefined;
  /** Resolves once the loop has made its first pass (fan-out and one try of what was due at start). */
  private firstPass: Promise<void> = Promise.resolve();
  private firstPassDone: (() => void) | undefined;
  private woken = false;
  private wake: (() => void) | undefined;

  constructor(opts: NotificationDispatcherOptions) {
    this.queue = new NotificationQueue(opts.db);
    this.channels = {
      mqtt: mqttChannel(opts.channels.mqtt),
      webhook: webhookChannel(opts.channels.webhook),
      email: emailChannel(opts.channels.email, opts.config, opts.siteOf, {
        now: opts.now ?? Date.now,
        ...(opts.noticeDocument ? { noticeDocument: opts.noticeDocument } : {}),
        ...(opts.stopWorkDocument ? { stopWorkDocument: opts.stopWorkDocument } : {}),
      }),
    };
    this.routesMqtt = opts.channels.mqtt !== undefined;
    this.now = opts.now ?? Date.now;
    this.log = opts.log ?? silentLog;
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.concurrency = Math.max(1, opts.concurrency ?? 4);
    this.pollIntervalMs = opts.pollIntervalMs ?? 5_000;
    this.batchSize = opts.batchSize ?? 100;
    this.staleAfterMs = opts.staleAfterMs ?? 3_600_000;
    this.random = opts.random ?? Math.random;
    this.onSent = opts.onSent;
    this.siteOf = opts.siteOf;
    const smtp = opts.config.notify.smtp;
    this.forms = [
      ...new Set([...secretForms(opts.config.notify.webhookSecret), ...secretForms(smtp?.pass, smtp?.user)]),
    ].sort((a, b) => b.length - a.length);

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
        if (!this.queue.open) return;
        const c = this.queue.counts();
        set(c.pending, { status: 'pending' });
        set(c.failed, { status: 'failed' });
      },
    );
    m?.gauge(
      'gateway_notification_oldest_pending_seconds',
      'Age of the oldest pending notification, seconds (0 when none)',
    ).collect((set) => {
      if (!this.queue.open) return;
      set(this.oldestPendingAgeSec() ?? 0);
    });
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    const c = this.queue.counts();
    if (c.pending) this.log.info({ pending: c.pending }, 'resuming pending notifications');
    this.firstPass = new Promise((resolve) => {
      this.firstPassDone = resolve;
    });
    this.loop = this.run();
  }

  /**
   * Resolves after the loop's first pass since start(): what was due then was tried once (sent, failed,
   * or set to be retried). The start-up output waits for it, so that these sends' lines come before its end.
   */
  settled(): Promise<void> {
    return this.firstPass;
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
    this.firstPassDone?.();
    this.firstPassDone = undefined;
  }

  health(): NotificationHealth {
    const c = this.queue.counts();
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
    return this.queue.list(opts);
  }

  /** Puts failed deliveries (all, or the given ids) back in the queue with a fresh attempt budget. */
  retryFailed(ids?: number[]): number {
    const n = this.queue.requeueFailed(this.now(), ids);
    if (n) this.notify();
    return n;
  }

  /**
   * Turns events not yet fanned out into deliveries, in one transaction. Idempotent: running it again
   * (or after a crash) never creates a second delivery for the same event, channel and target.
   * Returns the number of deliveries created.
   */
  fanOut(limit = 500): number {
    const events = this.queue.unfanned(limit);
    if (!events.length) return 0;
    const created = this.queue.fanOut(events, (ev) => this.targetsFor(ev), this.now());
    this.log.debug({ events: events.length, deliveries: created }, 'notifications fanned out');
    return created;
  }

  private targetsFor(ev: EventRow) {
    const site = this.siteOf(ev.site_id);
    if (!site)
      this.log.warn(
        { eventId: ev.event_id, siteId: ev.site_id },
        'notification for a site not in the configuration: MQTT only',
      );
    return routeEvent(ev, site, this.routesMqtt);
  }

  private oldestPendingAgeSec(): number | null {
    const at = this.queue.oldestPendingAt();
    if (at === undefined) return null;
    return Math.max(0, (this.now() - at) / 1000);
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
      this.firstPassDone?.();
      this.firstPassDone = undefined;
      if (!this.running) break;
      if (this.woken || (processed > 0 && !failedPass)) continue;
      await this.sleep(this.delayUntilNextDue(failedPass));
    }
  }

  private delayUntilNextDue(failedPass: boolean): number {
    if (failedPass) return this.pollIntervalMs;
    const at = this.queue.nextDueAt();
    if (at === undefined) return this.pollIntervalMs;
    return Math.min(Math.max(at - this.now(), 10), this.pollIntervalMs);
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
    const rows = this.queue.due(this.now(), this.batchSize).filter((r) => !this.sentInProcess.has(r.id));
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

  /** The row's delivery handed to its channel. */
  private async send(row: DeliveryRow): Promise<SendOutcome> {
    const delivery = readDelivery(row);
    if ('ok' in delivery) return delivery;
    const channel = this.channels[row.channel] as NotificationChannel | undefined;
    if (!channel) return { ok: false, permanent: true, message: `unknown channel ${String(row.channel)}` };
    try {
      return await channel.send(delivery);
    } catch (e) {
      return failureOf(e);
    }
  }

  /** Tells `onSent` of a delivery sent; a failure there is logged (the delivery stays sent). */
  private tellSent(row: DeliveryRow, at: number, logCtx: Record<string, unknown>): void {
    if (!this.onSent) return;
    const d = readDelivery(row);
    if ('ok' in d) return;
    try {
      this.onSent(d, at);
    } catch (e) {
      this.log.error(
        { ...logCtx, err: this.safe(e) },
        'a delivery was sent but what follows it was not recorded',
      );
    }
  }

  /** One send and its bookkeeping. False when the target should be left alone until its retry. */
  private async attempt(row: DeliveryRow): Promise<boolean> {
    const started = this.now();
    const outcome = await this.send(row);
    const now = this.now();
    const attempts = row.attempts + 1;
    const logCtx = {
      deliveryId: row.id,
      eventId: row.event_id,
      channel: row.channel,
      target: displayTarget(row.channel, row.target),
      attempts,
    };

    if (outcome.ok) {
      try {
        this.queue.markSent(row.id, attempts, now);
      } catch (e) {
        this.sentInProcess.add(row.id);
        this.log.error(
          { ...logCtx, err: this.safe(e) },
          'notification sent but its sent mark was not stored',
        );
      }
      this.sentCounter?.inc({ channel: row.channel });
      this.log.info({ ...logCtx, ms: now - started }, 'notification sent');
      this.tellSent(row, now, logCtx);
      return true;
    }

    const message = safeErrorText(outcome.message, this.forms, 1000);
    this.attemptErrors?.inc({ channel: row.channel });
    if (outcome.permanent || attempts >= this.retry.maxAttempts) {
      this.queue.markFailed(row.id, attempts, message);
      this.failedCounter?.inc({ channel: row.channel });
      // A channel left out of the configuration is not a fault: the stage said so once, at start.
      if (outcome.unconfigured) {
        this.log.debug(
          { ...logCtx, err: message },
          'notification not sent: its channel is not configured (kept in the store as failed)',
        );
        return true;
      }
      this.log.error(
        { ...logCtx, err: message, permanent: outcome.permanent },
        'notification failed: giving up (kept in the store as failed)',
      );
      return true;
    }
    const nextAt = now + backoffMs(this.retry, attempts, outcome.retryAfterMs, this.random);
    this.queue.scheduleRetry(row, attempts, nextAt, message);
    this.log.warn(
      { ...logCtx, err: message, retryAt: new Date(nextAt).toISOString() },
      'notification attempt failed: will retry',
    );
    return false;
  }

  private safe(e: unknown): string {
    return safeErrorText(e instanceof Error ? `${e.name}: ${e.message}` : String(e), this.forms, 1000);
  }
}
