import { type ClockSpeed, SimClock } from './clock.ts';
import type { SimDevice } from './devices/base.ts';
import { type RunResult, runDevices } from './runner.ts';
import { type BuiltScenario, buildScenario } from './scenario/build.ts';
import type { LoadedScenario } from './scenario/load.ts';
import { LorawanTransport, type LorawanTransportOptions } from './transports/lorawan.ts';
import { MemoryTransport } from './transports/memory.ts';
import { MqttTransport, type MqttTransportOptions } from './transports/mqtt.ts';
import { SerialTransport } from './transports/serial.ts';
import type { Transport, TransportStats } from './transports/types.ts';
import { resolveStart } from './util/time.ts';

export interface RunScenarioOptions {
  /** Overrides the scenario's start (epoch ms). */
  start?: number;
  seed?: number;
  speed?: ClockSpeed;
  /** MQTT broker for devices whose transport is mqtt. */
  mqtt?: MqttTransportOptions;
  /** Serial port / pty path for devices whose transport is serial (or every device with `allSerial`). */
  serialPath?: string;
  allSerial?: boolean;
  /** One transport for every device (SDI-12 sensors behind a simulated adapter, a Modbus slave's register images). */
  transport?: Transport;
  /** Every device heard through a LoRaWAN network server (ChirpStack or The Things Stack) instead. */
  lorawan?: LorawanTransportOptions;
  /** No network: keep everything in memory (and print it with `print`). */
  dryRun?: boolean;
  print?: (line: string) => void;
  signal?: AbortSignal;
  log?: (msg: string) => void;
  /** Called once the devices are built and connected, before virtual time starts. */
  onReady?: (built: BuiltScenario, clock: SimClock) => void;
}

export interface ScenarioRun {
  built: BuiltScenario;
  clock: SimClock;
  transports: Transport[];
  memory?: MemoryTransport;
  /** Advances the devices to `until` (default: the scenario end). Can be called again to continue. */
  advance(until?: number): Promise<RunResult>;
  stats(): TransportStats;
  close(): Promise<void>;
}

/** Builds a scenario, connects its devices, and returns a handle to drive them. */
export async function startScenario(
  loaded: LoadedScenario,
  o: RunScenarioOptions = {},
): Promise<ScenarioRun> {
  const { scenario, path } = loaded;
  const start = o.start ?? resolveStart(scenario.start);
  const built = buildScenario(scenario, {
    start,
    scenarioPath: path,
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
  });
  const clock = new SimClock(start, o.speed ?? scenario.speed);
  const memory = o.dryRun ? new MemoryTransport(o.print) : undefined;
  const mqttTr = !o.dryRun && !o.transport && o.mqtt ? new MqttTransport(o.mqtt) : undefined;
  const serialTr =
    !o.dryRun && o.serialPath
      ? new SerialTransport({ path: o.serialPath, ...(o.log ? { log: o.log } : {}) })
      : undefined;
  const loraTr = !o.dryRun && o.lorawan ? new LorawanTransport(o.lorawan) : undefined;
  const chosen = new Map<SimDevice, Transport>();
  for (const e of built.entries) {
    const wantsSerial = o.allSerial || e.spec.transport === 'serial';
    const tr = o.transport ?? memory ?? loraTr ?? (wantsSerial ? serialTr : mqttTr);
    if (!tr)
      throw new Error(
        `${e.site.id}/${e.spec.id} needs ${wantsSerial ? 'a serial path (--serial)' : 'an MQTT broker (--mqtt)'}`,
      );
    chosen.set(e.device, tr);
  }
  const transports = [...new Set(chosen.values())];
  for (const tr of transports)
    await tr.open(
      built.entries
        .filter((e) => chosen.get(e.device) === tr)
        .map((e) => ({ device: e.device, username: e.username, password: e.password })),
    );
  o.onReady?.(built, clock);
  const devices = built.entries.map((e) => e.device);
  return {
    built,
    clock,
    transports,
    ...(memory ? { memory } : {}),
    advance: (until = built.end) =>
      runDevices(devices, {
        clock,
        until,
        transportFor: (d) => chosen.get(d)!,
        ...(o.signal ? { signal: o.signal } : {}),
      }),
    stats: () =>
      transports.reduce(
        (s, t) => ({
          sent: s.sent + t.stats.sent,
          acked: s.acked + t.stats.acked,
          errors: s.errors + t.stats.errors,
        }),
        { sent: 0, acked: 0, errors: 0 },
      ),
    close: async () => {
      await Promise.all(transports.map((t) => t.close()));
    },
  };
}

/** Runs a scenario from start to end and disconnects. */
export async function runScenario(
  loaded: LoadedScenario,
  o: RunScenarioOptions = {},
): Promise<{ built: BuiltScenario; result: RunResult; stats: TransportStats; memory?: MemoryTransport }> {
  const run = await startScenario(loaded, o);
  let result: RunResult;
  try {
    result = await run.advance();
  } finally {
    await run.close();
  }
  return { built: run.built, result, stats: run.stats(), ...(run.memory ? { memory: run.memory } : {}) };
}
