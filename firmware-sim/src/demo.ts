import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Aedes } from 'aedes';
import { loadConfig, parseConfig } from '../../gateway/src/config/load.ts';
import type { Config } from '../../gateway/src/config/schema.ts';
import type { Sdi12Outcome } from '../../gateway/src/ingest/sdi12/sdi12Input.ts';
import { startSdi12Demo } from './demoSdi12.ts';
import { startModbusScenarios } from './modbusRun.ts';
import { loadScenario } from './scenario/load.ts';
import { type ScenarioRun, startScenario } from './sim.ts';
import { lorawanDevice, SIM_APPLICATION } from './transports/lorawan.ts';
import type { NetworkServerKind } from './transports/lorawanUplink.ts';
import { iso } from './util/time.ts';

/** What the demo needs from the gateway's entry module (gateway/src/main.ts). */
interface GatewayModule {
  startGateway(
    config: Config,
    opts?: { log?: unknown; now?: () => number },
  ): Promise<{
    httpUrl: string;
    mqttUrl: string;
    setupLink?: string;
    measureSdi12(): Promise<Sdi12Outcome[]>;
    pollModbus(): Promise<void>;
    stop(): Promise<void>;
  }>;
}

const DEMO_SCENARIOS = ['storm-0.62in', 'float-alarm', 'sediment-fill'];
/** A day of virtual time in 10 s: the storm crosses 0.5 in about 6 s in, the longest scenario ends in 15 s. */
const DEMO_SPEED = 8640;
const GATEWAY_YAML = fileURLToPath(new URL('../scenarios/gateway.yaml', import.meta.url));

/** `--transport <name>`: how the simulated devices reach the gateway (MQTT by default). */
const transportFlag = (argv: readonly string[]): string | undefined => {
  const i = argv.indexOf('--transport');
  return i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--transport='))?.slice('--transport='.length);
};

/** The scenarios a transport that stamps readings with the gateway's clock steps through. */
const STEPPED_SCENARIOS = ['storm-0.62in', 'sediment-fill'];

/** `--transport lorawan|chirpstack|things-stack`: every scenario's devices heard through a network server. */
function lorawanKind(t: string | undefined): NetworkServerKind | undefined {
  if (t === undefined || t === 'mqtt') return undefined;
  if (t === 'lorawan' || t === 'chirpstack') return 'chirpstack';
  if (t === 'things-stack') return 'things-stack';
  throw new Error(`--transport must be mqtt, lorawan, chirpstack, things-stack, modbus or sdi12, got "${t}"`);
}

/** A stand-in for the network server's MQTT broker: an aedes on a free loopback port. */
async function networkServerBroker(): Promise<{ url: string; close(): Promise<void> }> {
  const broker = await Aedes.createBroker();
  const server: Server = createServer(broker.handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `mqtt://127.0.0.1:${port}`,
    close: async () => {
      await new Promise<void>((r) => server.close(() => r()));
      await new Promise<void>((r) => broker.close(() => r()));
    },
  };
}

/**
 * The scenarios' devices (`<siteId>/<deviceId>`) as LoRaWAN devices, each with its library profile, and the
 * network server the gateway subscribes to. The configuration's other devices stay as they are.
 */
function withLorawan(config: Config, server: NetworkServerKind, url: string, devices: Set<string>): Config {
  const sites = config.sites.map((site) => ({
    ...site,
    devices: site.devices.map((d) => {
      if (!devices.has(`${site.id}/${d.id}`)) return d;
      const { passwordHash: _p, username: _u, ...rest } = d;
      return { ...rest, transport: 'lorawan' as const, ...lorawanDevice(site.id, d.id, d.kind) };
    }),
  }));
  const settings = { url, applications: [SIM_APPLICATION[server]], qos: 1 as const };
  return {
    ...config,
    sites,
    integrations: server === 'chirpstack' ? { chirpstack: settings } : { thingsStack: settings },
  };
}

