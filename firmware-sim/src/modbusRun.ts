/**
 * Scenarios over Modbus RTU with the gateway in this process, its clock the scenarios' virtual clock.
 * A Modbus reading is stamped with the gateway's clock when it is polled, so an accelerated scenario
 * cannot run against an external gateway: here one clock drives both. Each step sets the registers
 * (the devices fire up to the step's time), moves the clock and polls every device at once, then the
 * next step. The bus is a socat pseudo-terminal pair: the gateway polls one end, the simulator's slave
 * answers on the other.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../../gateway/src/config/schema.ts';
import type { DeviceKind } from '../../shared/src/telemetry.ts';
import type { LoadedScenario } from './scenario/load.ts';
import type { ScenarioRun } from './sim.ts';
import { runScenario, startScenario } from './sim.ts';
import { ModbusTransport, type ModbusUnit, readingKeys, simProfile } from './transports/modbus.ts';
import { ModbusSlave } from './transports/modbusSlave.ts';
import { resolveStart } from './util/time.ts';

/** What this needs of the gateway's entry module (gateway/src/main.ts). */
export interface ModbusGateway {
  httpUrl: string;
  setupLink?: string;
  pollModbus(): Promise<void>;
  stop(): Promise<void>;
}
export type StartGateway = (
  config: Config,
  opts: { now: () => number; log?: unknown },
) => Promise<ModbusGateway>;

export interface ModbusScenarios {
  gw: ModbusGateway;
  runs: ScenarioRun[];
  slave: ModbusSlave;
  /** A viewer token the gateway holds, for reading its alerts. */
  token: string;
  /** The first and last instants of the scenarios together. */
  start: number;
  end: number;
  /** Runs the scenarios to their end, a step at a time; `onStep` after each poll. */
  replay(onStep?: (at: number) => void): Promise<void>;
  /** From here on the gateway's clock is the wall clock (the scenarios end at about now). */
  goLive(): void;
  close(): Promise<void>;
}

/** socat's two linked pseudo-terminals; `a` for the gateway, `b` for the slave. */
async function ptyPair(): Promise<{ a: string; b: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'modbus-sim-'));
  const a = join(dir, 'gateway');
  const b = join(dir, 'devices');
  const child: ChildProcess = spawn('socat', [`pty,raw,echo=0,link=${a}`, `pty,raw,echo=0,link=${b}`], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 200 && !(existsSync(a) && existsSync(b)); i++)
    await new Promise((r) => setTimeout(r, 25));
  if (!(existsSync(a) && existsSync(b))) {
    await stop();
    throw new Error('socat did not make its pseudo-terminals (is socat installed?)');
  }
  return { a, b, stop };
}

/** Which readings each device sends (`siteId/deviceId` → telemetry keys): the same runs, dry, first. */
async function readingsSent(
  scenarios: LoadedScenario[],
  starts: number[],
): Promise<Map<string, Set<string>>> {
  const sends = new Map<string, Set<string>>();
  for (const [i, loaded] of scenarios.entries()) {
    const dry = await runScenario(loaded, { start: starts[i]!, dryRun: true, speed: 'step' });
    for (const r of dry.memory!.records)
      if (r.output.type === 'telemetry') {
        const key = `${r.siteId}/${r.deviceId}`;
        const set = sends.get(key) ?? new Set<string>();
        sends.set(key, set);
        for (const k of readingKeys(r.output.payload as Record<string, unknown>)) set.add(k);
      }
  }
  return sends;
}

/**
 * A scenario's devices as Modbus units on a serial port (`path`: a pty's end or an RS-485 adapter) in real
 * time, for a gateway elsewhere that polls them: the readings are stamped by that gateway's clock when it
 * polls, so virtual time runs at the wall clock's pace. Prints the devices' settings for its configuration.
 */
