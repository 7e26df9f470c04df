import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../gateway/src/config/load.ts';
import type { Config } from '../../gateway/src/config/schema.ts';
import { startModbusScenarios } from './modbusRun.ts';
import { loadScenario } from './scenario/load.ts';
import { type ScenarioRun, startScenario } from './sim.ts';
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
    pollModbus(): Promise<void>;
    stop(): Promise<void>;
  }>;
}

const DEMO_SCENARIOS = ['storm-0.62in', 'float-alarm', 'sediment-fill'];
/** A day of virtual time in 10 s: the storm crosses 0.5 in about 6 s in, the longest scenario ends in 15 s. */
const DEMO_SPEED = 8640;
const GATEWAY_YAML = fileURLToPath(new URL('../scenarios/gateway.yaml', import.meta.url));

async function main(): Promise<void> {
  const log = (m: string) => console.log(`[demo] ${m}`);
  // Imported by path at run time so this file compiles whether or not the gateway entry exists yet.
  const mainPath = '../../gateway/src/main.ts';
  const gatewayModule = (await import(mainPath)) as GatewayModule;
  const config = loadConfig(process.env.GATEWAY_CONFIG ?? GATEWAY_YAML);
  if (!process.env.GATEWAY_DATA_DIR) config.dataDir = mkdtempSync(join(tmpdir(), 'gateway-demo-'));
  log(`gateway data in ${config.dataDir}`);
  const t = process.argv.indexOf('--transport');
  if (t > 0 && process.argv[t + 1] === 'modbus') return modbusDemo(gatewayModule, config, log);
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
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);

  for (const name of DEMO_SCENARIOS) {
    const run = await startScenario(loadScenario(name), {
      speed: DEMO_SPEED,
      mqtt: { url: gw.mqttUrl, log: (m) => console.error(`[${name}] ${m}`) },
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
