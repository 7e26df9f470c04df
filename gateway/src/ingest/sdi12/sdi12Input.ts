/**
 * The SDI-12 input: one adapter per entry of `sdi12` in the configuration, and on each the devices of
 * the live registry with `transport: sdi12` and `sdi12.port` its path. Each device is measured every
 * `sdi12.pollSeconds` with its profile's command, one measurement at a time on an adapter (a queue); the
 * values, stamped with the gateway's clock, go to the ingest stage as a `Sdi12Measurement` on
 * `sdi12:<siteId>/<deviceId>`. A sensor that does not answer is a gap: counted, told in words on the
 * device's link, and measured again at its next time, never in a loop. `measureAll()` measures every
 * device now (the simulator and the tests step with it).
 */
import type { DeviceInfo, DeviceRegistry } from '../../config/registry.ts';
import type { Config } from '../../config/schema.ts';
import { type Sdi12Measurement, sdi12Topic } from '../../decode/native/sdi12.ts';
import { type ProfileLibrary, resolveProfile } from '../../decode/profiles/library/index.ts';
import type { Counter, Registry } from '../../metrics.ts';
import type { ComponentHealth, IngestSink, Input, Log } from '../../pipeline.ts';
import type { DeviceLinks } from '../deviceLinks.ts';
import { type OpenSdi12Port, openSdi12Port, Sdi12Adapter } from './adapter.ts';
import { measure } from './measure.ts';

export interface Sdi12InputOptions {
  adapters: Config['sdi12'];
  registry: DeviceRegistry;
  /** The ingest stage's links: each device's counts and errors in words. */
  links: DeviceLinks;
  metrics: Registry;
  log: Log;
  /** The gateway's clock: a measurement's time. */
  now: () => number;
  openPort?: OpenSdi12Port;
  /** Times a command is sent before the sensor counts as silent. Default 3. */
  attempts?: number;
  /** How often a missing adapter is tried again. Default 5000 ms. */
  reopenMs?: number;
  /** The profiles devices name (default: the library). */
  profiles?: ProfileLibrary;
}

/** What came of one device's measurement. */
export interface Sdi12Outcome {
  siteId: string;
  deviceId: string;
  outcome: 'stored' | 'duplicate' | 'rejected' | 'quarantined' | 'noAnswer' | 'badResponse' | 'notStored';
  detail?: string;
}

interface Scheduled {
  info: DeviceInfo;
  /** Monotonic ms of its next measurement. */
  due: number;
  running?: Promise<Sdi12Outcome>;
}

const key = (d: DeviceInfo) => `${d.siteId}\u0000${d.deviceId}`;
const TICK_MS = 1000;

export class Sdi12Input implements Input {
  readonly name = 'sdi12';
  private readonly buses: Bus[];
  private sink: IngestSink | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly warnedPorts = new Set<string>();

  constructor(private readonly o: Sdi12InputOptions) {
    const seen = new Set<string>();
    for (const a of o.adapters) {
      if (seen.has(a.path)) throw new Error(`SDI-12 adapter ${a.path} is configured twice`);
      seen.add(a.path);
    }
    const m = o.metrics.counter(
      'gateway_sdi12_measurements_total',
      'SDI-12 measurements by adapter and outcome',
    );
    this.buses = o.adapters.map(
      (a) =>
        new Bus(
          new Sdi12Adapter(a.path, a.baudRate, o.reopenMs ?? 5000, o.log, o.openPort ?? openSdi12Port),
          a.timeoutMs,
          o,
          m,
        ),
    );
  }

  async start(sink: IngestSink): Promise<void> {
    this.sink = sink;
    await Promise.all(this.buses.map((b) => b.adapter.start()));
    this.devicesChanged();
    this.timer = setInterval(() => this.tick(), TICK_MS);
  }

  /** The live registry changed (a device added, edited or retired): each adapter takes its devices again. */
  devicesChanged(): void {
    const byPort = new Map<string, DeviceInfo[]>();
    for (const d of this.o.registry.all()) {
      if (d.device.transport !== 'sdi12' || !d.device.sdi12) continue;
      const port = d.device.sdi12.port;
      if (!this.buses.some((b) => b.adapter.path === port)) {
        if (!this.warnedPorts.has(port))
          this.o.log.warn(
            { siteId: d.siteId, deviceId: d.deviceId, port },
            'SDI-12 device on an adapter not in the configuration (sdi12)',
          );
        this.warnedPorts.add(port);
        continue;
      }
      byPort.set(port, [...(byPort.get(port) ?? []), d]);
    }
    for (const b of this.buses) b.setDevices(byPort.get(b.adapter.path) ?? []);
  }

  private tick(): void {
    if (!this.sink) return;
    for (const b of this.buses) b.measureDue(this.sink);
  }

  /** Measures every device now, each adapter's in turn; resolves once each outcome is stored. */
  async measureAll(): Promise<Sdi12Outcome[]> {
    const sink = this.sink;
    if (!sink) throw new Error('the SDI-12 input is not started');
    const all = await Promise.all(this.buses.map((b) => b.measureEvery(sink)));
    return all.flat();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.sink = undefined;
    await Promise.all(this.buses.map((b) => b.stop()));
  }

  health(): ComponentHealth[] {
    return this.buses.map((b) => b.health());
  }
}

/** One adapter, its devices and its queue. */
class Bus {
  private readonly devices = new Map<string, Scheduled>();
  private queue: Promise<unknown> = Promise.resolve();
  private readonly totals = { measurements: 0, answers: 0, noAnswer: 0, badResponse: 0 };
  private stopping = false;

  constructor(
    readonly adapter: Sdi12Adapter,
    private readonly answerMs: number,
    private readonly o: Sdi12InputOptions,
    private readonly m: Counter,
  ) {}