async function main(): Promise<void> {
  const log = (m: string) => console.log(`[demo] ${m}`);
  // Imported by path at run time so this file compiles whether or not the gateway entry exists yet.
  const mainPath = '../../gateway/src/main.ts';
  const gatewayModule = (await import(mainPath)) as GatewayModule;
  const transport = transportFlag(process.argv.slice(2));
  if (transport === 'sdi12') return sdi12Demo(gatewayModule, log);
  if (transport === 'modbus') {
    const config = loadConfig(process.env.GATEWAY_CONFIG ?? GATEWAY_YAML);
    if (!process.env.GATEWAY_DATA_DIR) config.dataDir = mkdtempSync(join(tmpdir(), 'gateway-demo-'));
    log(`gateway data in ${config.dataDir}`);
    return modbusDemo(gatewayModule, config, log);
  }
  const server = lorawanKind(transport);
  const ns = server ? await networkServerBroker() : undefined;
  const demoDevices = new Set(
    DEMO_SCENARIOS.flatMap((n) =>
      loadScenario(n).scenario.sites.flatMap((s) => s.devices.map((d) => `${s.id}/${d.id}`)),
    ),
  );
  const loaded = loadConfig(process.env.GATEWAY_CONFIG ?? GATEWAY_YAML);
  const config = server && ns ? withLorawan(loaded, server, ns.url, demoDevices) : loaded;
  if (ns) log(`${server} network server's broker (embedded) at ${ns.url}`);
  if (!process.env.GATEWAY_DATA_DIR) config.dataDir = mkdtempSync(join(tmpdir(), 'gateway-demo-'));
  log(`gateway data in ${config.dataDir}`);
  const gw = await gatewayModule.startGateway(config);
  log(`gateway up: dashboard ${gw.httpUrl}/  broker ${gw.mqttUrl}`);
  if (gw.setupLink) log(`no account yet: create the first administrator at ${gw.setupLink}`);

  const ac = new AbortController();
  let stopping = false;
  const runs: ScenarioRun[] = [];
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    ac.abort(new Error('stopping'));
    log('stopping');
    await Promise.allSettled(runs.map((r) => r.close()));
    await gw.stop();
    await ns?.close();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);

  for (const name of DEMO_SCENARIOS) {
    const run = await startScenario(loadScenario(name), {
      speed: DEMO_SPEED,
      mqtt: { url: gw.mqttUrl, log: (m) => console.error(`[${name}] ${m}`) },
      ...(server && ns
        ? { lorawan: { server, url: ns.url, log: (m: string) => console.error(`[${name}] ${m}`) } }
        : {}),
      signal: ac.signal,
    });
    runs.push(run);
    const e = run.built.scenario.expect.alerts.map((x) => `${x.rule}@${x.siteId}`).join(', ');
    log(
      `${name}: ${iso(run.built.start)} .. ${iso(run.built.end)} at ${DEMO_SPEED}x; expect ${e || 'no alerts'}`,
    );
  }
  await Promise.all(
    runs.map(async (run) => {
      const r = await run.advance();
      log(
        `${run.built.scenario.name}: replayed ${r.messages} messages; now a live feed (real time, 1-minute heartbeats)`,
      );
      const now = run.clock.now();
      run.clock.setSpeed(1);
      for (const e of run.built.entries) e.device.setHeartbeat(60_000, now);
      await run.advance(Number.POSITIVE_INFINITY);
    }),
  ).catch((err: Error) => {
    if (!stopping) throw err;
  });
}

/** The devices as SDI-12 sensors behind an adapter on a pty pair; the gateway on the scenarios' clock. */
async function sdi12Demo(gatewayModule: GatewayModule, log: (m: string) => void): Promise<void> {
  const dataDir = process.env.GATEWAY_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'gateway-demo-'));
  log(`gateway data in ${dataDir}`);
  const scenarios = STEPPED_SCENARIOS.map((name) => loadScenario(name));
  const demo = await startSdi12Demo(
    scenarios,
    (input, now) => gatewayModule.startGateway(parseConfig({ ...input, dataDir }, process.env), { now }),
    { log: (m) => console.error(`[sdi12] ${m}`) },
  );
  const gw = demo.gateway;
  log(`gateway up: dashboard ${gw.httpUrl}/`);
  if (gw.setupLink) log(`no account yet: create the first administrator at ${gw.setupLink}`);
  const shutdown = async () => {
    log('stopping');
    await demo.close();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  const counts: Record<string, number> = {};
  const steps = await demo.replay((_t, outcomes) => {
    for (const o of outcomes) counts[o.outcome] = (counts[o.outcome] ?? 0) + 1;
  });
  log(`stepped ${steps} times, measuring every SDI-12 device each time: ${JSON.stringify(counts)}`);
  for (const run of demo.runs) {
    const e = run.built.scenario.expect.alerts.map((x) => `${x.rule}@${x.siteId}`).join(', ');
    log(`${run.built.scenario.name}: expect ${e || 'no alerts'}`);
  }
  log('now on the wall clock: each sensor is measured every minute');
}

/**
 * The demo over Modbus RTU: the gateway polls the scenarios' devices on a socat bus, its clock the
 * scenarios' virtual clock while they replay (a poll a minute of virtual time), then the wall clock,
 * with the devices live in real time and the gateway polling them on its own schedule.
 */
async function modbusDemo(
  gatewayModule: GatewayModule,
  config: Config,
  log: (m: string) => void,
): Promise<void> {
  const sim = await startModbusScenarios({
    scenarios: DEMO_SCENARIOS.map((n) => loadScenario(n)),
    config,
    startGateway: (c, opts) => gatewayModule.startGateway(c, opts),
    log,
  });
  log(`gateway up: dashboard ${sim.gw.httpUrl}/`);
  if (sim.gw.setupLink) log(`no account yet: create the first administrator at ${sim.gw.setupLink}`);
  const shutdown = async () => {
    log('stopping');
    await sim.close();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  log(`replaying ${iso(sim.start)} .. ${iso(sim.end)}, polling every device each virtual minute`);
  await sim.replay();
  sim.goLive();
  log('replayed; now live (real time, the gateway polling each device every minute)');
  await Promise.all(
    sim.runs.map(async (run) => {
      const now = Date.now();
      run.clock.setSpeed(1);
      for (const e of run.built.entries) e.device.setHeartbeat(60_000, now);
      await run.advance(Number.POSITIVE_INFINITY);
    }),
  );
}

main().catch((err: Error) => {
  console.error(err.stack ?? err.message);
  process.exit(1);
});
