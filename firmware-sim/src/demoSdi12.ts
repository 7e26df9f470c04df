/**
 * The demo over SDI-12: every scenario device is an SDI-12 sensor behind one simulated adapter on a socat
 * pseudo-terminal pair, and the gateway measures them through its SDI-12 input. A measurement is stamped
 * with the gateway's clock, so an accelerated scenario runs the gateway on the scenario's virtual clock
 * and steps: the devices advance to the next instant (their readings set the sensors' values), the clock
 * is moved there, every device is measured, and again, until the scenarios end.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigInput } from '../../gateway/src/config/schema.ts';
import { profileByName } from '../../gateway/src/decode/profiles/library/index.ts';
import { profileSchema, type Sdi12Profile } from '../../gateway/src/decode/profiles/schema.ts';
import type { Sdi12Outcome } from '../../gateway/src/ingest/sdi12/sdi12Input.ts';
import { gatewayConfigFor } from './gatewayConfig.ts';
import type { LoadedScenario } from './scenario/load.ts';
import { type ScenarioRun, startScenario } from './sim.ts';
import { type Sdi12SimDevice, Sdi12Transport } from './transports/sdi12.ts';
import { SimSdi12Sensors } from './transports/sdi12Sensors.ts';

/** What the demo needs of a started gateway. */
export interface Sdi12DemoGateway {
  measureSdi12(): Promise<Sdi12Outcome[]>;
}

/** A level sensor over a sediment trap, written out: the sediment depth, then the pool's level. */
const TRAP_PROFILE: Sdi12Profile = profileSchema.parse({
  name: 'sim-trap-level',
  label: 'Simulated SDI-12 sediment and pool level sensor',
  source: 'firmware-sim/src/demoSdi12.ts (a simulated sensor)',
  kinds: ['sediment-trap'],
  transport: 'sdi12',
  command: 'MC',
  fields: [
    { reading: 'sedimentIn', from: { index: 1 } },
    { reading: 'levelIn', from: { index: 2 } },
  ],
}) as Sdi12Profile;

const ADDRESSES = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The profile each kind of scenario device is measured with over SDI-12. */
function profileFor(kind: string): Sdi12Profile | undefined {
  if (kind === 'rain-gauge') return profileByName('sutron-sdi-tb') as Sdi12Profile;
  if (kind === 'sediment-trap') return TRAP_PROFILE;
  return undefined;
}

/** A socat pty pair: the gateway opens `a`, the simulated adapter `b`. */
async function ptyPair(dir: string): Promise<{ a: string; b: string; stop(): Promise<void> }> {
  const a = join(dir, 'adapter');
  const b = join(dir, 'sensors');
  const child: ChildProcess = spawn('socat', [`pty,raw,echo=0,link=${a}`, `pty,raw,echo=0,link=${b}`], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  for (let i = 0; i < 100 && !(existsSync(a) && existsSync(b)); i++)
    await new Promise((r) => setTimeout(r, 50));
  if (!(existsSync(a) && existsSync(b)))
    throw new Error('socat did not make the pseudo-terminals (is it installed?)');
  return {
    a,
    b,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface Sdi12Demo<G extends Sdi12DemoGateway> {
  gateway: G;
  runs: ScenarioRun[];
  /** The gateway's clock: the scenarios' virtual time while stepping, then the wall clock. */
  now(): number;
  /** Steps from the earliest scenario start to the latest end; each step's outcomes to `onStep`. */
  replay(onStep?: (t: number, outcomes: Sdi12Outcome[]) => void): Promise<number>;
  close(): Promise<void>;
}

/**
 * Starts the gateway (by `start`, with the configuration for the scenarios' sites, their devices on
 * SDI-12, and the clock to use) and the simulated sensors.
 */
export async function startSdi12Demo<G extends Sdi12DemoGateway & { stop(): Promise<void> }>(
  scenarios: readonly LoadedScenario[],
  start: (input: ConfigInput, now: () => number) => Promise<G>,
  opts: { stepMs?: number; log?: (m: string) => void } = {},
): Promise<Sdi12Demo<G>> {
  const dir = mkdtempSync(join(tmpdir(), 'sdi12-demo-'));
  const pair = await ptyPair(dir);
  const specs = new Map<string, Sdi12SimDevice>();
  const input = gatewayConfigFor(
    scenarios.map((s) => s.scenario),
    { hash: () => 'scrypt$00$00' },
  );
  let next = 0;
  for (const site of input.sites ?? [])
    for (const d of site.devices ?? []) {
      delete d.passwordHash;
      const profile = profileFor(d.kind);
      if (!profile) continue;
      const address = ADDRESSES[next++];
      if (!address) throw new Error('more than 62 devices on one SDI-12 adapter');
      Object.assign(d, {
        transport: 'sdi12',
        profile: profile.name === TRAP_PROFILE.name ? TRAP_PROFILE : profile.name,
        sdi12: { port: pair.a, address, pollSeconds: 60 },
      });
      specs.set(`${site.id}/${d.id}`, {
        address,
        profile,
        ...(d.inchesPerTip !== undefined ? { inchesPerTip: d.inchesPerTip } : {}),
      });
    }
  input.sdi12 = [{ path: pair.a, timeoutMs: 500 }];

  const bus = new SimSdi12Sensors({ path: pair.b, ...(opts.log ? { log: opts.log } : {}) });
  await bus.open();
  const runs: ScenarioRun[] = [];
  for (const s of scenarios)
    runs.push(
      await startScenario(s, {
        speed: 'step',
        transport: new Sdi12Transport(bus, (siteId, deviceId) => specs.get(`${siteId}/${deviceId}`)),
      }),
    );
  const first = Math.min(...runs.map((r) => r.built.start));
  const last = Math.max(...runs.map((r) => r.built.end));
  let virtual: number | undefined = first;
  const now = () => virtual ?? Date.now();
  const gateway = await start(input, now);
  const stepMs = opts.stepMs ?? 5 * 60_000;
  return {
    gateway,
    runs,
    now,
    replay: async (onStep) => {
      let steps = 0;
      for (let t = first; t <= last; t += stepMs) {
        for (const r of runs) if (t >= r.built.start) await r.advance(Math.min(t, r.built.end));
        virtual = t;
        const outcomes = await gateway.measureSdi12();
        onStep?.(t, outcomes);
        steps++;
      }
      // From here on the gateway keeps the wall clock and measures on its own schedule.
      virtual = undefined;
      return steps;
    },
    close: async () => {
      await Promise.allSettled(runs.map((r) => r.close()));
      await gateway.stop();
      await bus.close();
      await pair.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
