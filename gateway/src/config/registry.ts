import type { DeviceKind } from '../../../shared/src/telemetry.ts';
import { deviceKey } from '../deviceKey.ts';
import { normalizeIdentity } from './identities.ts';
import type { Config, DeviceConfig, SiteConfig } from './schema.ts';

/**
 * The devices of the configuration, by site and device id and by MQTT login. The decoder asks it for a
 * message's device (`decode/`, through its own narrower view of it).
 */

/** A registered device as the decoder, ingest and the API see it. */
export interface DeviceInfo {
  siteId: string;
  deviceId: string;
  kind: DeviceKind;
  device: DeviceConfig;
  site: SiteConfig;
  /** MQTT login name (default `siteId/deviceId`). */
  username: string;
}

export interface DeviceRegistry {
  lookup(siteId: string, deviceId: string): DeviceInfo | undefined;
  /** The device of a login name, compared normalized (`normalizeIdentity`). */
  byUsername(username: string): DeviceInfo | undefined;
  /** A LoRaWAN device by its DevEUI (any case). */
  byDevEui(devEui: string): DeviceInfo | undefined;
  all(): DeviceInfo[];
}

/** A registry that follows a changing list of sites: `refresh()` after each change. */
export interface LiveRegistry extends DeviceRegistry {
  refresh(): void;
}

export function liveRegistry(sites: () => readonly SiteConfig[]): LiveRegistry {
  let current = buildRegistry({ sites: [...sites()] });
  return {
    lookup: (s, d) => current.lookup(s, d),
    byUsername: (u) => current.byUsername(u),
    byDevEui: (e) => current.byDevEui(e),
    all: () => current.all(),
    refresh: () => {
      current = buildRegistry({ sites: [...sites()] });
    },
  };
}

export function buildRegistry(config: Pick<Config, 'sites'>): DeviceRegistry {
  const byKey = new Map<string, DeviceInfo>();
  const byUser = new Map<string, DeviceInfo>();
  const byEui = new Map<string, DeviceInfo>();
  for (const site of config.sites)
    for (const device of site.devices) {
      const info: DeviceInfo = {
        siteId: site.id,
        deviceId: device.id,
        kind: device.kind,
        device,
        site,
        username: device.username ?? deviceKey(site.id, device.id),
      };
      byKey.set(deviceKey(site.id, device.id, '\u0000'), info);
      const login = normalizeIdentity(info.username);
      if (!byUser.has(login)) byUser.set(login, info);
      if (device.devEui && !byEui.has(device.devEui)) byEui.set(device.devEui, info);
    }
  return {
    lookup: (s, d) => byKey.get(`${s}\u0000${d}`),
    byUsername: (u) => byUser.get(normalizeIdentity(u)),
    byDevEui: (e) => byEui.get(e.toLowerCase()),
    all: () => [...byKey.values()],
  };
}
