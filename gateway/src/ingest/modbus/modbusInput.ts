/**
 * The Modbus RTU input: per configured bus one port and one queue of polls; per device (the live
 * registry's devices with `transport: modbus` on that bus) its unit id, its interval and the requests
 * its profile needs. Due devices join their bus's queue in the order they fell due, one poll each at a
 * time, so a slow or dead unit costs the others at most one timeout per poll of it (its remaining
 * requests are skipped after the first failure). Each answered poll goes to the ingest stage as the
 * poll's JSON, stamped with the gateway's clock when the poll began; failures are counted per device
 * and told in words in the device's link and in health. `pollAll()` polls every device at once (a
 * virtual clock stepped by the simulator or a test).
 */
import type { DeviceRegistry } from '../../config/registry.ts';
import type { Config } from '../../config/schema.ts';
import { type ProfileLibrary, resolveProfile } from '../../decode/profiles/library/index.ts';
import type { ComponentHealth, IngestSink, Input, Log } from '../../pipeline.ts';
import type { DeviceLinks } from '../deviceLinks.ts';
import { ModbusBus, type ReadFailure } from './bus.ts';
import { type Answer, planReads, pollJson, type ReadRequest } from './plan.ts';

export interface ModbusInputOptions {
  buses: Config['modbus'];
  /** The live registry: `refresh()` re-reads it. */
  registry: Pick<DeviceRegistry, 'all'>;
  links: DeviceLinks;
  now: () => number;
  log: Log;
  /** How often the schedule is looked at, in ms of real time (default 250). */
  tickMs?: number;
  /** The profiles devices name (default: the library). */
  profiles?: ProfileLibrary;
}

interface Polled {
  key: string;
  siteId: string;
  deviceId: string;
  bus: string;
  unitId: number;
  pollMs: number;
  requests: ReadRequest[];
  nextDue: number;
  queued: boolean;
  counts: Record<string, number>;
  lastError?: { at: number; text: string };
  lastAnswerAt?: number;
}

const FAILURE_COUNT: Record<ReadFailure, string | undefined> = {
  timeout: 'timeouts',
  crc: 'crcErrors',
  exception: 'exceptions',
  closed: undefined,
  other: 'errors',
};

class BusQueue {
  readonly devices = new Map<string, Polled>();
  private readonly queue: Polled[] = [];
  private running: Promise<void> | undefined;

  constructor(
    readonly bus: ModbusBus,
    private readonly poll: (d: Polled) => Promise<void>,
  ) {}

