/**
 * The Home Assistant stage (opt-in, `homeassistant.discovery: true`): it publishes, retained, the
 * discovery configs of every device's sensors and every site's duty binary sensors (discovery.ts), and
 * the states they read. It goes through the gateway's own MQTT publisher, after the broker connection.
 *
 * Cheap at 10,000 devices: nothing is published per reading. A reading marks its device changed; every
 * `FLUSH_MS` the changed devices whose state went out at least `homeassistant.publishSeconds` ago are
 * published, at most `MAX_PER_FLUSH` messages a flush (configs, removals and states together, oldest
 * change first); the rest wait for the next flush. A site's duty state goes out at the next flush after
 * one of its alerts changed. A retired device's configs and state are removed (empty retained messages),
 * those of devices retired while the gateway was down at its start.
 */

import { FIELDS_BY_KIND } from '../../../shared/src/telemetry.ts';
import type { AlertEvent } from '../alerts/types.ts';
import type { HomeAssistantConfig } from '../config/homeassistant.ts';
import type { DeviceConfig, SiteConfig } from '../config/schema.ts';
import type { SiteChange } from '../config/sites.ts';
import type { Publisher } from '../ingest/inputs.ts';
import type { ComponentHealth, Log, Stage } from '../pipeline.ts';
import { fractionFilled } from '../rules/sediment-cleanout/evaluator.ts';
import type { DeviceStateRow, ReadingStore, StoredReading } from '../store/readings.ts';
import {
  deviceConfigTopics,
  deviceDiscovery,
  deviceStateTopic,
  dutiesState,
  dutiesStateTopic,
  type HaDeviceState,
  SENSORS,
  siteDiscovery,
} from './discovery.ts';
import { RainToday } from './rainToday.ts';

/** How often the changes go out. */
const FLUSH_MS = 2000;
/** Messages published at most per flush (500 a second at most, in practice far fewer). */
export const MAX_PER_FLUSH = 1000;

export interface HomeAssistantSources {
  gatewayId: string;
  timezone: string;
  sites(): readonly SiteConfig[];
  /** A registered device and its site. */
  lookup(siteId: string, deviceId: string): { site: SiteConfig; device: DeviceConfig } | undefined;
  retiredDevices(siteId: string): readonly string[];
  deviceState(siteId: string, deviceId: string): DeviceStateRow | undefined;
  /** The unresolved duties (open or acknowledged). */
  openDuties(): ReadonlyArray<{ siteId: string; rule: string }>;
  readings: Pick<ReadingStore, 'iterate' | 'counterBefore'>;
}

/**
 * What is to go out. Configs are built when they go out, not when queued: a 10,000-device gateway's
 * configs are some 35,000 messages and 20 MB of JSON.
 */
type Pending =
  | { kind: 'configs'; siteId: string; deviceId?: string }
  | { kind: 'remove'; topic: string }
  | { kind: 'device' | 'duties'; key: string };

export class HomeAssistantStage implements Stage {
  readonly name = 'homeassistant';
  private readonly rain: RainToday;
  /** What is to go out, in the order it changed: keyed by topic (configs) or `d:`/`s:` key (states). */
  private readonly pending = new Map<string, Pending>();
  private readonly lastStateAt = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing = false;
  private stopped = true;
  private published = 0;
  private lastError: string | undefined;

  constructor(
    private readonly o: {
      settings: HomeAssistantConfig;
      sources: HomeAssistantSources;
      publisher: Publisher;
      log: Log;
      now: () => number;
    },
  ) {
    this.rain = new RainToday(o.sources.readings);
  }

  async start(): Promise<void> {
    this.stopped = false;
    const { sources } = this.o;
    for (const site of sources.sites()) {
      for (const deviceId of sources.retiredDevices(site.id)) this.removeDevice(site.id, deviceId);
      this.siteChanged(site.id);
    }
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
  }

