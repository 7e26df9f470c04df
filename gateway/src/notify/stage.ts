/**
 * Notifications as a stage: the dispatcher with the channels the configuration asks for (MQTT through
 * the gateway's publisher, signed webhooks when a webhook secret is set, e-mail when SMTP is set). The
 * publisher is the inputs' MQTT side, so the gateway starts this stage after the inputs (and stops it
 * before them); a delivery made while there is no publisher is retried. At start it says, in one line,
 * which channels are on and which are not configured.
 */
import type { Config, SiteConfig } from '../config/schema.ts';
import type { Registry } from '../metrics.ts';
import type { Log, Output } from '../pipeline.ts';
import type { Db } from '../store/types.ts';
import { SmtpEmailSender } from './channels/email.ts';
import type { StopWorkDocument } from './channels/stopWorkEmail.ts';
import type { NoticeDocument } from './channels/violationEmail.ts';
import { HttpWebhookSender } from './channels/webhook.ts';
import type { Delivery } from './delivery.ts';
import { NotificationDispatcher, type NotificationHealth } from './dispatcher.ts';

export interface MqttPublish {
  publish(topic: string, payload: string, opts?: { qos?: 0 | 1 }): Promise<void>;
}

export class NotificationStage implements Output {
  readonly name = 'notifications';
  readonly dispatcher: NotificationDispatcher;
  /** The SMTP sender when e-mail is configured (the evidence digest uses it too). */
  readonly email: SmtpEmailSender | undefined;
  /** The webhook sender when webhooks are configured (witnesses use it too). */
  readonly webhook: HttpWebhookSender | undefined;
  private publisher: MqttPublish | undefined;
  private readonly log: Log;
  /** What the start-up line names: the channels on, and those off with the key that turns them on. */
  private readonly channelsOn: string[];
  private readonly channelsOff: string[];

  constructor(
    config: Config,
    deps: {
      db: Db;
      now: () => number;
      log: Log;
      metrics: Registry;
      /** The site and its recipients (the people of the site among them) as the live catalogue holds them now. */
      siteOf: (siteId: string) => SiteConfig | undefined;
      /** A notice's document, attached to the e-mail that serves it. */
      noticeDocument?: NoticeDocument;
      /** A stop-work order's document, attached to the e-mail that serves it (or tells of its lifting). */
      stopWorkDocument?: StopWorkDocument;
      /** Told of each delivery sent (a notice's or an order's first delivery to a party is its service). */
      onSent?: (d: Delivery, at: number) => void;
    },
  ) {
    const webhook = config.notify.webhookSecret
      ? new HttpWebhookSender({ secret: config.notify.webhookSecret, gatewayId: config.gatewayId })
      : undefined;
    this.webhook = webhook;
    this.email = config.notify.smtp
      ? new SmtpEmailSender({ smtp: config.notify.smtp, gatewayId: config.gatewayId })
      : undefined;
    this.log = deps.log;
    this.channelsOn = ['MQTT', ...(this.email ? ['e-mail'] : []), ...(webhook ? ['webhooks'] : [])];
    this.channelsOff = [
      ...(this.email ? [] : ['e-mail (notify.smtp)']),
      ...(webhook ? [] : ['webhooks (notify.webhookSecret)']),
    ];
    this.dispatcher = new NotificationDispatcher({
      db: deps.db,
      config,
      siteOf: deps.siteOf,
      channels: {
        mqtt: {
          publish: (topic: string, payload: string) =>
            this.publisher
              ? this.publisher.publish(topic, payload, { qos: 1 })
              : Promise.reject(new Error('no MQTT connection yet')),
        },
        ...(webhook ? { webhook } : {}),
        ...(this.email ? { email: this.email } : {}),
      },
      now: deps.now,
      log: deps.log,
      metrics: deps.metrics,
      ...(deps.noticeDocument ? { noticeDocument: deps.noticeDocument } : {}),
      ...(deps.stopWorkDocument ? { stopWorkDocument: deps.stopWorkDocument } : {}),
      ...(deps.onSent ? { onSent: deps.onSent } : {}),
    });
  }

  /** The gateway's MQTT side, once the inputs exist. */
  publishWith(p: MqttPublish): void {
    this.publisher = p;
  }

  /** Wakes the delivery loop (after the engine committed notification events). */
  notify(): void {
    this.dispatcher.notify();
  }

  start(): Promise<void> {
    const off = this.channelsOff;
    this.log.info(
      { on: this.channelsOn, notConfigured: off },
      off.length
        ? `notifications: ${this.channelsOn.join(', ')}; not configured: ${off.join(', ')} (such notices are kept in the store as not sent)`
        : `notifications: ${this.channelsOn.join(', ')}`,
    );
    return this.dispatcher.start();
  }

  /** Resolves after the first delivery pass since start (see NotificationDispatcher.settled). */
  settled(): Promise<void> {
    return this.dispatcher.settled();
  }

  async stop(): Promise<void> {
    await this.dispatcher.stop();
    this.email?.close();
  }

  health(): NotificationHealth {
    return this.dispatcher.health();
  }
}
