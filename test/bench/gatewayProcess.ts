/** Runs the real gateway as its own process for a benchmark, with a config written to a temp dir. */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from '../helpers/env.ts';

const ROOT = join(import.meta.dirname, '../..');

export interface BenchGateway {
  http: string;
  mqtt: string;
  pid: number;
  peakRssMb(): number;
  stop(): Promise<void>;
}

export function node(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  // The bundle runs with the memory settings `npm start` uses; sources run through tsx.
  const loader = args[0]?.endsWith('.mjs')
    ? (process.env.BENCH_HEAP ?? '--max-semi-space-size=2 --max-old-space-size=128').split(' ')
    : ['--import', 'tsx'];
  const profile = env.PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', env.PROFILE_DIR] : [];
  return spawn(process.execPath, [...profile, ...loader, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export async function stopChild(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null) return;
  const exited = new Promise((r) => p.once('exit', r));
  p.kill('SIGTERM');
  await exited;
}

export async function startBenchGateway(config: Record<string, unknown>): Promise<BenchGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
  const httpPort = await freePort();
  const mqttPort = await freePort();
  const full = {
    ...config,
    dataDir: join(dir, 'data'),
    http: { port: httpPort, host: '127.0.0.1' },
    mqtt: { port: mqttPort, host: '127.0.0.1', ...((config.mqtt as object) ?? {}) },
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(full));
  // The production entry point: the bundle `npm start` runs (built by `npm run build`).
  const gw = node([process.env.BENCH_BUNDLE ?? join(ROOT, 'dist/gateway.mjs')], {
    GATEWAY_CONFIG: join(dir, 'config.json'),
    LOG_LEVEL: 'error',
    // BENCH_PROFILE_DIR: write a CPU profile of the gateway process there.
    ...(process.env.BENCH_PROFILE_DIR ? { PROFILE_DIR: process.env.BENCH_PROFILE_DIR } : {}),
    ...(process.env.BENCH_GATEWAY_NODE_OPTIONS
      ? { NODE_OPTIONS: process.env.BENCH_GATEWAY_NODE_OPTIONS }
      : {}),
    // As `npm start` runs it: one malloc arena keeps thread-pool allocations from inflating the RSS.
    MALLOC_ARENA_MAX: process.env.BENCH_MALLOC_ARENA_MAX ?? '1',
  });
  if (process.env.BENCH_STDOUT) {
    const { createWriteStream } = await import('node:fs');
    gw.stdout!.pipe(createWriteStream(process.env.BENCH_STDOUT));
    if (process.env.BENCH_STDERR) gw.stderr!.pipe(createWriteStream(process.env.BENCH_STDERR));
  }
  let err = '';
  gw.stderr!.on('data', (d) => {
    err += d;
  });
  await waitFor(
    async () => {
      if (gw.exitCode !== null) throw new Error(`gateway exited: ${err}`);
      return (await fetch(`http://127.0.0.1:${httpPort}/api/health`)).ok;
    },
    60_000,
    'the gateway',
  );
  return {
    http: `http://127.0.0.1:${httpPort}`,
    mqtt: `mqtt://127.0.0.1:${mqttPort}`,
    pid: gw.pid!,
    peakRssMb: () => {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${gw.pid}/status`, 'utf8'));
      return m ? Number(m[1]) / 1024 : Number.NaN;
    },
    stop: async () => {
      await stopChild(gw);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