  health(): ComponentHealth {
    return {
      name: this.name,
      // Informative, like the fleet state: a failing publication follows from the broker connection.
      ok: true,
      published: this.published,
      pending: this.pending.size,
      ...(this.lastError ? { lastError: this.lastError } : {}),
    };
  }

  /** Readings just stored: their devices' states go out at a coming flush. */
  readonly readingsStored = (readings: readonly StoredReading[]): void => {
    for (const r of readings) {
      const of = this.o.sources.lookup(r.siteId, r.deviceId);
      if (!of) continue;
      this.rain.offer(r, of.device);
      this.queueState('device', `${r.siteId}\u0000${r.deviceId}`);
    }
  };

  /** An alert of the site changed: its duty state goes out at the next flush. */
  readonly alertChanged = (siteId: string): void => {
    this.queueState('duties', siteId);
  };

  /** For the engine's listeners: an alert's change puts its site's duty state out at the next flush. */
  readonly alertEvent = (e: AlertEvent): void => {
    if (e.type === 'alert') this.alertChanged(e.alert.siteId);
  };

  /** For the site catalogue's listeners: a retired device is removed, any other change goes out again. */
  readonly siteEvent = (e: SiteChange): void => {
    if (e.what === 'retired' && e.deviceId) this.removeDevice(e.siteId, e.deviceId);
    else this.siteChanged(e.siteId);
  };

  /** A site or one of its devices was added or changed: its configs and states go out again. */
  siteChanged(siteId: string): void {
    const site = this.o.sources.sites().find((s) => s.id === siteId);
    if (!site) return;
    for (const d of site.devices) {
      this.queue(`c:${site.id}\u0000${d.id}`, { kind: 'configs', siteId: site.id, deviceId: d.id });
      this.queueState('device', `${site.id}\u0000${d.id}`);
    }
    this.queue(`c:${site.id}`, { kind: 'configs', siteId: site.id });
    this.queueState('duties', site.id);
  }

  /** A device was retired: its configs and its state are removed from the broker. */
  removeDevice(siteId: string, deviceId: string): void {
    const { gatewayId } = this.o.sources;
    const key = `${siteId}\u0000${deviceId}`;
    this.pending.delete(`c:${key}`);
    this.pending.delete(`d:${key}`);
    for (const topic of deviceConfigTopics(gatewayId, this.o.settings.prefix, siteId, deviceId))
      this.queue(topic, { kind: 'remove', topic });
    const state = deviceStateTopic(gatewayId, siteId, deviceId);
    this.queue(state, { kind: 'remove', topic: state });
    this.lastStateAt.delete(key);
    this.rain.forget(siteId, deviceId);
  }

  /** The state a device's sensors read now. */
  deviceStateOf(site: SiteConfig, device: DeviceConfig): HaDeviceState {
    const { sources, now } = this.o;
    const st = sources.deviceState(site.id, device.id);
    const num = (k: string) => {
      const v = st?.latest[k]?.value;
      return typeof v === 'number' ? v : null;
    };
    const fields = FIELDS_BY_KIND[device.kind];
    const reportsRain = SENSORS.find((s) => s.key === 'rainTodayIn')!.reads(fields);
    const sediment = num('sedimentIn');
    const filled = sediment === null ? undefined : fractionFilled(device, sediment);
    return {
      rainTodayIn: reportsRain
        ? this.rain.inches(site.id, device, site.timezone ?? sources.timezone, now())
        : null,
      levelIn: num('levelIn'),
      sedimentPct: filled === undefined ? null : Math.round(filled * 1000) / 10,
      batteryV: num('batteryV'),
      rssi: num('rssi'),
      lastReadingAt: st?.lastReceivedAt ? new Date(st.lastReceivedAt).toISOString() : null,
    };
  }

  /** Queues `p` under `k`, behind what is already queued (a key queued again goes to the back). */
  private queue(k: string, p: Pending): void {
    this.pending.delete(k);
    this.pending.set(k, p);
  }

  private queueState(kind: 'device' | 'duties', key: string): void {
    const k = `${kind === 'device' ? 'd' : 's'}:${key}`;
    if (!this.pending.has(k)) this.pending.set(k, { kind, key });
  }