export async function serveModbusScenario(o: {
  loaded: LoadedScenario;
  start: number;
  path: string;
  bus: string;
  signal?: AbortSignal;
  log: (m: string) => void;
}): Promise<void> {
  const sends = await readingsSent([o.loaded], [o.start]);
  const slave = new ModbusSlave({ path: o.path, log: o.log });
  await slave.open();
  const units: ModbusUnit[] = [];
  for (const site of o.loaded.scenario.sites)
    for (const d of site.devices) {
      const readings = sends.get(`${site.id}/${d.id}`);
      if (!readings) continue;
      units.push({
        siteId: site.id,
        deviceId: d.id,
        unitId: units.length + 1,
        profile: simProfile(d.model as DeviceKind, readings),
        ...(d.model === 'rain-gauge' ? { inchesPerTip: d.inchesPerTip } : {}),
      });
    }
  o.log(`the gateway's configuration for these devices (modbus: [{ path: ${o.bus} }] and, per device):`);
  for (const u of units)
    o.log(
      `  ${u.siteId}/${u.deviceId}: ${JSON.stringify({ transport: 'modbus', modbus: { bus: o.bus, unitId: u.unitId, pollSeconds: 60 }, profile: u.profile })}`,
    );
  const transport = new ModbusTransport(slave, units);
  const run = await startScenario(o.loaded, {
    start: o.start,
    speed: 1,
    transport,
    ...(o.signal ? { signal: o.signal } : {}),
  });
  try {
    await run.advance();
  } finally {
    await run.close();
    await slave.close();
  }
}

/**
 * Starts the gateway on `config` with the scenarios' devices moved onto one Modbus bus, polled every
 * `stepMs` of virtual time (default one minute), each poll half a step after the devices' readings.
 */
export async function startModbusScenarios(o: {
  scenarios: LoadedScenario[];
  config: Config;
  startGateway: StartGateway;
  stepMs?: number;
  log?: (m: string) => void;
  gatewayLog?: unknown;
}): Promise<ModbusScenarios> {
  const stepMs = o.stepMs ?? 60_000;
  const now = Date.now();
  const starts = o.scenarios.map((s) => resolveStart(s.scenario.start, now));
  const sends = await readingsSent(o.scenarios, starts);
  const pair = await ptyPair();
  const slave = new ModbusSlave({ path: pair.b, ...(o.log ? { log: o.log } : {}) });
  await slave.open();
  const units: ModbusUnit[] = [];
  const config = structuredClone(o.config);
  for (const site of config.sites)
    for (const d of site.devices) {
      const readings = sends.get(`${site.id}/${d.id}`);
      if (!readings) continue;
      const profile = simProfile(d.kind, readings);
      const unitId = units.length + 1;
      units.push({
        siteId: site.id,
        deviceId: d.id,
        unitId,
        profile,
        ...(d.inchesPerTip !== undefined ? { inchesPerTip: d.inchesPerTip } : {}),
      });
      Object.assign(d, {
        transport: 'modbus',
        profile,
        modbus: { bus: pair.a, unitId, pollSeconds: Math.max(1, Math.round(stepMs / 1000)) },
      });
    }
  // A device without a reading yet does not answer; a short timeout keeps a step short.
  config.modbus = [
    { path: pair.a, baudRate: 9600, parity: 'none', dataBits: 8, stopBits: 1, timeoutMs: 100 },
  ];
  const token = randomBytes(24).toString('base64url');
  config.auth = {
    ...config.auth,
    tokens: [
      ...config.auth.tokens,
      {
        name: 'Modbus scenario check',
        role: 'viewer',
        tokenSha256: createHash('sha256').update(token).digest('hex'),
      },
    ],
  };
  const start = Math.min(...starts);
  let virtual: number | undefined = start;
  const gw = await o.startGateway(config, {
    now: () => virtual ?? Date.now(),
    ...(o.gatewayLog ? { log: o.gatewayLog } : {}),
  });
  const transport = new ModbusTransport(slave, units);
  const runs: ScenarioRun[] = [];
  for (const [i, loaded] of o.scenarios.entries())
    runs.push(await startScenario(loaded, { start: starts[i]!, speed: 'step', transport }));
  const end = Math.max(...runs.map((r) => r.built.end));
  o.log?.(`${units.length} device(s) on the Modbus bus ${pair.a}, units 1-${units.length}`);
  return {
    gw,
    runs,
    slave,
    token,
    start,
    end,
    replay: async (onStep) => {
      for (let t = start + stepMs / 2; t <= end; t += stepMs) {
        for (const r of runs) if (t >= r.built.start) await r.advance(Math.min(t, r.built.end));
        virtual = t;
        await gw.pollModbus();
        onStep?.(t);
      }
    },
    goLive: () => {
      virtual = undefined;
    },
    close: async () => {
      await Promise.allSettled(runs.map((r) => r.close()));
      await gw.stop();
      await slave.close();
      await pair.stop();
    },
  };
}
