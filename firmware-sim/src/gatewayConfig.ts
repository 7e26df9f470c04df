import { stringify } from 'yaml';
import { type ConfigInput, configSchema } from '../../gateway/src/config/schema.ts';
import { hashPassword } from '../../shared/src/password.ts';
import { fleetDevice } from './fleet.ts';
import { demoPassword } from './scenario/build.ts';
import type { Scenario, SimDeviceSpec } from './scenario/schema.ts';
import { lorawanDevice, SIM_APPLICATION } from './transports/lorawan.ts';
import type { NetworkServerKind } from './transports/lorawanUplink.ts';
import { SIM_TIMEZONE } from './util/time.ts';

type SiteInput = NonNullable<ConfigInput['sites']>[number];
type DeviceInput = NonNullable<SiteInput['devices']>[number];

function deviceEntry(siteId: string, d: SimDeviceSpec, hash: (pw: string) => string): DeviceInput {
  const e: DeviceInput = { id: d.id, kind: d.model };
  if (d.name) e.name = d.name;
  if (d.model === 'rain-gauge') e.inchesPerTip = d.inchesPerTip;
  if (d.model === 'sediment-trap') e.designDepthIn = d.designDepthIn;
  if (d.model === 'turbidity') e.role = d.role;
  if (d.model === 'septic-panel' || d.model === 'septic-tank') e.liquidDepthIn = d.liquidDepthIn;
  if (d.model === 'holding-tank') {
    e.highLevelIn = d.highLevelIn;
    e.liquidDepthIn = d.tankDepthIn;
  }
  if (d.silentAfterMinutes) e.silentAfterMinutes = d.silentAfterMinutes;
  if (d.username) e.username = d.username;
  e.passwordHash = hash(d.password ?? demoPassword(siteId, d.id));
  return e;
}

/** The device as a LoRaWAN device: its transport, DevEUI, profile and mounting height. */
function asLorawan(siteId: string, e: DeviceInput): DeviceInput {
  const { passwordHash: _p, username: _u, ...rest } = e;
  return { ...rest, transport: 'lorawan', ...lorawanDevice(siteId, e.id, e.kind) };
}

/**
 * A gateway config (gateway/src/config/schema.ts) registering every site and device the scenarios use,
 * with password hashes of the devices' passwords (default `sim-<siteId>-<deviceId>`). Validated.
 */
export function gatewayConfigFor(
  scenarios: readonly Scenario[],
  opts: {
    gatewayId?: string;
    hash?: (pw: string) => string;
    /** Every device heard through this LoRaWAN network server, whose broker is at `url`. */
    lorawan?: { server: NetworkServerKind; url: string };
  } = {},
): ConfigInput {
  const hash = opts.hash ?? ((pw: string) => hashPassword(pw));
  const sites = new Map<string, SiteInput>();
  for (const s of scenarios)
    for (const site of s.sites) {
      const existing = sites.get(site.id);
      if (existing && existing.kind !== site.kind)
        throw new Error(`site ${site.id} is ${existing.kind} in one scenario and ${site.kind} in another`);
      const entry: SiteInput = existing ?? {
        id: site.id,
        ...(site.name ? { name: site.name } : {}),
        kind: site.kind,
        devices: [],
      };
      for (const d of site.devices)
        if (!entry.devices!.some((x) => x.id === d.id)) {
          const e = deviceEntry(site.id, d, hash);
          entry.devices!.push(opts.lorawan ? asLorawan(site.id, e) : e);
        }
      sites.set(site.id, entry);
    }
  const config: ConfigInput = {
    gatewayId: opts.gatewayId ?? 'sim-demo',
    timezone: SIM_TIMEZONE,
    mqtt: { allowAnonymous: false },
    sites: [...sites.values()],
  };
  if (opts.lorawan) {
    const { server, url } = opts.lorawan;
    const settings = { url, applications: [SIM_APPLICATION[server]] };
    config.integrations = server === 'chirpstack' ? { chirpstack: settings } : { thingsStack: settings };
  }
  configSchema.parse(config);
  return config;
}

/**
 * The gateway config for a load fleet: every fleet device registered (without credentials) and
 * anonymous MQTT allowed, because the fleet multiplexes its devices over a few shared connections.
 */
export function fleetGatewayConfig(opts: {
  devices: number;
  devicesPerSite?: number;
  sitePrefix?: string;
}): ConfigInput {
  const sites = new Map<string, SiteInput>();
  for (let i = 0; i < opts.devices; i++) {
    const d = fleetDevice(i, opts.devicesPerSite, opts.sitePrefix);
    const site = sites.get(d.siteId) ?? { id: d.siteId, kind: 'construction', devices: [] };
    const e: DeviceInput = { id: d.deviceId, kind: d.kind };
    if (d.kind === 'rain-gauge') e.inchesPerTip = 0.01;
    if (d.kind === 'sediment-trap') e.designDepthIn = 24;
    if (d.kind === 'turbidity') e.role = d.role;
    site.devices!.push(e);
    sites.set(d.siteId, site);
  }
  const config: ConfigInput = {
    gatewayId: 'sim-fleet',
    mqtt: { allowAnonymous: true },
    ingest: { deviceRatePerSec: 50, deviceBurst: 500 },
    sites: [...sites.values()],
  };
  configSchema.parse(config);
  return config;
}

export function configYaml(config: ConfigInput, header: string): string {
  return `${header
    .split('\n')
    .map((l) => `# ${l}`.trimEnd())
    .join('\n')}\n${stringify(config, { lineWidth: 0 })}`;
}
