/**
 * Runs a throwaway VictoriaMetrics single-node server on a loopback port in a temp dir. It accepts the
 * InfluxDB 2 write API (/api/v2/write) and line protocol, and exports what it stored via
 * /api/v1/export. Identical samples (same series and timestamp) are deduplicated
 * (-dedup.minScrapeInterval=1ms), matching InfluxDB's overwrite semantics for re-sent points.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from './env.ts';

export interface VmSeries {
  metric: Record<string, string>;
  values: number[];
  timestamps: number[];
}

export interface VictoriaServer {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  /** Flushes recently ingested samples so /api/v1/export sees them. */
  forceFlush(): Promise<void>;
  /** /api/v1/export for a series selector, e.g. `{__name__=~"telemetry_.*"}`. */
  exportSeries(match: string): Promise<VmSeries[]>;
  /** SIGKILL: samples VictoriaMetrics had not flushed yet are lost, as in a real crash. */
  kill(): Promise<void>;
  /** SIGINT: a clean shutdown that flushes everything it acknowledged. */
  shutdown(): Promise<void>;
  /** Starts again on the same port and data dir. */
  restart(): Promise<void>;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
  output(): string;
}

export async function startVictoria(): Promise<VictoriaServer> {
  const dir = mkdtempSync(join(tmpdir(), 'victoria-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let proc: ChildProcess | undefined;
  let out = '';
  let exited: Promise<void> = Promise.resolve();

  const launch = async () => {
    const p = spawn(
      'victoria-metrics',
      [
        `-storageDataPath=${join(dir, 'data')}`,
        `-httpListenAddr=127.0.0.1:${port}`,
        '-retentionPeriod=100y',
        '-search.latencyOffset=0s',
        '-dedup.minScrapeInterval=1ms',
        '-loggerLevel=ERROR',
        '-selfScrapeInterval=0',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
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
        if (gone) throw new Error(`victoria-metrics exited: ${out}`);
        const r = await fetch(`${url}/health`);
        return r.status === 200;
      },
      20_000,
      'victoria-metrics /health',
    );
  };

  const stopProc = async (signal: NodeJS.Signals) => {
    const p = proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    p.kill(signal);
    const timer = setTimeout(() => p.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };

  await launch();

  return {
    url,
    port,
    dir,
    async forceFlush() {
      const r = await fetch(`${url}/internal/force_flush`);
      await r.text();
    },
    async exportSeries(match: string) {
      const body = new URLSearchParams({ 'match[]': match, start: '0' });
      const r = await fetch(`${url}/api/v1/export`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: body.toString(),
      });
      const text = await r.text();
      if (!r.ok) throw new Error(`export failed (${r.status}): ${text}`);
      return text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as VmSeries);
    },
    kill: () => stopProc('SIGKILL'),
    shutdown: () => stopProc('SIGINT'),
    async restart() {
      await stopProc('SIGINT');
      await launch();
    },
    async stop() {
      await stopProc('SIGINT');
      rmSync(dir, { recursive: true, force: true });
    },
    output: () => out,
  };
}