  /** Publishes what is due, at most MAX_PER_FLUSH messages; a failure leaves the rest for later. */
  private async flush(): Promise<void> {
    if (this.flushing || this.stopped || this.pending.size === 0) return;
    this.flushing = true;
    const { publisher, now, log, settings, sources } = this.o;
    const gapMs = settings.publishSeconds * 1000;
    const t = now();
    const sites = new Map(sources.sites().map((s) => [s.id, s]));
    let openBySite: Map<string, Set<string>> | undefined;
    const batch: Array<{ k: string; p: Pending; topic: string; payload: string; qos: 0 | 1 }> = [];
    try {
      for (const [k, p] of this.pending) {
        if (batch.length >= MAX_PER_FLUSH) break;
        if (p.kind === 'remove') {
          batch.push({ k, p, topic: p.topic, payload: '', qos: 1 });
          continue;
        }
        if (p.kind === 'configs') {
          const of = p.deviceId === undefined ? undefined : sources.lookup(p.siteId, p.deviceId);
          const site = of?.site ?? sites.get(p.siteId);
          if (!site || (p.deviceId !== undefined && !of)) {
            this.pending.delete(k);
            continue;
          }
          const messages = of
            ? deviceDiscovery(sources.gatewayId, settings.prefix, of.site, of.device)
            : siteDiscovery(sources.gatewayId, settings.prefix, site);
          for (const m of messages)
            batch.push({ k, p, topic: m.topic, payload: JSON.stringify(m.payload), qos: 1 });
          continue;
        }
        if (p.kind === 'device') {
          if (t - (this.lastStateAt.get(p.key) ?? Number.NEGATIVE_INFINITY) < gapMs) continue;
          const [siteId, deviceId] = p.key.split('\u0000') as [string, string];
          const of = sources.lookup(siteId, deviceId);
          if (!of) {
            this.pending.delete(k);
            continue;
          }
          this.lastStateAt.set(p.key, t);
          const state = JSON.stringify(this.deviceStateOf(of.site, of.device));
          batch.push({
            k,
            p,
            topic: deviceStateTopic(sources.gatewayId, siteId, deviceId),
            payload: state,
            qos: 0,
          });
          continue;
        }
        const site = sites.get(p.key);
        if (!site) {
          this.pending.delete(k);
          continue;
        }
        openBySite ??= openRulesBySite(sources.openDuties());
        const state = JSON.stringify(dutiesState(site, openBySite.get(site.id) ?? new Set()));
        batch.push({ k, p, topic: dutiesStateTopic(sources.gatewayId, site.id), payload: state, qos: 1 });
      }
      for (const b of batch) this.pending.delete(b.k);
      const results = await Promise.allSettled(
        batch.map((b) => publisher.publish(b.topic, b.payload, { retain: true, qos: b.qos })),
      );
      let failed: string | undefined;
      results.forEach((r, i) => {
        const b = batch[i]!;
        if (r.status === 'fulfilled') this.published++;
        else {
          failed ??= r.reason instanceof Error ? r.reason.message : String(r.reason);
          // Back in the queue (unless changed again since): it goes out once the broker is back.
          if (!this.pending.has(b.k)) this.pending.set(b.k, b.p);
          if (b.p.kind === 'device') this.lastStateAt.delete(b.p.key);
        }
      });
      if (failed && this.lastError === undefined)
        log.warn({ error: failed }, 'homeassistant: publishing failed; retrying');
      else if (!failed && this.lastError !== undefined) log.info('homeassistant: publishing again');
      this.lastError = failed;
    } finally {
      this.flushing = false;
    }
  }
}

function openRulesBySite(duties: ReadonlyArray<{ siteId: string; rule: string }>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const d of duties) {
    let s = out.get(d.siteId);
    if (!s) {
      s = new Set();
      out.set(d.siteId, s);
    }
    s.add(d.rule);
  }
  return out;
}
