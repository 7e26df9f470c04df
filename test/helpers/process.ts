import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConfigInput } from '../../gateway/src/config/schema.ts';
import { waitFor } from './env.ts';

const ROOT = join(import.meta.dirname, '../..');

export interface GatewayProcess {
  child: ChildProcess;
  output: () => string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Runs the real gateway as its own process (node --import tsx, one process, so SIGKILL hits it), with
 * `env` added to the test's environment.
 */
export async function spawnGateway(
  config: ConfigInput & { dataDir: string; http: { port: number } },
  file: string,
  env: NodeJS.ProcessEnv = {},
) {
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'gateway/src/cli.ts')], {
    cwd: ROOT,
    env: { ...process.env, GATEWAY_CONFIG: file, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`gateway exited: ${out}`);
      const res = await fetch(`http://127.0.0.1:${config.http.port}/api/health`);
      return res.ok;
    },
    30_000,
    'gateway process to answer /api/health',
  );
  return {
    child,
    output: () => out,
    kill: async (signal: NodeJS.Signals) => {
      child.kill(signal);
      await exited;
    },
  } satisfies GatewayProcess;
}