  enqueue(d: Polled): void {
    if (d.queued) return;
    d.queued = true;
    this.queue.push(d);
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
    });
  }

  private async drain(): Promise<void> {
    for (let d = this.queue.shift(); d; d = this.queue.shift()) {
      try {
        if (this.devices.get(d.key) === d) await this.poll(d);
      } finally {
        d.queued = false;
      }
    }
  }

  /** Resolves once the queue is empty. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }
}

export class ModbusInput implements Input {
  readonly name = 'modbus';
  private readonly queues = new Map<string, BusQueue>();
  private sink: IngestSink | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Devices that name a bus the configuration does not have, or no Modbus profile: told once each. */
  private readonly unplaced = new Map<string, string>();

  constructor(private readonly o: ModbusInputOptions) {
    for (const cfg of o.buses)
      this.queues.set(cfg.path, new BusQueue(new ModbusBus(cfg, o.log), (d) => this.pollDevice(cfg.path, d)));
  }

  async start(sink: IngestSink): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.bus.open()));
    this.sink = sink;
    this.refresh();
    this.timer = setInterval(() => this.tick(), this.o.tickMs ?? 250);
    this.timer.unref();
    this.tick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await Promise.all([...this.queues.values()].map((q) => q.idle()));
    await Promise.all([...this.queues.values()].map((q) => q.bus.close()));
    this.sink = undefined;
  }

  /** Re-reads the registry's Modbus devices: added ones are polled at once, retired ones no more. */
  refresh(): void {
    const now = this.o.now();
    const seen = new Set<string>();
    for (const info of this.o.registry.all()) {
      const d = info.device;
      if (d.transport !== 'modbus') continue;
      const key = `${info.siteId}/${info.deviceId}`;
      const profile = resolveProfile(d.profile, this.o.profiles);
      const problem = !d.modbus
        ? 'it has no Modbus settings (bus and unit id)'
        : profile?.transport !== 'modbus'
          ? 'its profile is not a Modbus profile the gateway knows'
          : !this.queues.has(d.modbus.bus)
            ? `its bus ${d.modbus.bus} is not one of the gateway's Modbus buses`
            : undefined;
      if (problem || !d.modbus || profile?.transport !== 'modbus') {
        if (this.unplaced.get(key) !== problem) {
          this.unplaced.set(key, problem ?? '');
          this.o.links.error(info.siteId, info.deviceId, now, `It is not polled: ${problem}.`);
          this.o.log.warn(
            { siteId: info.siteId, deviceId: info.deviceId, problem },
            'modbus device not polled',
          );
        }
        continue;
      }
      this.unplaced.delete(key);
      seen.add(key);
      const queue = this.queues.get(d.modbus.bus)!;
      const old = this.find(key);
      const next: Polled = {
        key,
        siteId: info.siteId,
        deviceId: info.deviceId,
        bus: d.modbus.bus,
        unitId: d.modbus.unitId,
        pollMs: d.modbus.pollSeconds * 1000,
        requests: planReads(profile),
        nextDue: old?.nextDue ?? now,
        queued: false,
        counts: old?.counts ?? {},
        ...(old?.lastError ? { lastError: old.lastError } : {}),
        ...(old?.lastAnswerAt !== undefined ? { lastAnswerAt: old.lastAnswerAt } : {}),
      };
      if (old && old.bus !== next.bus) this.queues.get(old.bus)?.devices.delete(key);
      queue.devices.set(key, next);
    }
    for (const q of this.queues.values())
      for (const key of [...q.devices.keys()]) if (!seen.has(key)) q.devices.delete(key);
    if (this.sink) this.tick();
  }

  private find(key: string): Polled | undefined {
    for (const q of this.queues.values()) {
      const d = q.devices.get(key);
      if (d) return d;
    }
    return undefined;
  }

  /** Every device that fell due joins its bus's queue, the longest due first. */
  private tick(): void {
    const now = this.o.now();
    for (const q of this.queues.values()) {
      const due = [...q.devices.values()].filter((d) => !d.queued && d.nextDue <= now);
      due.sort((a, b) => a.nextDue - b.nextDue);
      for (const d of due) {
        // The next poll keeps the schedule; one that fell more than an interval behind starts again from now.
        d.nextDue = d.nextDue + d.pollMs > now ? d.nextDue + d.pollMs : now + d.pollMs;
        q.enqueue(d);
      }
    }
  }

  /** Polls every device now, whether due or not; resolves once every poll is done and its reading handed over. */
  async pollAll(): Promise<void> {
    const now = this.o.now();
    for (const q of this.queues.values())
      for (const d of q.devices.values()) {
        d.nextDue = now + d.pollMs;
        q.enqueue(d);
      }
    await Promise.all([...this.queues.values()].map((q) => q.idle()));
  }

  private count(d: Polled, what: string): void {
    d.counts[what] = (d.counts[what] ?? 0) + 1;
    this.o.links.count(d.siteId, d.deviceId, what);
  }

  private async pollDevice(path: string, d: Polled): Promise<void> {
    const queue = this.queues.get(path)!;
    const polledAt = this.o.now();
    this.count(d, 'polls');
    const answers: Answer[] = [];
    for (const r of d.requests) {
      const res = await queue.bus.read(d.unitId, r);
      if (!res.ok) {
        const what = FAILURE_COUNT[res.kind];
        if (what) this.count(d, what);
        const text = `Unit ${d.unitId} on ${path}: ${res.words}.`;
        d.lastError = { at: polledAt, text };
        this.o.links.error(d.siteId, d.deviceId, polledAt, text);
        return;
      }
      answers.push(res.data);
    }
    this.count(d, 'answers');
    d.lastAnswerAt = polledAt;
    const sink = this.sink;
    if (!sink) return;
    const payload = JSON.stringify(pollJson(polledAt, d.unitId, d.requests, answers));
    try {
      await sink.ingest({
        transport: 'modbus',
        topic: `modbus:${d.siteId}/${d.deviceId}`,
        payload,
        receivedAt: polledAt,
      });
    } catch (e) {
      const text = `A reading of unit ${d.unitId} was not stored: ${(e as Error).message}`;
      d.lastError = { at: polledAt, text };
      this.o.links.error(d.siteId, d.deviceId, polledAt, text);
      this.o.log.warn(
        { siteId: d.siteId, deviceId: d.deviceId, err: (e as Error).message },
        'modbus reading not stored',
      );
    }
  }

  health(): ComponentHealth[] {
    return [...this.queues.entries()].map(([path, q]) => ({
      name: `modbus ${path}`,
      ok: q.bus.isOpen,
      detail: q.bus.isOpen ? `polling ${q.devices.size} device(s)` : (q.bus.lastPortError ?? 'opening'),
      reopens: q.bus.reopens,
      devices: [...q.devices.values()].map((d) => ({
        siteId: d.siteId,
        deviceId: d.deviceId,
        unitId: d.unitId,
        counts: { ...d.counts },
        ...(d.lastAnswerAt !== undefined ? { lastAnswerAt: new Date(d.lastAnswerAt).toISOString() } : {}),
        ...(d.lastError ? { lastError: d.lastError.text } : {}),
      })),
    }));
  }
}