  setDevices(list: DeviceInfo[]): void {
    const now = performance.now();
    const keep = new Set(list.map(key));
    for (const k of this.devices.keys()) if (!keep.has(k)) this.devices.delete(k);
    for (const info of list) {
      const s = this.devices.get(key(info));
      if (s) s.info = info;
      else this.devices.set(key(info), { info, due: now });
    }
  }

  measureDue(sink: IngestSink): void {
    const now = performance.now();
    for (const s of this.devices.values()) if (!s.running && s.due <= now) void this.enqueue(s, sink);
  }

  measureEvery(sink: IngestSink): Promise<Sdi12Outcome[]> {
    return Promise.all([...this.devices.values()].map((s) => this.enqueue(s, sink)));
  }

  /** The device's measurement, after what is already queued on the adapter (at most one per device). */
  private enqueue(s: Scheduled, sink: IngestSink): Promise<Sdi12Outcome> {
    if (s.running) return s.running;
    const run = this.queue.then(() => this.measureOne(s.info, sink));
    s.running = run.finally(() => {
      s.running = undefined;
      s.due = performance.now() + (s.info.device.sdi12?.pollSeconds ?? 300) * 1000;
    });
    this.queue = s.running.catch((e: unknown) =>
      this.o.log.warn({ port: this.adapter.path, err: String(e) }, 'SDI-12 measurement failed'),
    );
    return s.running;
  }

  private async measureOne(d: DeviceInfo, sink: IngestSink): Promise<Sdi12Outcome> {
    const { siteId, deviceId } = d;
    const address = d.device.sdi12!.address;
    const profile = resolveProfile(d.device.profile, this.o.profiles);
    const command = profile?.transport === 'sdi12' ? profile.command : 'M';
    const links = this.o.links;
    const count = (what: keyof Bus['totals']) => {
      this.totals[what]++;
      links.count(siteId, deviceId, what);
    };
    const where = `the sensor at address ${address} on ${this.adapter.path}`;
    if (this.stopping) return { siteId, deviceId, outcome: 'notStored', detail: 'stopping' };
    count('measurements');
    if (!this.adapter.isOpen) {
      const text = `${where} was not measured: the SDI-12 adapter is not connected (${this.adapter.lastError ?? 'not open'})`;
      return this.gap(d, 'noAnswer', text, count);
    }
    const got = await measure(this.adapter, address, command, {
      answerMs: this.answerMs,
      attempts: this.o.attempts ?? 3,
      badAnswer: (text) => {
        count('badResponse');
        links.error(siteId, deviceId, this.o.now(), `A damaged answer from ${where}: ${text}.`);
        this.m.inc({ port: this.adapter.path, outcome: 'bad_answer' });
      },
    });
    if (!got.ok) {
      const text = got.noAnswer
        ? `${where} did not answer (${got.text}); it is measured again at its next time`
        : `${where} gave no usable measurement (${got.text}); it is measured again at its next time`;
      return this.gap(d, got.noAnswer ? 'noAnswer' : 'badResponse', text, count);
    }
    count('answers');
    const measuredAt = this.o.now();
    const payload: Sdi12Measurement = { measuredAt, address, command, values: got.values };
    try {
      const res = await sink.ingest({
        transport: 'sdi12',
        topic: sdi12Topic(siteId, deviceId),
        payload: JSON.stringify(payload),
        receivedAt: measuredAt,
      });
      this.m.inc({ port: this.adapter.path, outcome: res.status });
      if (res.status === 'ignored') return { siteId, deviceId, outcome: 'notStored' };
      return {
        siteId,
        deviceId,
        outcome: res.status,
        ...(res.status === 'rejected' || res.status === 'quarantined' ? { detail: res.detail } : {}),
      };
    } catch (e) {
      const detail = e instanceof Error ? e.message : String(e);
      this.o.log.warn({ siteId, deviceId, err: detail }, 'SDI-12 measurement not stored');
      links.error(
        siteId,
        deviceId,
        this.o.now(),
        `A measurement of ${where} could not be stored: ${detail}.`,
      );
      this.m.inc({ port: this.adapter.path, outcome: 'not_stored' });
      return { siteId, deviceId, outcome: 'notStored', detail };
    }
  }

  private gap(
    d: DeviceInfo,
    outcome: 'noAnswer' | 'badResponse',
    text: string,
    count: (what: 'noAnswer') => void,
  ): Sdi12Outcome {
    if (outcome === 'noAnswer') count('noAnswer');
    const sentence = `${text[0]!.toUpperCase()}${text.slice(1)}.`;
    this.o.links.error(d.siteId, d.deviceId, this.o.now(), sentence);
    this.m.inc({ port: this.adapter.path, outcome: outcome === 'noAnswer' ? 'no_answer' : 'bad_response' });
    this.o.log.info({ siteId: d.siteId, deviceId: d.deviceId, port: this.adapter.path }, sentence);
    return { siteId: d.siteId, deviceId: d.deviceId, outcome, detail: sentence };
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.adapter.stop();
    await this.queue.catch((e: unknown) =>
      this.o.log.debug({ port: this.adapter.path, err: String(e) }, 'SDI-12 queue ended with an error'),
    );
  }

  health(): ComponentHealth {
    const open = this.adapter.isOpen;
    return {
      name: `sdi12:${this.adapter.path}`,
      ok: open,
      detail: this.stopping ? 'stopped' : open ? 'open' : 'unavailable; retrying',
      devices: this.devices.size,
      ...this.totals,
      reopens: this.adapter.reopens,
      lastError: this.adapter.lastError ?? null,
    };
  }
}
