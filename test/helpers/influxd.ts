/**
 * Runs a throwaway InfluxDB 1.x server (the Debian `influxd`, 1.6.7) on loopback ports in a temp dir.
 * kill() + restart() simulate a crash and recovery on the same port and data dir.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './env.ts';
import { serverProcess } from './server.ts';

export interface InfluxdServer {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  /** The database created at start (if any). */
  readonly db: string | undefined;
  /** Runs InfluxQL (POST /query, epoch=ms) and returns the parsed JSON; throws on an error result. */
  query(q: string, db?: string): Promise<InfluxQueryResult>;
  /** The rows of the first series of a SELECT, as objects keyed by column. */
  select(q: string, db?: string): Promise<Array<Record<string, unknown>>>;
  /** SIGKILL, like a crash; resolves when the process is gone. */
  kill(): Promise<void>;
  /** Starts again on the same port and data dir (after kill()). */
  restart(): Promise<void>;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
  /** The server's recent output, for failure messages. */
  output(): string;
}

export interface InfluxQueryResult {
  results: Array<{
    statement_id: number;
    error?: string;
    series?: Array<{ name: string; columns: string[]; values: unknown[][]; tags?: Record<string, string> }>;
  }>;
  error?: string;
}

export interface StartInfluxdOptions {
  /** Database to create; `null` creates none. Default `gateway`. */
  db?: string | null;
}

export async function startInfluxd(opts: StartInfluxdOptions = {}): Promise<InfluxdServer> {
  const dir = mkdtempSync(join(tmpdir(), 'influxd-'));
  const port = await freePort();
  let rpcPort = await freePort();
  while (rpcPort === port) rpcPort = await freePort();
  const cfg = join(dir, 'influxdb.conf');
  writeFileSync(
    cfg,
    `reporting-enabled = false
bind-address = "127.0.0.1:${rpcPort}"

[meta]
  dir = "${join(dir, 'meta')}"
  logging-enabled = false

[data]
  dir = "${join(dir, 'data')}"
  wal-dir = "${join(dir, 'wal')}"
  wal-fsync-delay = "0s"
  query-log-enabled = false

[monitor]
  store-enabled = false

[continuous_queries]
  enabled = false
  log-enabled = false

[http]
  enabled = true
  bind-address = "127.0.0.1:${port}"
  log-enabled = false
  pprof-enabled = false

[logging]
  level = "error"
  suppress-logo = true
`,
  );
  const url = `http://127.0.0.1:${port}`;
  const server = serverProcess({
    command: 'influxd',
    args: ['-config', cfg],
    readyUrl: `${url}/ping`,
    readyStatus: 204,
    killAfterMs: 5000,
  });

  const query = async (q: string, db?: string): Promise<InfluxQueryResult> => {
    const params = new URLSearchParams({ q, epoch: 'ms' });
    if (db) params.set('db', db);
    const r = await fetch(`${url}/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: params.toString(),
    });
    const json = (await r.json()) as InfluxQueryResult;
    const err = json.error ?? json.results?.find((x) => x.error)?.error;
    if (!r.ok || err) throw new Error(`influx query failed (${r.status}): ${err ?? JSON.stringify(json)}`);
    return json;
  };

  await server.launch();
  const db = opts.db === undefined ? 'gateway' : (opts.db ?? undefined);
  if (db) await query(`CREATE DATABASE "${db}"`);

  return {
    url,
    port,
    dir,
    db,
    query,
    async select(q: string, database?: string) {
      const res = await query(q, database ?? db);
      const s = res.results[0]?.series?.[0];
      if (!s) return [];
      return s.values.map((row) => Object.fromEntries(s.columns.map((c, i) => [c, row[i]])));
    },
    kill: () => server.stop('SIGKILL'),
    async restart() {
      await server.stop('SIGKILL');
      await server.launch();
    },
    async stop() {
      await server.stop('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
    output: server.output,
  };
}
