/**
 * `npm run soak:reconnect -- [devices]` (default 10,000): a fleet logs in, the gateway restarts on the
 * same store, and the whole fleet logs in again, 200 logins at a time. Before the keyed hash of device
 * secrets (ingest/mqtt/credentialMacs.ts) each login after a restart paid a scrypt check (65 ms, two at
 * a time): 3,000 devices needed 195 s. Prints the figures (the time to get every device back in after the
 * restart, the scrypt checks it cost, the gateway's resident memory) and exits 1 unless every device is
 * back within a minute without a scrypt check. The first round's hashes are kept in the temp dir, so a
 * second run starts sooner. The suite runs the same with 40 devices (test/e2e/reconnect.test.ts).
 */
import { randomBytes, scrypt } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { faultConfig, metrics, metricValue } from '../helpers/faults.ts';
import { rawConnect } from '../helpers/rawLogin.ts';
import { printFigures } from './main.ts';

const AT_ONCE = 200;

/** The stored form of a device secret (shared/src/password.ts), computed on the thread pool. */
const hashOf = (secret: string) =>
  new Promise<string>((resolve, reject) => {
    const salt = randomBytes(16);
    scrypt(secret, salt, 32, (e, key) =>
      e ? reject(e) : resolve(`scrypt$${salt.toString('hex')}$${key.toString('hex')}`),
    );
  });

async function fleetHashes(n: number): Promise<string[]> {
  const file = join(tmpdir(), `soak-reconnect-${n}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as string[];
  const out: string[] = [];
  for (let i = 0; i < n; i += AT_ONCE)
    out.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(AT_ONCE, n - i) }, (_, k) => hashOf(secret(i + k))),
      )),
    );
  writeFileSync(file, JSON.stringify(out));
  return out;
}

const secret = (i: number) => `fleet-secret-${i}-${'x'.repeat(32)}`;
const name = (i: number) => `maple-ridge/fl-${i}`;

/** Logs every device in, AT_ONCE at a time; the seconds it took and the logins refused. */
async function logAllIn(port: number, n: number): Promise<{ seconds: number; refused: number }> {
  const start = performance.now();
  let refused = 0;
  let next = 0;
  const lane = async () => {
    while (next < n) {
      const i = next++;
      if ((await rawConnect(port, name(i), secret(i), name(i)).connack) !== 0) refused++;
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, lane));
  return { seconds: (performance.now() - start) / 1000, refused };
}

export interface ReconnectFigures {
  devices: number;
  first: { seconds: number; refused: number; scryptChecks: number };
  afterRestart: { seconds: number; refused: number; scryptChecks: number };
  rssMb: number;
  problems: string[];
}

export async function reconnectSoak(n: number): Promise<ReconnectFigures> {
  const hashes = await fleetHashes(n);
  const fleet = hashes.map((passwordHash, i) => ({
    id: `fl-${i}`,
    kind: 'rain-gauge',
    inchesPerTip: 0.01,
    passwordHash,
  }));
  const config = faultConfig({}, fleet);
  const dir = mkdtempSync(join(tmpdir(), 'soak-reconnect-'));
  const dataDir = join(dir, 'data');
  const checks = async (g: GatewayChild) =>
    metricValue(await metrics(g.httpUrl), 'gateway_password_checks_total', 'transport="mqtt"');
  const opts = { dataDir, bundle: true, env: { LOG_LEVEL: 'error' } };
  let gw = await startGatewayChild(config, opts);
  try {
    const first = { ...(await logAllIn(gw.mqttPort, n)), scryptChecks: await checks(gw) };
    await gw.stop();
    gw = await startGatewayChild(config, opts);
    const afterRestart = { ...(await logAllIn(gw.mqttPort, n)), scryptChecks: await checks(gw) };
    const problems: string[] = [];
    if (first.refused || afterRestart.refused) problems.push('a right login was refused');
    if (afterRestart.seconds > 60)
      problems.push(`the fleet needed ${afterRestart.seconds.toFixed(1)} s after the restart`);
    if (afterRestart.scryptChecks > 0)
      problems.push(`${afterRestart.scryptChecks} scrypt checks after the restart`);
    return { devices: n, first, afterRestart, rssMb: gw.rssMb(), problems };
  } finally {
    await gw.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const n = Number(process.argv[2] ?? 10_000);
  printFigures(() => reconnectSoak(n));
}
