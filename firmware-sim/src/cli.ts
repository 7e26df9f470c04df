import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { nextPageOf } from '../../shared/src/links.ts';
import { type ApiAlert, compareAlerts, formatComparison, resolveExpectations } from './compare.ts';
import { runFleet } from './fleet.ts';
import { configYaml, fleetGatewayConfig, gatewayConfigFor } from './gatewayConfig.ts';
import { serveModbusScenario } from './modbusRun.ts';
import { listScenarios, loadScenario } from './scenario/load.ts';
import { runScenario } from './sim.ts';
import type { NetworkServerKind } from './transports/lorawanUplink.ts';
import { iso, parseDuration, resolveStart } from './util/time.ts';

const HELP = `usage: npm run sim -- --scenario <name|path> [options]

  --list                       list the shipped scenarios
  --scenario <name>            a scenario in firmware-sim/scenarios, or a path to a YAML file
  --mqtt <url>                 broker (default mqtt://127.0.0.1:1883)
  --serial <path>              serial port / pty for devices whose transport is serial
  --all-serial                 send every device over --serial instead of MQTT
  --transport <t>              chirpstack, things-stack (or lorawan: chirpstack): every device heard
                               through that LoRaWAN network server, whose broker is --network-server
  --network-server <url>       the network server's MQTT broker (default mqtt://127.0.0.1:1884)
  --transport modbus           the devices as Modbus RTU units answering on --serial, in real time, for
                               a gateway that polls them (--modbus-bus: the gateway's end of the line)
  --speed <n|step>             virtual ms per real ms (default: the scenario's)
  --seed <n>                   PRNG seed (default: the scenario's)
  --start <iso|now|now-36h>    scenario start (default: the scenario's)
  --dry-run                    no network: print every output as a JSON line
  --check                      afterwards, poll the gateway API until the expected alerts are there
  --api <url>                  gateway HTTP API (default http://127.0.0.1:8080)
  --token <t>                  bearer token for the API, if reads need one
  --check-timeout <dur>        how long to wait for the alerts (default 30s)
  --write-gateway-config <p>   write a gateway config for the scenario(s) and exit
  fleet: --devices <n> --duration <seconds> --connections <n> --qos <0|1> --window <n>
         --rate <msgs/s> --fleet-username <u> --fleet-password <p>
`;

function fail(msg: string): never {
  console.error(msg);
  process.exit(2);
}

