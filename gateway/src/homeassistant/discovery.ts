/**
 * Home Assistant MQTT discovery: the retained config messages under
 * `{prefix}/{component}/{node_id}/{object_id}/config` that make Home Assistant list the gateway's devices
 * and their sensors, and the topics of the states they read (docs/integrations.md).
 *
 * - Each registered device is a Home Assistant device (its `device` block) with sensors by what its
 *   kind reports (shared FIELDS_BY_KIND): rain today (in), level (in), sediment (% of capacity), and
 *   for every device battery (V) and signal (dBm). They read `gateway/{gatewayId}/ha/{siteId}/{deviceId}`.
 * - Each site is a device with one binary sensor (device class `problem`) per duty kind of the rules
 *   that apply there (from the rule registry), reading `gateway/{gatewayId}/ha/{siteId}/duties`.
 * - Every entity is available while the gateway's status (`gateway/{gatewayId}/status`) says online.
 *
 * Ids in topics and unique ids keep to Home Assistant's [a-zA-Z0-9_-]: a readable form of the ids with a
 * short hash of the exact ones, so two ids that read alike never share an entity.
 */
import { z } from 'zod';
import { FIELDS_BY_KIND } from '../../../shared/src/telemetry.ts';
import { haId } from '../config/homeassistant.ts';
import type { DeviceConfig, SiteConfig } from '../config/schema.ts';
import { ruleLabel } from '../rules/index.ts';
import { ruleIdsOf, siteBinding } from '../rules/module.ts';
import { RULE_MODULES } from '../rules/registry.ts';

/** A discovery config payload, as the gateway writes it (Home Assistant's MQTT sensor and binary sensor). */
export const discoveryPayloadSchema = z.object({
  name: z.string(),
  unique_id: z.string(),
  object_id: z.string(),
  state_topic: z.string(),
  value_template: z.string(),
  device_class: z.string().optional(),
  unit_of_measurement: z.string().optional(),
  state_class: z.enum(['measurement', 'total', 'total_increasing']).optional(),
  entity_category: z.literal('diagnostic').optional(),
  suggested_display_precision: z.number().int().optional(),
  payload_on: z.string().optional(),
  payload_off: z.string().optional(),
  availability: z.array(
    z.object({
      topic: z.string(),
      value_template: z.string(),
      payload_available: z.string(),
      payload_not_available: z.string(),
    }),
  ),
  device: z.object({
    identifiers: z.array(z.string()).min(1),
    name: z.string(),
    manufacturer: z.string(),
    model: z.string(),
    suggested_area: z.string().optional(),
  }),
});
export type DiscoveryPayload = z.infer<typeof discoveryPayloadSchema>;

/** What a device's state topic carries (null until reported). */
export const deviceStateSchema = z.object({
  rainTodayIn: z.number().nullable(),
  levelIn: z.number().nullable(),
  sedimentPct: z.number().nullable(),
  batteryV: z.number().nullable(),
  rssi: z.number().nullable(),
  lastReadingAt: z.string().nullable(),
});
export type HaDeviceState = z.infer<typeof deviceStateSchema>;

export interface DiscoveryMessage {
  topic: string;
  payload: DiscoveryPayload;
}

const MANUFACTURER = 'Compliance monitoring gateway';
const ON = 'ON';
const OFF = 'OFF';

export { haId };

export const deviceStateTopic = (gatewayId: string, siteId: string, deviceId: string) =>
  `gateway/${gatewayId}/ha/${siteId}/${deviceId}`;
export const dutiesStateTopic = (gatewayId: string, siteId: string) =>
  `gateway/${gatewayId}/ha/${siteId}/duties`;
const statusTopic = (gatewayId: string) => `gateway/${gatewayId}/status`;

