/**
 * The gateway as its own process, the one helper that spawns it: gateway/src/cli.ts under tsx (one
 * process, so a SIGKILL hits the gateway itself) or the bundle `npm start` runs. `startGatewayChild` runs it
 * the way `npm start` does, with the same heap limits (--max-semi-space-size=2 --max-old-space-size=128)
 * and MALLOC_ARENA_MAX=1, so its memory and its signals are those of a deployment, on free loopback ports
 * it picks. `spawnGateway` runs it with a configuration the test wrote (its ports fixed, so a restart
 * answers at the same address). `root` picks the checkout (default this one). Either may run the gateway
 * on a driven clock (`DrivenClock`) or with a wall clock the test jumps (`jumpingWallClock`), and
 * `childNow` reads the time a running gateway sees.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigInput } from '../../gateway/src/config/schema.ts';
import { freePort, waitFor } from './env.ts';
import { carryViewerToken, forgetGateway, testViewerToken } from './viewerFetch.ts';

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
  /**
   * Reads need a token: the gateway holds a viewer token the test's reads carry (viewerFetch.ts); false:
   * none (a first start with neither account nor token).
   */
  viewerToken?: boolean;
  /** Wait until /api/health answers at all (default true). */
  waitReady?: boolean;
  env?: Record<string, string>;
  root?: string;
  /** Run the bundle `npm start` runs (dist/gateway.mjs, built by `npm run build`) instead of the sources. */
  bundle?: boolean;
  /** Check every answer against the API's published schemas (default: yes, except for the bundle). */
  validateResponses?: boolean;
  /** Run the gateway on a driven clock (see DrivenClock). */
  clock?: DrivenClock;
}

/**
 * A driven clock for a gateway process: libfaketime (Debian's `faketime`, which a test checks with
 * `haveBinary('faketime')`) preloaded into it. The child's clocks start `offsetMs` from the real time
 * (negative: behind) and run `rate` times as fast (default 1), its wall clock (Date.now) and its monotonic
 * clock (performance.now, process.uptime) alike, so the gateway sees no jump, only time passing. With a
 * rate its timers run fast too: libuv reads CLOCK_MONOTONIC, and libfaketime shortens the waits in
 * epoll_wait, poll and the sleeps by the rate. Under `x10` a setTimeout of 2 s fires after 0.2 s of real
 * time, and Date.now and performance.now have moved 2 s when it does; a setInterval of 1 s ticks 100
 * times in 10 s of real time. So every timeout of the child is shortened, not only the deadline a test is
 * after: an MQTT client's keepalive, the login timeout and HTTP keep-alive as well. Processes the gateway
 * starts get the same setting. The clock starts when the process does and is not changed while it runs;
 * a restart with another offset is how a test moves it further (`childNow` says where it has got to).
 */
export interface DrivenClock {
  /** Added to the real time at the child's start, ms (default 0). */
  offsetMs?: number;
  /** How many seconds pass for the child in one real second (default 1). */
  rate?: number;
}

/**
 * A wall clock a test jumps while the child runs, its monotonic clock left alone (what an operator setting
 * the date, or a board getting its time late, does): libfaketime reading the offset from a file in `dir`,
 * `set('+8d')` or `set('+0')` (libfaketime's offset syntax), seen by the child within a second. It starts
 * at '+0'; `env` goes to the child's environment.
 */
export function jumpingWallClock(dir: string): { env: Record<string, string>; set(offset: string): void } {
  const file = join(dir, 'faketime');
  const set = (offset: string) => writeFileSync(file, `${offset}\n`);
  set('+0');
  return {
    env: {
      LD_PRELOAD: faketimeLibrary(),
      FAKETIME_TIMESTAMP_FILE: file,
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
      FAKETIME_CACHE_DURATION: '1',
    },
    set,
  };
}

/** Where libfaketime's multi-threaded library is (the gateway runs threads), or an error that says so. */
function faketimeLibrary(): string {
  const multiarch = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' }[process.arch as string];
  const dirs = [
    ...(multiarch ? [`/usr/lib/${multiarch}/faketime`] : []),
    '/usr/lib/faketime',
    '/usr/lib64/faketime',
    '/usr/local/lib/faketime',
  ];
  const found = dirs.map((d) => join(d, 'libfaketimeMT.so.1')).find((f) => existsSync(f));
  if (!found) throw new Error(`libfaketimeMT.so.1 not found in ${dirs.join(', ')}: apt-get install faketime`);
  return found;
}

