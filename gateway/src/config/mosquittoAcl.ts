/**
 * A Mosquitto ACL for the gateways of one shared broker, from their configuration files: each device
 * writes only its own telemetry and status; each gateway reads every device's, writes only its own
 * `gateway/{gatewayId}/...` (status, fleet state, checkpoints; and reads them back: a checkpoint is read
 * back at start), the `alerts/{siteId}/...` of its own sites and its own Home Assistant discovery nodes
 * (one per site and per device of its own; never another gateway's, retained or not), and reads the other gateways' state, status and checkpoints (the fleet
 * view follows them); an MQTT user reads what it is given. Gateways need logins of their own, and no two
 * devices or users of all the files may share a login name (config/identities.ts).
 */

import { haId } from './homeassistant.ts';
import { configCollisions } from './identities.ts';
import { type Config, externalBrokerUrls } from './schema.ts';

export class AclError extends Error {}

/** The gateway's login on the broker (`mqtt.username`, default `gateway`). */
export const gatewayLogin = (c: Config) => c.mqtt.username ?? 'gateway';

export function mosquittoAcl(sources: ReadonlyArray<{ path: string; config: Config }>): string {
  const logins = new Map<string, string>();
  for (const { path, config } of sources) {
    const login = gatewayLogin(config);
    const other = logins.get(login);
    if (other !== undefined)
      throw new AclError(
        `The gateways of ${other} and ${path} both log in as "${login}": give each gateway its own mqtt.username, so one cannot publish as the other.`,
      );
    logins.set(login, path);
  }
  const sites = sources.flatMap((s) => s.config.sites);
  const users = sources.flatMap((s) => s.config.mqtt.users);
  const clash = configCollisions(sites, users)[0];
  if (clash) throw new AclError(clash.message);

  const lines = [`# Generated from ${sources.map((s) => s.path).join(', ')}`, ''];
  for (const { config } of sources) {
    const own = `gateway/${config.gatewayId}`;
    lines.push(
      `# gateway ${config.gatewayId}${externalBrokerUrls(config.mqtt).length === 0 ? ' (its configuration names no external broker)' : ''}`,
      `user ${gatewayLogin(config)}`,
      'topic read sites/+/devices/+/telemetry',
      'topic read sites/+/devices/+/status',
      `topic readwrite ${own}/#`,
      'topic read gateway/+/state',
      'topic read gateway/+/status',
      'topic read gateway/+/checkpoint',
      // Alert notifications on alerts/{siteId}/{rule}: its own sites' only.
      ...config.sites.map((site) => `topic write alerts/${site.id}/#`),
      // Home Assistant discovery configs (homeassistant.discovery), its own nodes only (discovery.ts);
      // their states are under its own gateway/ topics.
      ...(config.homeassistant.discovery ? haNodes(config) : []),
      '',
    );
  }
  for (const site of sites)
    for (const d of site.devices)
      lines.push(
        `user ${d.username ?? `${site.id}/${d.id}`}`,
        `topic write sites/${site.id}/devices/${d.id}/telemetry`,
        `topic readwrite sites/${site.id}/devices/${d.id}/status`,
        '',
      );
  for (const u of users) lines.push(`user ${u.username}`, ...u.subscribe.map((t) => `topic read ${t}`), '');
  return `${lines.join('\n')}\n`;
}

/** The discovery topics of a gateway's own Home Assistant nodes: a site's duties, a device's sensors. */
function haNodes(config: Config): string[] {
  const prefix = config.homeassistant.prefix;
  return config.sites.flatMap((site) => [
    `topic write ${prefix}/binary_sensor/${haId(config.gatewayId, site.id)}/#`,
    ...site.devices.map((d) => `topic write ${prefix}/sensor/${haId(config.gatewayId, site.id, d.id)}/#`),
  ]);
}
