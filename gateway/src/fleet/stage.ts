/**
 * The fleet stage: one view of many gateways. It publishes this gateway's sites (devices' status, open
 * and overdue duties) retained on `gateway/{gatewayId}/state`, soon after every change and at least
 * every `fleet.publishSeconds`, though after a change never sooner than `MIN_GAP_MS` (or `GAP_PER_COST`
 * times what the last one took) after the last one: a 10,000-device gateway's state is megabytes of JSON,
 * and built on every change it took 6% of a core. It goes through the gateway's own MQTT publisher (whose
 * last will marks the gateway offline on `gateway/{gatewayId}/status`); and, when `fleet.follow` names
 * other gateways, it follows theirs (follower.ts) for the API and the dashboard, read-only.
 */
import { hash } from 'node:crypto';
import type { FleetView } from '../../../shared/src/api/fleet.ts';
import type { Config } from '../config/schema.ts';
import type { Publisher } from '../ingest/inputs.ts';
import type { ComponentHealth, Log, Stage } from '../pipeline.ts';
import { Follower } from './follower.ts';
import { type FleetState, ownSites, type StateSources, stateTopic } from './state.ts';

/** How soon after a change the state goes out (changes in a burst go together). */
const SETTLE_MS = 250;
/** Until a first publication succeeds (the broker connection comes up after this stage). */
const RETRY_MS = 2000;
/** A change goes out at least this long after the last publication... */
const MIN_GAP_MS = 2000;
/** ...and at least this many times as long as building and handing over that one took (2% of a core). */
const GAP_PER_COST = 50;

export type { FleetView } from '../../../shared/src/api/fleet.ts';

export class FleetStage implements Stage {
  readonly name = 'fleet';
  private readonly follower: Follower | undefined;
  private timer: NodeJS.Timeout | undefined;
  private soon: NodeJS.Timeout | undefined;
  /** SHA-256 of the sites last published (a 10,000-device state is megabytes: not kept itself). */
  private last = '';
  private lastAt = 0;
  /** When the last publication began, and how long building and handing it over took. */
  private lastBegunAt = Number.NEGATIVE_INFINITY;
  private lastCostMs = 0;
  private lastError: string | undefined;
  private publishing = false;
  private started = false;
  private again = false;
  private stopped = false;

  constructor(
    private readonly o: {
      config: Config;
      sources: StateSources;
      publisher: Publisher;
      log: Log;
      now: () => number;
    },
  ) {
    if (o.config.fleet.follow.length > 0) this.follower = new Follower(o.config, { log: o.log, now: o.now });
  }

  async start(): Promise<void> {
    this.started = true;
    this.follower?.start();
    this.schedule(SETTLE_MS);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.soon);
    await this.follower?.stop();
  }

  /** Something a follower would see changed (an alert, a device's status): published shortly. */
  readonly changed = (): void => {
    // Before the start (the rules raise duties while the broker is not up yet) the start's own
    // publication carries the change.
    if (!this.started || this.stopped || this.soon) return;
    const gap = Math.max(MIN_GAP_MS, GAP_PER_COST * this.lastCostMs);
    const delay = Math.max(SETTLE_MS, this.lastBegunAt + gap - this.o.now());
    this.soon = setTimeout(() => {
      this.soon = undefined;
      void this.publish(false);
    }, delay);
  };

  view(): FleetView {
    return {
      gatewayId: this.o.config.gatewayId,
      following: this.o.config.fleet.follow,
      gateways: this.follower?.view() ?? [],
    };
  }

  health(): ComponentHealth[] {
    const own: ComponentHealth = {
      name: 'fleet',
      // Informative: a state not published yet or failing follows from the broker connection, which the
      // mqtt component reports; the gateway's own duties are unaffected.
      ok: true,
      publishedAt: this.lastAt ? new Date(this.lastAt).toISOString() : null,
      ...(this.lastError ? { lastError: this.lastError } : {}),
    };
    return this.follower ? [own, this.follower.health()] : [own];
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.publish(true), ms);
  }

  /** Publishes the state when it changed, or always when `force` (the periodic one). */
  private async publish(force: boolean): Promise<void> {
    if (this.stopped) return;
    if (this.publishing) {
      this.again = true;
      return;
    }
    const { config, sources, publisher, log, now } = this.o;
    const begun = performance.now();
    this.lastBegunAt = now();
    const sites = ownSites(sources);
    const body = JSON.stringify(sites);
    const digest = hash('sha256', body, 'base64');
    if (!force && digest === this.last) return;
    const head: Omit<FleetState, 'sites'> = {
      gatewayId: config.gatewayId,
      ...(config.fleet.url ? { url: config.fleet.url } : {}),
      publishedAt: new Date(now()).toISOString(),
      everySeconds: config.fleet.publishSeconds,
    };
    // The sites as already serialised: the state is `head` with `sites` last.
    const json = `${JSON.stringify(head).slice(0, -1)},"sites":${body}}`;
    this.publishing = true;
    try {
      const sent = publisher.publish(stateTopic(config.gatewayId), json, {
        retain: true,
        qos: 1,
      });
      this.lastCostMs = performance.now() - begun;
      await sent;
      this.last = digest;
      this.lastAt = now();
      if (this.lastError) log.info('fleet: state published again');
      this.lastError = undefined;
      this.schedule(config.fleet.publishSeconds * 1000);
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      if (this.lastError === undefined) log.warn({ error }, 'fleet: publishing the state failed; retrying');
      this.lastError = error;
      this.schedule(RETRY_MS);
    } finally {
      this.publishing = false;
      if (this.again) {
        this.again = false;
        this.changed();
      }
    }
  }
}
