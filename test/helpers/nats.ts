/**
 * A real 3-node NATS cluster (Debian's nats-server 2.9) for a test: JetStream and the MQTT listener on
 * every node, routes between them, all on free loopback ports, each node with its own temp store.
 * `start()` resolves once every node has its two routes, the JetStream meta group has a leader, and an
 * MQTT client is accepted on every node (which also creates the MQTT streams). A node can be killed and
 * started again on the same ports and store; `stop()` ends every node and removes the temp dirs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { freePort, IN_CI, waitFor, which } from './env.ts';

const CANDIDATES = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];

export function natsServerProgram(): string | undefined {
  return which('nats-server') ?? CANDIDATES.find((p) => existsSync(p));
}

/** Whether the NATS suites may run; with CI=true a missing nats-server is a failure. */
export function haveNatsServer(): boolean {
  const found = natsServerProgram() !== undefined;
  if (!found && IN_CI) throw new Error('nats-server is required in CI but is not installed (see .ci/run)');
  return found;
}

interface NodePorts {
  client: number;
  route: number;
  mqtt: number;
  http: number;
}

export interface NatsNode {
  name: string;
  /** mqtt://127.0.0.1:port of its MQTT listener. */
  mqttUrl: string;
  ports: NodePorts;
  alive(): boolean;
}

export interface NatsCluster {
  nodes: NatsNode[];
  /** Every node's MQTT URL, node 1 first. */
  mqttUrls: string[];
  /** Kills node `i` (0-based) with `signal` (default SIGKILL) and waits for it to be gone. */
  kill(i: number, signal?: NodeJS.Signals): Promise<void>;
  /**
   * Starts node `i` again on its ports and store and waits until it rejoined the cluster. Its ports were
   * free while it was down: another test running meanwhile may have taken them.
   */
  restart(i: number): Promise<void>;
  /** The last output of node `i`, for failure messages. */
  log(i: number): string;
  /** Stops every node and removes the temp dirs. */
  stop(): Promise<void>;
}

const exited = (p: ChildProcess) =>
  p.exitCode !== null || p.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((r) => p.once('exit', () => r()));

/** One probe of a node answers within `ms` or counts as a "not yet": a probe never waits for ever. */
function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

async function json(url: string): Promise<Record<string, unknown>> {
  const r = await fetch(url, { signal: AbortSignal.timeout(3000) });
  return (await r.json()) as Record<string, unknown>;
}

/**
 * An MQTT 3.1.1 client (clean session) is accepted by the node: its MQTT side and JetStream serve. The
 * third argument of `connectAsync` (no retries) turns a socket closed before CONNACK, as on the connect
 * timeout, into a rejection; with retries on and reconnecting off, that promise would never settle.
 */
