/**
 * The demo's secrets stay on this machine: while any is in place, the gateway refuses to listen beyond
 * loopback (`http.host`, or the embedded broker's `mqtt.host`, other than 127.0.0.1, ::1 or localhost),
 * naming each secret and what to change. The demo secrets: a device password of the samples
 * (`demo-<deviceId>` in gateway/config/sample.yaml, `sim-<siteId>-<deviceId>` in the simulator's
 * configuration), and the `change-me…` placeholders earlier copies of deploy/.env.example carried (the
 * broker login, the InfluxDB token, the admin token, a password hash of one of them); today's leaves every
 * secret empty and `npm run deploy:env` fills them.
 */
import { createHash } from 'node:crypto';
import { verifyPasswordAsync } from '../../../shared/src/password.ts';
import type { Config, DeviceConfig } from './schema.ts';

/** The placeholders earlier copies of deploy/.env.example carried (a deployment may still hold them). */
export const ENV_PLACEHOLDERS = [
  'change-me',
  'change-me-too',
  'change-me-long-random-token',
  'change-me-admin-token',
  'change-me-grafana',
] as const;

/** The demo passwords of a device: the sample's and the simulator's. */
export const demoDevicePasswords = (siteId: string, deviceId: string): string[] => [
  `demo-${deviceId}`,
  `sim-${siteId}-${deviceId}`,
];

/** Whether a listening address is this machine only. */
export function isLoopback(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** The listeners that reach beyond this machine, in words ("http.host 0.0.0.0"). */
export function exposedListeners(config: Config): string[] {
  const out: string[] = [];
  if (!isLoopback(config.http.host)) out.push(`http.host ${config.http.host} (the dashboard and the API)`);
  const embedded = config.mqtt.url === undefined && config.mqtt.urls === undefined;
  if (embedded && !isLoopback(config.mqtt.host))
    out.push(`mqtt.host ${config.mqtt.host} (the devices' broker)`);
  return out;
}

/** A device of a site, as the store holds it (its password hash with it). */
export interface DeviceOfSite {
  siteId: string;
  siteName?: string;
  device: Pick<DeviceConfig, 'id' | 'passwordHash'>;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const isPlaceholder = (s: string) => s.trim().toLowerCase().startsWith('change-me');

async function matchesAny(hash: string, passwords: readonly string[]): Promise<boolean> {
  for (const p of passwords) if (await verifyPasswordAsync(p, hash)) return true;
  return false;
}

/** Each demo secret in place, as a sentence that says what to change. */
export async function demoSecrets(config: Config, devices: readonly DeviceOfSite[]): Promise<string[]> {
  const found: string[] = [];
  const checks = devices.map(async ({ siteId, siteName, device }) => {
    if (!device.passwordHash) return;
    if (!(await matchesAny(device.passwordHash, demoDevicePasswords(siteId, device.id)))) return;
    found.push(
      `Device ${device.id} at ${siteName ?? siteId} still has the demo password: give it a password of its own (npm run hash-password -- <password>, into its passwordHash) or a new one from the API (POST /api/sites/${siteId}/devices/${device.id}/secret).`,
    );
  });
  await Promise.all(checks);
  found.sort();
  if (config.mqtt.password !== undefined && isPlaceholder(config.mqtt.password))
    found.push(
      "The gateway's broker password (mqtt.password, MQTT_PASSWORD; GATEWAY_MQTT_PASSWORD in .env) is still a placeholder of an earlier deploy/.env.example: set a long random one.",
    );
  if (config.influx.token !== undefined && isPlaceholder(config.influx.token))
    found.push(
      'The InfluxDB token (influx.token, INFLUX_TOKEN in .env) is still a placeholder of an earlier deploy/.env.example: set a long random one.',
    );
  const placeholderHashes = new Set(ENV_PLACEHOLDERS.map(sha256));
  for (const t of config.auth.tokens)
    if (placeholderHashes.has(t.tokenSha256))
      found.push(
        `The API token "${t.name}" (GATEWAY_ADMIN_TOKEN in .env, or auth.tokens) is still a placeholder of an earlier deploy/.env.example: set a long random one.`,
      );
  for (const u of config.mqtt.users)
    if (await matchesAny(u.passwordHash, ENV_PLACEHOLDERS))
      found.push(
        `The broker login "${u.username}" (mqtt.users) still has a placeholder password of an earlier deploy/.env.example: hash a password of its own (npm run hash-password -- <password>).`,
      );
  for (const u of config.auth.users)
    if (await matchesAny(u.passwordHash, ENV_PLACEHOLDERS))
      found.push(
        `The account ${u.email} (auth.users) still has a placeholder password of an earlier deploy/.env.example: hash a password of its own (npm run hash-password -- <password>).`,
      );
  return found;
}

/** Why the gateway does not start: the listeners beyond this machine and the demo secrets in place. */
export class DemoSecretsExposed extends Error {
  constructor(
    readonly listeners: readonly string[],
    readonly secrets: readonly string[],
  ) {
    super(
      `The gateway will not listen beyond this machine (${listeners.join('; ')}) while the demo's secrets are in place. ` +
        'Change each of these, or listen on 127.0.0.1 only (the demo):\n' +
        secrets.map((s) => `  - ${s}`).join('\n'),
    );
    this.name = 'DemoSecretsExposed';
  }
}

/** Throws `DemoSecretsExposed` when a listener reaches beyond this machine while a demo secret is in place. */
export async function refuseExposedDemoSecrets(
  config: Config,
  devices: readonly DeviceOfSite[],
): Promise<void> {
  const listeners = exposedListeners(config);
  if (listeners.length === 0) return;
  const secrets = await demoSecrets(config, devices);
  if (secrets.length > 0) throw new DemoSecretsExposed(listeners, secrets);
}
