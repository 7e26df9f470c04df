/**
 * A throwaway server process for a test (influxd, victoria-metrics): started, waited for through an HTTP
 * health check, stopped with a signal (SIGKILL if it lingers), and started again on the same arguments.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { waitFor } from './env.ts';

export interface ServerSpec {
  command: string;
  args: string[];
  /** A URL that answers `readyStatus` once the server serves. */
  readyUrl: string;
  readyStatus: number;
  /** How long after the stop signal before SIGKILL. */
  killAfterMs: number;
}

export interface ServerProcess {
  /** Starts the process and resolves once it is ready; rejects with its output if it exits first. */
  launch(): Promise<void>;
  /** Sends the signal (SIGKILL after `killAfterMs`) and resolves once the process is gone. */
  stop(signal: NodeJS.Signals): Promise<void>;
  /** The last 8,000 characters it wrote, for failure messages. */
  output(): string;
}

export function serverProcess(spec: ServerSpec): ServerProcess {
  let proc: ChildProcess | undefined;
  let out = '';
  let exited: Promise<void> = Promise.resolve();
  return {
    async launch() {
      const p = spawn(spec.command, spec.args, { stdio: ['ignore', 'pipe', 'pipe'] });
      proc = p;
      const keep = (b: Buffer) => {
        out = (out + b.toString()).slice(-8000);
      };
      p.stdout?.on('data', keep);
      p.stderr?.on('data', keep);
      let gone = false;
      exited = new Promise((resolve) => {
        p.once('exit', () => {
          gone = true;
          resolve();
        });
      });
      await waitFor(
        async () => {
          if (gone) throw new Error(`${spec.command} exited: ${out}`);
          const r = await fetch(spec.readyUrl);
          return r.status === spec.readyStatus;
        },
        20_000,
        `${spec.command} ${new URL(spec.readyUrl).pathname}`,
      );
    },
    async stop(signal) {
      const p = proc;
      if (!p || p.exitCode !== null || p.signalCode !== null) return;
      p.kill(signal);
      const timer = setTimeout(() => p.kill('SIGKILL'), spec.killAfterMs);
      await exited;
      clearTimeout(timer);
    },
    output: () => out,
  };
}
