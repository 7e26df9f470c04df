/**
 * `npm run mosquitto-acl -- [config.yaml]`: prints a Mosquitto ACL for an external broker that gives each
 * device write access to its own topics only, and the gateway's account read access to all of them.
 * Device passwords for Mosquitto are set with `mosquitto_passwd` (the gateway keeps only hashes).
 */
import { loadConfig } from '../config/load.ts';
import { SAMPLE_CONFIG } from '../paths.ts';

const path = process.argv[2] ?? process.env.GATEWAY_CONFIG ?? SAMPLE_CONFIG;
const config = loadConfig(path, {});
const gatewayUser = config.mqtt.username ?? 'gateway';
const lines = [
  `# Generated from ${path}`,
  `user ${gatewayUser}`,
  'topic read sites/+/devices/+/telemetry',
  'topic read sites/+/devices/+/status',
  'topic write gateway/#',
  'topic write alerts/#',
  // Home Assistant discovery configs (homeassistant.discovery); their states are under gateway/#.
  ...(config.homeassistant.discovery ? [`topic write ${config.homeassistant.prefix}/#`] : []),
  '',
];
for (const site of config.sites)
  for (const d of site.devices)
    lines.push(
      `user ${d.username ?? `${site.id}/${d.id}`}`,
      `topic write sites/${site.id}/devices/${d.id}/telemetry`,
      `topic readwrite sites/${site.id}/devices/${d.id}/status`,
      '',
    );
for (const u of config.mqtt.users)
  lines.push(`user ${u.username}`, ...u.subscribe.map((t) => `topic read ${t}`), '');
process.stdout.write(`${lines.join('\n')}\n`);
