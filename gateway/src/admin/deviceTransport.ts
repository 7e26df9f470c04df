/**
 * The checks a device of a native transport (LoRaWAN, Modbus RTU, SDI-12) must pass before the catalogue
 * keeps it, beyond its schema: a profile of the library that fits its transport and its kind; a DevEUI no
 * other device has; a Modbus bus or an SDI-12 adapter the configuration sets up, and a unit id or address
 * on it no other device has; the mounting height when the profile derives a level from it; and no field
 * of another transport. Each problem is "field: words", so a form shows it beside its field. Pure.
 */
import { everyText, NATIVE_KEYS } from '../../../shared/src/fieldbus.ts';
import { deviceFieldbusIssues } from '../config/fieldbusChecks.ts';
import type { DeviceConfig, SiteConfig } from '../config/schema.ts';
import { type ProfileLibrary, profileLibrary, resolveProfile } from '../decode/profiles/library/index.ts';
import type { Profile } from '../decode/profiles/schema.ts';

export type { ProfileLibrary };

/** The buses and adapters the configuration sets up. */
export interface FieldbusSetup {
  modbus: readonly { path: string }[];
  sdi12: readonly { path: string }[];
}

/** A device in service elsewhere, for the checks of what must be its own. */
export interface PlacedDevice {
  siteId: string;
  device: DeviceConfig;
}

/** The device's profile, resolved against the library (or the one written out in the configuration). */
export function profileOf(d: DeviceConfig, lib: ProfileLibrary): Profile | undefined {
  return resolveProfile(d.profile, lib);
}

/**
 * What is wrong with a device's transport settings, each "field: words" (the configuration's own checks,
 * config/fieldbusChecks.ts, with the device's own entry not counted as a clash); empty when nothing is.
 */
export function transportProblems(
  siteId: string,
  d: DeviceConfig,
  sites: readonly SiteConfig[],
  setup: FieldbusSetup = { modbus: [], sdi12: [] },
  lib: ProfileLibrary = profileLibrary,
): string[] {
  const places = { sites, modbus: setup.modbus, sdi12: setup.sdi12 };
  const issues = deviceFieldbusIssues(places, { id: siteId }, d, lib);
  if ((d.transport ?? 'json') === 'json' && d.mountHeightIn !== undefined)
    issues.push({
      path: ['mountHeightIn'],
      message:
        'Only a level sensor that connects through LoRaWAN, Modbus RTU or SDI-12 has a mounting height.',
    });
  return issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

/**
 * A device's settings with a change applied: a change of transport drops what only the old one had, unless
 * the change gives it anew; the gateway's own JSON, the default, is kept as no transport at all (so a form
 * that sends it changes nothing).
 */
export function switchTransport(
  cur: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const kept = { ...cur };
  if (patch.transport !== undefined && patch.transport !== (cur.transport ?? 'json'))
    for (const k of NATIVE_KEYS) if (patch[k] === undefined) delete kept[k];
  const next = { ...kept, ...patch };
  if (next.transport === 'json') delete next.transport;
  return next;
}

/** A device of a native transport added: no MQTT login, how the gateway hears it instead. */
export interface NativeAdded {
  siteId: string;
  deviceId: string;
  transport: 'lorawan' | 'modbus' | 'sdi12';
  message: string;
}

/** The answer to adding a device of a native transport: how the gateway hears it, in words. */
export function nativeAdded(
  siteId: string,
  d: DeviceConfig,
  lib: ProfileLibrary = profileLibrary,
): NativeAdded {
  const label = profileOf(d, lib)?.label;
  const what = label ? ` (${label})` : '';
  const transport = d.transport as NativeAdded['transport'];
  const how =
    transport === 'lorawan'
      ? `hears it${what} through the LoRaWAN network server, by its DevEUI ${d.devEui}`
      : transport === 'modbus'
        ? `reads it${what} on ${d.modbus?.bus}, unit ${d.modbus?.unitId}, every ${everyText(d.modbus?.pollSeconds ?? 60)}`
        : `measures it${what} on ${d.sdi12?.port}, address ${d.sdi12?.address}, every ${everyText(d.sdi12?.pollSeconds ?? 300)}`;
  return { siteId, deviceId: d.id, transport, message: `It needs no MQTT password: the gateway ${how}.` };
}