async function mqttAccepts(url: string): Promise<boolean> {
  const c = await within(
    5000,
    `MQTT connect to ${url}`,
    mqtt.connectAsync(
      url,
      {
        protocolVersion: 4,
        clientId: `probe-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
        reconnectPeriod: 0,
        connectTimeout: 3000,
      },
      false,
    ),
  );
  await within(3000, `MQTT disconnect from ${url}`, c.endAsync()).catch(() => c.end(true));
  return true;
}

/** How long a node may take to serve; below the 90 s the cluster suites give their set-up hook. */
const READY_MS = 70_000;

export async function startNatsCluster(opts: { size?: number } = {}): Promise<NatsCluster> {
  const bin = natsServerProgram();
  if (!bin) throw new Error('nats-server is not installed');
  const size = opts.size ?? 3;
  const dir = mkdtempSync(join(tmpdir(), 'nats-cluster-'));
  // Distinct ports: the kernel may hand a port closed a moment ago out again, and two nodes on one port
  // (or a route listed twice) would not form a cluster.
  const taken = new Set<number>();
  const distinct = async () => {
    for (;;) {
      const p = await freePort();
      if (!taken.has(p)) {
        taken.add(p);
        return p;
      }
    }
  };
  const ports: NodePorts[] = [];
  for (let i = 0; i < size; i++)
    ports.push({
      client: await distinct(),
      route: await distinct(),
      mqtt: await distinct(),
      http: await distinct(),
    });
  const routes = ports.map((p) => `nats-route://127.0.0.1:${p.route}`).join(', ');
  const confs = ports.map((p, i) => {
    const file = join(dir, `n${i + 1}.conf`);
    writeFileSync(
      file,
      [
        `server_name: n${i + 1}`,
        `listen: 127.0.0.1:${p.client}`,
        `http: 127.0.0.1:${p.http}`,
        `jetstream { store_dir: "${join(dir, `js${i + 1}`)}", max_mem: 64MB, max_file: 1GB }`,
        `cluster { name: c1, listen: 127.0.0.1:${p.route}, routes: [${routes}] }`,
        `mqtt { listen: 127.0.0.1:${p.mqtt} }`,
        '',
      ].join('\n'),
    );
    return file;
  });
  const procs: Array<ChildProcess | undefined> = new Array(size).fill(undefined);
  const logs: string[] = new Array(size).fill('');
  const isAlive = (i: number) => {
    const p = procs[i];
    return p !== undefined && p.exitCode === null && p.signalCode === null;
  };
  const launch = (i: number) => {
    const p = spawn(bin, ['-c', confs[i]!], { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (b: Buffer) => {
      logs[i] = (logs[i] + b.toString()).slice(-8000);
    };
    p.stdout?.on('data', keep);
    p.stderr?.on('data', keep);
    procs[i] = p;
  };
  /** Node i serves: routes to every other live node, a meta leader, MQTT accepted. */
  const ready = (i: number) =>
    waitFor(
      async () => {
        if (!isAlive(i)) throw new Error(`nats-server n${i + 1} exited: ${logs[i]}`);
        const p = ports[i]!;
        const others = procs.filter((_, j) => j !== i && isAlive(j)).length;
        const routez = await json(`http://127.0.0.1:${p.http}/routez`);
        if (Number(routez.num_routes) < others) return false;
        const jsz = await json(`http://127.0.0.1:${p.http}/jsz`);
        const meta = jsz.meta_cluster as { leader?: string } | undefined;
        if (!meta?.leader) return false;
        const health = await fetch(`http://127.0.0.1:${p.http}/healthz`);
        if (health.status !== 200) return false;
        return mqttAccepts(`mqtt://127.0.0.1:${p.mqtt}`);
      },
      READY_MS,
      `nats-server n${i + 1} in the cluster with JetStream and MQTT ready`,
    ).catch((e: unknown) => {
      throw new Error(`${String(e)}\n--- n${i + 1} log ---\n${logs[i]}`);
    });
  const stopAll = async () => {
    await Promise.all(
      procs.map(async (p) => {
        if (!p || p.exitCode !== null || p.signalCode !== null) return;
        p.kill('SIGTERM');
        const t = setTimeout(() => p.kill('SIGKILL'), 5000);
        await exited(p);
        clearTimeout(t);
      }),
    );
  };
  try {
    for (let i = 0; i < size; i++) launch(i);
    // The nodes come up together, so they are waited for together: one budget, not one per node, and
    // it ends before the test's hook does, so a failure names the node and shows its log.
    await Promise.all(procs.map((_, i) => ready(i)));
  } catch (e) {
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const nodes: NatsNode[] = ports.map((p, i) => ({
    name: `n${i + 1}`,
    mqttUrl: `mqtt://127.0.0.1:${p.mqtt}`,
    ports: p,
    alive: () => isAlive(i),
  }));
  return {
    nodes,
    mqttUrls: nodes.map((n) => n.mqttUrl),
    async kill(i, signal = 'SIGKILL') {
      const p = procs[i];
      if (!p || !isAlive(i)) return;
      p.kill(signal);
      await exited(p);
    },
    async restart(i) {
      if (isAlive(i)) throw new Error(`nats-server n${i + 1} is still running`);
      launch(i);
      await ready(i);
    },
    log: (i) => logs[i] ?? '',
    async stop() {
      await stopAll();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
