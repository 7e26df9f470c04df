/**
 * The gateway as its own process, the one helper that spawns it: gateway/src/cli.ts under tsx (one
 * process, so a SIGKILL hits the gateway itself) or the bundle `npm start` runs. `startGatewayChild` runs it
 * the way `npm start` does, with the same heap limits (--max-semi-space-size=2 --max-old-space-size=128)
 * and MALLOC_ARENA_MAX=1, so its memory and its signals are those of a deployment, on free loopback ports
 * it picks. `spawnGateway` runs it with a configuration the test wrote (its ports fixed, so a restart
 * answers at the same address). `root` picks the checkout (default this one).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigInput } from '../../gateway/src/config/schema.ts';
import { freePort, waitFor } from './env.ts';

const ROOT = join(import.meta.dirname, '../..');

export interface GatewayChild {
  proc: ChildProcess;
  pid: number;
  httpUrl: string;
  httpPort: number;
  mqttPort: number;
  mqttUrl: string;
  dataDir: string;
  output(): string;
  /** Resident memory now, MB (from /proc). */
  rssMb(): number;
  alive(): boolean;
  exited: Promise<number | null>;
  /** Sends `signal` (default SIGTERM), waits for the exit (SIGKILL after 20 s); the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** stop() and removes the temp files (not a data directory that was given). */
  cleanup(): Promise<void>;
}

export interface ChildOptions {
  dataDir?: string;
  /** Wait until /api/health answers at all (default true). */
  waitReady?: boolean;
  env?: Record<string, string>;
  root?: string;
  /** Run the bundle `npm start` runs (dist/gateway.mjs, built by `npm run build`) instead of the sources. */
  bundle?: boolean;
  /** Check every answer against the API's published schemas (default: yes, except for the bundle). */
  validateResponses?: boolean;
}

