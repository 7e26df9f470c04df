/**
 * Runs a throwaway VictoriaMetrics single-node server on a loopback port in a temp dir. It accepts the
 * InfluxDB 2 write API (/api/v2/write) and line protocol, and exports what it stored via
 * /api/v1/export. Identical samples (same series and timestamp) are deduplicated
 * (-dedup.minScrapeInterval=1ms), matching InfluxDB's overwrite semantics for re-sent points.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './env.ts';
import { serverProcess } from './server.ts';

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
  const server = serverProcess({
    command: 'victoria-metrics',
    args: [
      `-storageDataPath=${join(dir, 'data')}`,
      `-httpListenAddr=127.0.0.1:${port}`,
      '-retentionPeriod=100y',
      '-search.latencyOffset=0s',
      '-dedup.minScrapeInterval=1ms',
      '-loggerLevel=ERROR',
      '-selfScrapeInterval=0',
    ],
    readyUrl: `${url}/health`,
    readyStatus: 200,
    killAfterMs: 10_000,
  });

  await server.launch();

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
    kill: () => server.stop('SIGKILL'),
    shutdown: () => server.stop('SIGINT'),
    async restart() {
      await server.stop('SIGINT');
      await server.launch();
    },
    async stop() {
      await server.stop('SIGINT');
      rmSync(dir, { recursive: true, force: true });
    },
    output: server.output,
  };
}