/** The environment that runs a process on `clock`. */
function drivenClockEnv(clock: DrivenClock): Record<string, string> {
  const offset = Math.round(clock.offsetMs ?? 0);
  const rate = clock.rate ?? 1;
  if (!(rate > 0)) throw new Error(`a driven clock's rate must be above 0, not ${rate}`);
  // Seconds with a decimal point: libfaketime reads the setting when the process starts, in the C locale.
  const spec = `${offset < 0 ? '-' : '+'}${(Math.abs(offset) / 1000).toFixed(3)}`;
  return { LD_PRELOAD: faketimeLibrary(), FAKETIME: rate === 1 ? spec : `${spec} x${rate}` };
}

/**
 * The time the gateway at `httpUrl` sees now (ms), from the Date header of its /api/health answer: whole
 * seconds, so up to a second (of its clock) behind. What a test compares with a driven child's times.
 */
export async function childNow(httpUrl: string): Promise<number> {
  const res = await fetch(`${httpUrl}/api/health`);
  await res.arrayBuffer();
  const date = Date.parse(res.headers.get('date') ?? '');
  if (Number.isNaN(date)) throw new Error(`${httpUrl}/api/health answered without a Date header`);
  return date;
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
    ...(opts.viewerToken === false ? {} : { auth: withViewer(config.auth) }),
  };
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(full));
  const run = await runGateway(file, `http://127.0.0.1:${httpPort}`, {
    root,
    bundle: opts.bundle,
    env: { LOG_LEVEL: 'info', ...opts.env },
    clock: opts.clock,
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
      forgetGateway(child.httpUrl);
      await run.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  if (opts.viewerToken !== false) carryViewerToken(child.httpUrl);
  return child;
}

/** The configuration's `auth` with the test viewer's token added. */
function withViewer(auth: unknown): Record<string, unknown> {
  const a = (auth ?? {}) as { tokens?: unknown[] };
  return { ...a, tokens: [...(a.tokens ?? []), testViewerToken] };
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
 * Spawns the gateway with the configuration file `file` (answering at `httpUrl`), on `clock` when
 * given: `limits` adds the deployment's heap limits and MALLOC_ARENA_MAX=1; `ready` waits until
 * /api/health answers at all ('answers'), answers 200 ('ok'), or not at all ('no'), and then, given
 * `mqttPort`, until the embedded broker accepts connections. A gateway that exits first is reported at
 * once; one that does not get ready is killed; either error carries the end of its output.
 */
async function runGateway(
  file: string,
  httpUrl: string,
  o: {
    root: string;
    bundle?: boolean | undefined;
    env: Record<string, string>;
    clock?: DrivenClock | undefined;
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
    env: {
      ...process.env,
      ...(o.limits ? { MALLOC_ARENA_MAX: '1' } : {}),
      ...(o.clock ? drivenClockEnv(o.clock) : {}),
      GATEWAY_CONFIG: file,
      ...o.env,
    },
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
 * `config` for `spawnGateway`: its store in `dir/data`, its API and broker on two free loopback ports
 * picked once, so every restart with it answers at the same addresses (given with it).
 */
export async function onFixedPorts<C extends ConfigInput>(
  config: C,
  dir: string,
): Promise<{
  config: C & { dataDir: string; http: { port: number; host: string }; mqtt: { port: number; host: string } };
  httpUrl: string;
  mqttUrl: string;
}> {
  const httpPort = await freePort();
  const mqttPort = await freePort();
  return {
    config: {
      ...config,
      dataDir: join(dir, 'data'),
      http: { port: httpPort, host: '127.0.0.1' },
      mqtt: { port: mqttPort, host: '127.0.0.1' },
    },
    httpUrl: `http://127.0.0.1:${httpPort}`,
    mqttUrl: `mqtt://127.0.0.1:${mqttPort}`,
  };
}

/**
 * Runs the gateway with `config` as given (its data directory and ports included), written to `file`,
 * with `env` added to the test's environment, on `opts.clock` when given, until /api/health answers 200;
 * the test viewer's token is added, and the test's reads of it carry it (viewerFetch.ts).
 * A restart with the same `config` and `file` is the same gateway again.
 */
export async function spawnGateway(
  config: ConfigInput & { dataDir: string; http: { port: number } },
  file: string,
  env: NodeJS.ProcessEnv = {},
  opts: { clock?: DrivenClock } = {},
): Promise<GatewayProcess> {
  // Reads need a token: the gateway holds the test viewer's, which the test's reads carry.
  writeFileSync(file, JSON.stringify({ ...config, auth: withViewer(config.auth) }));
  carryViewerToken(`http://127.0.0.1:${config.http.port}`);
  const run = await runGateway(file, `http://127.0.0.1:${config.http.port}`, {
    root: ROOT,
    env: { LOG_LEVEL: 'warn', ...(env as Record<string, string>) },
    clock: opts.clock,
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