/** Starts the gateway with `config` (dataDir and free loopback ports are filled in). */
export async function startGatewayChild(
  config: Record<string, unknown>,
  opts: ChildOptions = {},
): Promise<GatewayChild> {
  const root = opts.root ?? ROOT;
  const dir = mkdtempSync(join(tmpdir(), 'gw-child-'));
  const dataDir = opts.dataDir ?? join(dir, 'data');
  const httpPort = await freePort();
  const mqttPort = await freePort();
  const full = {
    ...config,
    dataDir,
    http: {
      host: '127.0.0.1',
      validateResponses: opts.validateResponses ?? !opts.bundle,
      ...((config.http as object) ?? {}),
      port: httpPort,
    },
    mqtt: { host: '127.0.0.1', ...((config.mqtt as object) ?? {}), port: mqttPort },
  };
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(full));
  const run = await runGateway(file, `http://127.0.0.1:${httpPort}`, {
    root,
    bundle: opts.bundle,
    env: { LOG_LEVEL: 'info', ...opts.env },
    limits: true,
    ready: opts.waitReady === false ? 'no' : 'answers',
    readyTimeoutMs: 60_000,
    // The API answers before the inputs start (main.ts starts them last): a test that logs a device in
    // next needs the broker listening too.
    mqttPort: embeddedPlain(full.mqtt) ? mqttPort : undefined,
  });
  const child: GatewayChild = {
    ...run,
    httpPort,
    mqttPort,
    mqttUrl: `mqtt://127.0.0.1:${mqttPort}`,
    dataDir,
    cleanup: async () => {
      await run.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return child;
}

/** Whether `mqtt` runs the embedded broker with its plain listener (no shared broker, plaintext not off). */
function embeddedPlain(mqtt: Record<string, unknown>): boolean {
  const shared = mqtt.url !== undefined || (Array.isArray(mqtt.urls) && mqtt.urls.length > 0);
  return !shared && mqtt.plaintext !== false;
}

/** The process part of a GatewayChild. */
type Running = Pick<
  GatewayChild,
  'proc' | 'pid' | 'httpUrl' | 'output' | 'rssMb' | 'alive' | 'exited' | 'stop'
>;

/**
 * Spawns the gateway with the configuration file `file` (answering at `httpUrl`): `limits` adds the
 * deployment's heap limits and MALLOC_ARENA_MAX=1; `ready` waits until /api/health answers at all
 * ('answers'), answers 200 ('ok'), or not at all ('no'), and then, given `mqttPort`, until the embedded
 * broker accepts connections. A gateway that exits first is reported at once; one that does not get
 * ready is killed; either error carries the end of its output.
 */
async function runGateway(
  file: string,
  httpUrl: string,
  o: {
    root: string;
    bundle?: boolean | undefined;
    env: Record<string, string>;
    limits: boolean;
    ready: 'answers' | 'ok' | 'no';
    readyTimeoutMs: number;
    /** When set, ready also waits until the embedded broker accepts connections on this port. */
    mqttPort?: number | undefined;
  },
): Promise<Running> {
  const entry = o.bundle
    ? ['--enable-source-maps', join(o.root, 'dist/gateway.mjs')]
    : ['--import', 'tsx', join(o.root, 'gateway/src/cli.ts')];
  const limits = o.limits ? ['--max-semi-space-size=2', '--max-old-space-size=128'] : [];
  const proc = spawn(process.execPath, [...limits, ...entry], {
    cwd: o.root,
    env: { ...process.env, ...(o.limits ? { MALLOC_ARENA_MAX: '1' } : {}), GATEWAY_CONFIG: file, ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const take = (d: Buffer) => {
    out += d;
    if (out.length > 4_000_000) out = out.slice(-2_000_000);
  };
  proc.stdout!.on('data', take);
  proc.stderr!.on('data', take);
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const alive = () => proc.exitCode === null && proc.signalCode === null;
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (alive()) proc.kill(signal);
    const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  const running: Running = {
    proc,
    pid: proc.pid!,
    httpUrl,
    output: () => out,
    rssMb: () => {
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'));
        return m ? Math.round(Number(m[1]) / 102.4) / 10 : 0;
      } catch {
        return 0;
      }
    },
    alive,
    exited,
    stop,
  };
  if (o.ready !== 'no')
    await untilExit(
      running,
      waitFor(
        async () => {
          const res = await fetch(`${httpUrl}/api/health`);
          return o.ready === 'answers' || res.ok;
        },
        o.readyTimeoutMs,
        'the gateway process to answer',
      ).then(() =>
        o.mqttPort ? waitFor(() => accepts(o.mqttPort!), o.readyTimeoutMs, 'its MQTT port') : true,
      ),
    ).catch((e: Error) => {
      proc.kill('SIGKILL');
      throw new Error(`${e.message}\n${out.slice(-3000)}`);
    });
  return running;
}

/** `wait`, or an error at once when the process exits first (a start that failed is not waited out). */
async function untilExit<T>(running: Running, wait: Promise<T>): Promise<T> {
  let exited = false;
  return Promise.race([
    wait.finally(() => {
      exited = true;
    }),
    running.exited.then((code) => {
      if (exited) return undefined as T;
      throw new Error(`the gateway exited (code ${code}) before it was ready`);
    }),
  ]);
}

/** Whether a TCP connection to the loopback `port` is accepted (it is closed at once). */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

export interface GatewayProcess {
  child: ChildProcess;
  output: () => string;
  /** Sends `signal` and waits for the exit. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Runs the gateway with `config` as given (its data directory and ports included), written to `file`,
 * with `env` added to the test's environment, until /api/health answers 200. A restart with the same
 * `config` and `file` is the same gateway again.
 */
export async function spawnGateway(
  config: ConfigInput & { dataDir: string; http: { port: number } },
  file: string,
  env: NodeJS.ProcessEnv = {},
): Promise<GatewayProcess> {
  writeFileSync(file, JSON.stringify(config));
  const run = await runGateway(file, `http://127.0.0.1:${config.http.port}`, {
    root: ROOT,
    env: { LOG_LEVEL: 'warn', ...(env as Record<string, string>) },
    limits: false,
    ready: 'ok',
    readyTimeoutMs: 60_000,
  });
  return {
    child: run.proc,
    output: run.output,
    kill: async (signal) => {
      await run.stop(signal);
    },
  };
}
