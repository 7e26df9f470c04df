/** MQTT topic contract (docs/devices.md). */
export const telemetryTopic = (siteId: string, deviceId: string) =>
  `sites/${siteId}/devices/${deviceId}/telemetry`;
export const deviceStatusTopic = (siteId: string, deviceId: string) =>
  `sites/${siteId}/devices/${deviceId}/status`;
export const gatewayStatusTopic = (gatewayId: string) => `gateway/${gatewayId}/status`;
export const alertTopic = (siteId: string, rule: string) => `alerts/${siteId}/${rule}`;

export type ParsedTopic =
  | { kind: 'telemetry'; siteId: string; deviceId: string }
  | { kind: 'status'; siteId: string; deviceId: string }
  | { kind: 'other' };

const cache = new Map<string, ParsedTopic>();
const CACHE_MAX = 50_000;

/** Parses a device topic. Results are cached: a fleet publishes on the same few topics over and over. */
export function parseDeviceTopic(topic: string): ParsedTopic {
  let t = cache.get(topic);
  if (t === undefined) {
    t = parseUncached(topic);
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(topic, t);
  }
  return t;
}

function parseUncached(topic: string): ParsedTopic {
  const p = topic.split('/');
  if (p.length === 5 && p[0] === 'sites' && p[2] === 'devices' && p[1] && p[3]) {
    if (p[4] === 'telemetry') return { kind: 'telemetry', siteId: p[1], deviceId: p[3] };
    if (p[4] === 'status') return { kind: 'status', siteId: p[1], deviceId: p[3] };
  }
  return { kind: 'other' };
}