/** The sensors of a device, by what its kind reports. */
interface SensorSpec {
  object: string;
  name: string;
  key: keyof HaDeviceState;
  reads: (fields: readonly string[]) => boolean;
  extra: Partial<DiscoveryPayload>;
}
export const SENSORS: readonly SensorSpec[] = [
  {
    object: 'rain_today',
    name: 'Rain today',
    key: 'rainTodayIn',
    reads: (f) => f.includes('rainTips') || f.includes('rainIn'),
    extra: { device_class: 'precipitation', unit_of_measurement: 'in', state_class: 'total_increasing' },
  },
  {
    object: 'level',
    name: 'Level',
    key: 'levelIn',
    reads: (f) => f.includes('levelIn'),
    extra: { device_class: 'distance', unit_of_measurement: 'in', state_class: 'measurement' },
  },
  {
    object: 'sediment',
    name: 'Sediment',
    key: 'sedimentPct',
    reads: (f) => f.includes('sedimentIn'),
    extra: { unit_of_measurement: '%', state_class: 'measurement', suggested_display_precision: 0 },
  },
  {
    object: 'battery',
    name: 'Battery',
    key: 'batteryV',
    reads: () => true,
    extra: {
      device_class: 'voltage',
      unit_of_measurement: 'V',
      state_class: 'measurement',
      entity_category: 'diagnostic',
    },
  },
  {
    object: 'signal',
    name: 'Signal',
    key: 'rssi',
    reads: () => true,
    extra: {
      device_class: 'signal_strength',
      unit_of_measurement: 'dBm',
      state_class: 'measurement',
      entity_category: 'diagnostic',
    },
  },
];

function availability(gatewayId: string): DiscoveryPayload['availability'] {
  return [
    {
      topic: statusTopic(gatewayId),
      value_template: '{{ value_json.status }}',
      payload_available: 'online',
      payload_not_available: 'offline',
    },
  ];
}

/** The discovery messages of one device's sensors. */
export function deviceDiscovery(
  gatewayId: string,
  prefix: string,
  site: SiteConfig,
  device: DeviceConfig,
): DiscoveryMessage[] {
  const node = haId(gatewayId, site.id, device.id);
  const fields = FIELDS_BY_KIND[device.kind];
  return SENSORS.filter((s) => s.reads(fields)).map((s) => ({
    topic: `${prefix}/sensor/${node}/${s.object}/config`,
    payload: {
      name: s.name,
      unique_id: `${node}_${s.object}`,
      object_id: `${node}_${s.object}`,
      state_topic: deviceStateTopic(gatewayId, site.id, device.id),
      value_template: `{{ value_json.${s.key} }}`,
      ...s.extra,
      availability: availability(gatewayId),
      device: {
        identifiers: [node],
        name: device.name ?? `${site.name ?? site.id} ${device.id}`,
        manufacturer: MANUFACTURER,
        model: device.kind,
        suggested_area: site.name ?? site.id,
      },
    },
  }));
}

/** The config topics a device could have (to remove them all when it is retired). */
export function deviceConfigTopics(
  gatewayId: string,
  prefix: string,
  siteId: string,
  deviceId: string,
): string[] {
  const node = haId(gatewayId, siteId, deviceId);
  return SENSORS.map((s) => `${prefix}/sensor/${node}/${s.object}/config`);
}

/** The rule ids that apply at a site (the rule registry's bindings), in the registry's order. */
export function siteRules(site: SiteConfig): string[] {
  const out: string[] = [];
  for (const m of RULE_MODULES) {
    const binds = m.binds;
    const applies =
      siteBinding(binds, site) !== undefined ||
      ('perDevice' in binds && site.devices.some((d) => binds.perDevice(d, site)));
    if (applies) out.push(...ruleIdsOf(m));
  }
  return out;
}

/** The discovery messages of a site's duty binary sensors (device class problem, one per rule). */
export function siteDiscovery(gatewayId: string, prefix: string, site: SiteConfig): DiscoveryMessage[] {
  const node = haId(gatewayId, site.id);
  return siteRules(site).map((rule) => {
    const object = rule.replace(/[^A-Za-z0-9_-]/g, '_');
    return {
      topic: `${prefix}/binary_sensor/${node}/${object}/config`,
      payload: {
        name: ruleLabel(rule),
        unique_id: `${node}_${object}`,
        object_id: `${node}_${object}`,
        state_topic: dutiesStateTopic(gatewayId, site.id),
        value_template: `{{ value_json['${rule}'] }}`,
        device_class: 'problem',
        payload_on: ON,
        payload_off: OFF,
        availability: availability(gatewayId),
        device: {
          identifiers: [node],
          name: `${site.name ?? site.id} duties`,
          manufacturer: MANUFACTURER,
          model: site.kind,
          suggested_area: site.name ?? site.id,
        },
      },
    };
  });
}

/** A site's duty state: ON for each applicable rule with an unresolved duty, OFF for the others. */
export function dutiesState(
  site: SiteConfig,
  openRules: ReadonlySet<string>,
): Record<string, typeof ON | typeof OFF> {
  const out: Record<string, typeof ON | typeof OFF> = {};
  for (const rule of siteRules(site)) out[rule] = openRules.has(rule) ? ON : OFF;
  return out;
}
