/**
 * The gateway as its own process, the way `npm start` runs it: gateway/src/cli.ts under tsx (or the bundle) with the same
 * heap limits (--max-semi-space-size=2 --max-old-space-size=128) and MALLOC_ARENA_MAX=1, so its memory
 * and its signals are those of a deployment. `root` picks the checkout (default this one).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  const entry = opts.bundle
    ? ['--enable-source-maps', join(root, 'dist/gateway.mjs')]
    : ['--import', 'tsx', join(root, 'gateway/src/cli.ts')];
  const proc = spawn(process.execPath, ['--max-semi-space-size=2', '--max-old-space-size=128', ...entry], {
    cwd: root,
    env: { ...process.env, MALLOC_ARENA_MAX: '1', GATEWAY_CONFIG: file, LOG_LEVEL: 'info', ...opts.env },
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
  const child: GatewayChild = {
    proc,
    pid: proc.pid!,
    httpUrl: `http://127.0.0.1:${httpPort}`,
    httpPort,
    mqttPort,
    mqttUrl: `mqtt://127.0.0.1:${mqttPort}`,
    dataDir,
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
    cleanup: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  if (opts.waitReady !== false)
    await waitFor(
      async () => {
        if (!alive()) throw new Error(`gateway exited: ${out.slice(-3000)}`);
        await fetch(`${child.httpUrl}/api/health`);
        return true;
      },
      60_000,
      'the gateway process to answer',
    ).catch((e: Error) => {
      proc.kill('SIGKILL');
      throw new Error(`${e.message}\n${out.slice(-3000)}`);
    });
  return child;
}