async function fetchAlerts(api: string, siteIds: string[], token?: string): Promise<ApiAlert[]> {
  const out: ApiAlert[] = [];
  const base = api.replace(/\/$/, '');
  for (const siteId of siteIds) {
    // A page at a time, following the Link header's next page.
    let path: string | undefined = `/api/alerts?siteId=${encodeURIComponent(siteId)}&limit=500`;
    while (path) {
      const res: Response = await fetch(`${base}${path}`, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
      if (!res.ok) throw new Error(`GET /api/alerts?siteId=${siteId}: HTTP ${res.status}`);
      const body = (await res.json()) as unknown;
      if (!Array.isArray(body)) throw new Error(`GET /api/alerts?siteId=${siteId}: expected a JSON array`);
      out.push(...(body as ApiAlert[]));
      path = nextPageOf(res.headers.get('link'));
    }
  }
  return out;
}

async function main(): Promise<number> {
  const { values: a } = parseArgs({
    options: {
      help: { type: 'boolean', short: 'h' },
      list: { type: 'boolean' },
      scenario: { type: 'string', short: 's' },
      mqtt: { type: 'string', default: 'mqtt://127.0.0.1:1883' },
      serial: { type: 'string' },
      'all-serial': { type: 'boolean' },
      transport: { type: 'string' },
      'network-server': { type: 'string', default: 'mqtt://127.0.0.1:1884' },
      'modbus-bus': { type: 'string' },
      speed: { type: 'string' },
      seed: { type: 'string' },
      start: { type: 'string' },
      'dry-run': { type: 'boolean' },
      check: { type: 'boolean' },
      api: { type: 'string', default: 'http://127.0.0.1:8080' },
      token: { type: 'string' },
      'check-timeout': { type: 'string', default: '30s' },
      'write-gateway-config': { type: 'string' },
      devices: { type: 'string' },
      duration: { type: 'string' },
      connections: { type: 'string' },
      qos: { type: 'string' },
      window: { type: 'string' },
      rate: { type: 'string' },
      'fleet-username': { type: 'string' },
      'fleet-password': { type: 'string' },
    },
    allowPositionals: false,
  });
  if (a.help) {
    console.log(HELP);
    return 0;
  }
  if (a.list) {
    for (const name of listScenarios()) {
      const { scenario } = loadScenario(name);
      console.log(`${name.padEnd(28)} ${scenario.description.replace(/\s+/g, ' ').slice(0, 100)}`);
    }
    return 0;
  }
  if (!a.scenario && !a['write-gateway-config']) fail(HELP);
  const transport = a.transport === 'lorawan' ? 'chirpstack' : a.transport;
  if (
    transport !== undefined &&
    transport !== 'mqtt' &&
    transport !== 'chirpstack' &&
    transport !== 'things-stack' &&
    transport !== 'modbus'
  )
    fail(`--transport must be mqtt, chirpstack, things-stack, lorawan or modbus, got "${a.transport}"`);
  const lorawan =
    transport === 'chirpstack' || transport === 'things-stack'
      ? { server: transport as NetworkServerKind, url: a['network-server']! }
      : undefined;
  const num = (name: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n)) fail(`--${name} must be a number, got "${v}"`);
    return n;
  };

  if (a['write-gateway-config'] && (!a.scenario || !loadScenario(a.scenario).scenario.fleet)) {
    const names = a.scenario ? [a.scenario] : listScenarios();
    const scenarios = names.map((n) => loadScenario(n).scenario).filter((s) => s.sites.length > 0);
    const header = [
      `Gateway config for the simulator scenarios: ${scenarios.map((s) => s.name).join(', ')}.`,
      'Written by `npm run sim -- --write-gateway-config <path>`; every site and device the scenarios use.',
      'Device MQTT logins (demo only, never for real devices): username <siteId>/<deviceId>,',
      'password sim-<siteId>-<deviceId>; passwordHash is hashPassword() of that password.',
      'The load fleet needs its own config (anonymous MQTT, shared connections):',
      '  npm run sim -- --scenario fleet --devices 10000 --write-gateway-config /tmp/gateway-fleet.yaml',
    ].join('\n');
    writeFileSync(
      a['write-gateway-config'],
      configYaml(gatewayConfigFor(scenarios, lorawan ? { lorawan } : {}), header),
    );
    console.log(`wrote ${a['write-gateway-config']}`);
    return 0;
  }

  const loaded = loadScenario(a.scenario!);
  const { scenario } = loaded;
  const log = (m: string) => console.error(`[sim] ${m}`);

  if (scenario.fleet) {
    const f = scenario.fleet;
    const devices = num('devices', a.devices) ?? f.devices;
    if (a['write-gateway-config']) {
      const cfg = fleetGatewayConfig({ devices, devicesPerSite: f.devicesPerSite, sitePrefix: f.sitePrefix });
      writeFileSync(
        a['write-gateway-config'],
        configYaml(
          cfg,
          `Gateway config for the load fleet: ${devices} devices, anonymous MQTT (shared connections).`,
        ),
      );
      console.log(`wrote ${a['write-gateway-config']}`);
      return 0;
    }
    const durationS = num('duration', a.duration);
    const qos = num('qos', a.qos) ?? f.qos;
    if (qos !== 0 && qos !== 1) fail('--qos must be 0 or 1');
    const rate = num('rate', a.rate) ?? f.ratePerSec;
    console.log(
      `fleet: ${devices} devices over ${num('connections', a.connections) ?? f.connections} connections to ${a.mqtt}, QoS ${qos}`,
    );
    const r = await runFleet({
      mqttUrl: a.mqtt!,
      devices,
      durationMs: durationS !== undefined ? durationS * 1000 : parseDuration(f.duration),
      qos,
      connections: num('connections', a.connections) ?? f.connections,
      window: num('window', a.window) ?? f.window,
      devicesPerSite: f.devicesPerSite,
      sitePrefix: f.sitePrefix,
      seed: num('seed', a.seed) ?? scenario.seed,
      ...(rate !== undefined ? { ratePerSec: rate } : {}),
      ...(a['fleet-username'] ? { username: a['fleet-username'] } : {}),
      ...(a['fleet-password'] ? { password: a['fleet-password'] } : {}),
      log,
    });
    console.log(
      `fleet: sent ${r.sent}, acknowledged ${r.acked}, errors ${r.errors} in ${(r.elapsedMs / 1000).toFixed(1)} s: ${r.ratePerSec} messages/s sustained`,
    );
    return r.errors > 0 && r.acked === 0 ? 1 : 0;
  }

  if (a.transport === 'modbus') {
    // A Modbus reading is stamped by the gateway's clock when it polls: only real time is honest here.
    if (!a.serial) fail('--transport modbus needs --serial <the port or pty end the devices answer on>');
    if (a.speed !== undefined && a.speed !== '1')
      fail(
        '--transport modbus runs in real time (the gateway stamps each poll): use npm run demo -- --transport modbus for an accelerated run',
      );
    const ac = new AbortController();
    process.once('SIGINT', () => ac.abort(new Error('interrupted')));
    await serveModbusScenario({
      loaded,
      // Real time: from now on, unless told otherwise.
      start: resolveStart(a.start ?? 'now'),
      path: a.serial,
      bus: a['modbus-bus'] ?? '<the gateway end>',
      signal: ac.signal,
      log,
    });
    return 0;
  }
  const speedArg = a.speed;
  const speed = speedArg === undefined ? undefined : speedArg === 'step' ? 'step' : num('speed', speedArg);
  const start = resolveStart(a.start ?? scenario.start);
  const seed = num('seed', a.seed);
  const ac = new AbortController();
  process.once('SIGINT', () => ac.abort(new Error('interrupted')));
  console.log(
    `scenario ${scenario.name}: ${iso(start)} + ${scenario.duration} at ${speed ?? scenario.speed}x, seed ${seed ?? scenario.seed}`,
  );
  const t0 = performance.now();
  const run = await runScenario(loaded, {
    start,
    ...(seed !== undefined ? { seed } : {}),
    ...(speed !== undefined ? { speed } : {}),
    ...(a['dry-run']
      ? { dryRun: true, print: (l: string) => console.log(l) }
      : { mqtt: { url: a.mqtt!, log } }),
    ...(a.serial ? { serialPath: a.serial } : {}),
    ...(a['all-serial'] ? { allSerial: true } : {}),
    ...(lorawan ? { lorawan: { ...lorawan, log } } : {}),
    signal: ac.signal,
    log,
  });
  const secs = (performance.now() - t0) / 1000;
  console.log(
    `scenario ${scenario.name} done: ${run.result.messages} messages (${run.stats.acked} acknowledged, ${run.stats.errors} errors) in ${secs.toFixed(1)} s`,
  );
  if (!a.check) return run.stats.errors > 0 ? 1 : 0;

  const expected = resolveExpectations(scenario.expect, start);
  const siteIds = [...new Set([...expected.alerts.map((e) => e.siteId), ...scenario.sites.map((s) => s.id)])];
  const deadline = Date.now() + parseDuration(a['check-timeout']!);
  let last: ReturnType<typeof compareAlerts> | undefined;
  let lastError: string | undefined;
  while (Date.now() < deadline) {
    try {
      last = compareAlerts(expected, await fetchAlerts(a.api!, siteIds, a.token));
      lastError = undefined;
      if (last.ok) break;
    } catch (e) {
      lastError = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  if (!last) {
    console.error(`check failed: could not read alerts from ${a.api}: ${lastError}`);
    return 1;
  }
  console.log(formatComparison(last));
  if (lastError) console.error(`last poll failed: ${lastError}`);
  return last.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(err.message);
    process.exit(2);
  },
);
