/**
 * The checks a device of a native transport (LoRaWAN, Modbus RTU, SDI-12) must pass before the catalogue
 * keeps it, beyond its schema: a profile of the library that fits its transport and its kind; a DevEUI no
 * other device has; a Modbus bus or an SDI-12 adapter the configuration sets up, and a unit id or address
 * on it no other device has; the mounting height when the profile derives a level from it; and no field
 * of another transport. Each problem is "field: words", so a form shows it beside its field. Pure.
 */
import {
  type DeviceTransport,
  everyText,
  NATIVE_KEYS,
  TRANSPORT_KEYS,
  TRANSPORT_WORDS,
} from '../../../shared/src/fieldbus.ts';
import type { DeviceConfig, SiteConfig } from '../config/schema.ts';
import { PROFILES, profileByName } from '../decode/profiles/library/index.ts';
import type { Profile } from '../decode/profiles/schema.ts';

/** The ready profiles a device may name. */
export interface ProfileLibrary {
  list: readonly Profile[];
  byName(name: string): Profile | undefined;
}

/** The library of decode/profiles/library. */
export const LIBRARY: ProfileLibrary = { list: PROFILES, byName: profileByName };

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

/** Whether a profile derives a level from the device's mounting height. */
export const needsMountHeight = (p: Profile) => p.fields.some((f) => f.derive === 'mount-minus');

const kindWords = (kind: string) => kind.replace(/-/g, ' ');
const who = (o: PlacedDevice) => `device ${o.device.name ?? o.device.id} at site ${o.siteId}`;
const listed = (xs: readonly { path: string }[]) =>
  xs.length ? `the configured ones are ${xs.map((x) => x.path).join(', ')}` : 'none is configured';

/** The device's profile, resolved against the library (or the one written out in the configuration). */
export function profileOf(d: DeviceConfig, lib: ProfileLibrary): Profile | undefined {
  if (d.profile === undefined) return undefined;
  return typeof d.profile === 'string' ? lib.byName(d.profile) : d.profile;
}

/** What is wrong with a device's transport settings, each "field: words"; empty when nothing is. */
export function transportProblems(
  siteId: string,
  d: DeviceConfig,
  sites: readonly SiteConfig[],
  setup: FieldbusSetup = { modbus: [], sdi12: [] },
  lib: ProfileLibrary = LIBRARY,
): string[] {
  const others: PlacedDevice[] = sites.flatMap((s) => s.devices.map((device) => ({ siteId: s.id, device })));
  const t: DeviceTransport = d.transport ?? 'json';
  const words = TRANSPORT_WORDS[t];
  const set = (k: string) => (d as Record<string, unknown>)[k] !== undefined;
  if (t === 'json')
    return NATIVE_KEYS.filter(set).map(
      (k) => `${k}: only a device that connects through LoRaWAN, Modbus RTU or SDI-12 has this`,
    );
  const out: string[] = [];
  for (const k of ['devEui', 'modbus', 'sdi12'] as const)
    if (set(k) && !(TRANSPORT_KEYS[t] as readonly string[]).includes(k))
      out.push(`${k}: a ${words} device does not have this`);
  const elsewhere = others.filter((o) => !(o.siteId === siteId && o.device.id === d.id));
  const p = profileOf(d, lib);
  if (d.profile === undefined) out.push(`profile: choose the sensor profile of this ${words} device`);
  else if (!p) out.push(`profile: there is no sensor profile named "${d.profile}" in the list`);
  else {
    if (p.transport !== t)
      out.push(`profile: ${p.label} is a ${TRANSPORT_WORDS[p.transport]} sensor, not a ${words} one`);
    if (!p.kinds.includes(d.kind))
      out.push(
        `profile: ${p.label} cannot be a ${kindWords(d.kind)} (it is a ${p.kinds.map(kindWords).join(' or ')})`,
      );
    if (needsMountHeight(p) && d.mountHeightIn === undefined)
      out.push(
        `mountHeightIn: ${p.label} measures the distance down to the surface: give its height above the bottom, in inches`,
      );
  }
  if (t === 'lorawan') {
    if (!d.devEui) out.push("devEui: give the device's DevEUI (16 hexadecimal digits)");
    else {
      const taken = elsewhere.find((o) => o.device.devEui === d.devEui);
      if (taken) out.push(`devEui: ${who(taken)} already has this DevEUI`);
    }
  }
  if (t === 'modbus') {
    if (!d.modbus) out.push('modbus: give the bus it is on and its unit id');
    else if (!setup.modbus.some((b) => b.path === d.modbus!.bus))
      out.push(`modbus.bus: no Modbus bus ${d.modbus.bus} is configured (${listed(setup.modbus)})`);
    else {
      const m = d.modbus;
      const taken = elsewhere.find(
        (o) => o.device.modbus?.bus === m.bus && o.device.modbus.unitId === m.unitId,
      );
      if (taken) out.push(`modbus.unitId: unit ${m.unitId} on ${m.bus} is already ${who(taken)}`);
    }
  }
  if (t === 'sdi12') {
    if (!d.sdi12) out.push('sdi12: give the adapter it is on and its address');
    else if (!setup.sdi12.some((a) => a.path === d.sdi12!.port))
      out.push(`sdi12.port: no SDI-12 adapter ${d.sdi12.port} is configured (${listed(setup.sdi12)})`);
    else {
      const s = d.sdi12;
      const taken = elsewhere.find(
        (o) => o.device.sdi12?.port === s.port && o.device.sdi12.address === s.address,
      );
      if (taken) out.push(`sdi12.address: address ${s.address} on ${s.port} is already ${who(taken)}`);
    }
  }
  return out;
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
export function nativeAdded(siteId: string, d: DeviceConfig, lib: ProfileLibrary = LIBRARY): NativeAdded {
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
