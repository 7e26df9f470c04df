/**
 * The checks of a device that speaks LoRaWAN, Modbus RTU or SDI-12, against its profile and the rest of
 * the configuration: it has a profile, the profile exists and is for its transport and its kind and
 * gives only its kind's readings, a level measured down from the sensor has the sensor's height, a
 * LoRaWAN device has a DevEUI of its own, a Modbus or SDI-12 device sits on a configured bus or adapter
 * at an address of its own; what belongs to one transport is not set on another. Each issue has its path
 * (from the device) and its words. The configuration runs them at load (`configFieldbusIssues`, from
 * schema.ts); a device added live is checked alone (`deviceFieldbusIssues`).
 */
import { z } from 'zod';
import { DEVICE_KIND_LABELS, measureLabel } from '../../../shared/src/api/measures.ts';
import { type DeviceKind, FIELDS_BY_KIND } from '../../../shared/src/telemetry.ts';
import { TRANSPORT_WORDS } from '../../../shared/src/transportWords.ts';
import { isNative, type NativeTransport } from '../decode/native/types.ts';
import { type ProfileLibrary, profileLibrary } from '../decode/profiles/library/index.ts';
import { needsMountHeight, type Profile } from '../decode/profiles/schema.ts';
import { deviceTransportFields, type modbusSchema, type sdi12Schema } from './fieldbus.ts';

const transportShape = z.object(deviceTransportFields);

/** What the checks read of a device: its id and kind, and its transport fields (fieldbus.ts). */
export type FieldbusDevice = { id: string; kind: DeviceKind } & z.infer<typeof transportShape>;

/** The configuration the checks look a device up in: every site's devices, the buses and the adapters. */
export interface FieldbusPlaces {
  sites: ReadonlyArray<{ id: string; devices: readonly FieldbusDevice[] }>;
  modbus: ReadonlyArray<Pick<z.infer<typeof modbusSchema>[number], 'path'>>;
  sdi12: ReadonlyArray<Pick<z.infer<typeof sdi12Schema>[number], 'path'>>;
}

/** One problem of a device: the path from the device (`['modbus', 'bus']`) and what is wrong, in words. */
export interface FieldbusIssue {
  path: Array<string | number>;
  message: string;
}

/** Who already holds an address (a DevEUI, a unit on a bus, a sensor on an adapter), if anyone does. */
type Holder = (key: string) => { siteId: string; deviceId: string } | undefined;

const A_DEVICE: Record<NativeTransport, string> = {
  lorawan: 'A LoRaWAN device',
  modbus: 'A Modbus RTU device',
  sdi12: 'An SDI-12 device',
};

const ALWAYS = new Set<string>(['batteryV', 'rssi']);

const kindWords = (k: DeviceKind) => DEVICE_KIND_LABELS[k].toLowerCase();
const list = (items: readonly string[], and = 'and') =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} ${and} ${items.at(-1)}`;
const held = (h: { siteId: string; deviceId: string }) => `device "${h.deviceId}" of site "${h.siteId}"`;

/** The keys that must be unique among devices: a DevEUI, a unit on a bus, a sensor on an adapter. */
const keys = {
  devEui: (eui: string) => `lorawan\u0000${eui.toLowerCase()}`,
  unit: (bus: string, unitId: number) => `modbus\u0000${bus}\u0000${unitId}`,
  sensor: (port: string, address: string) => `sdi12\u0000${port}\u0000${address}`,
};

function keysOf(d: FieldbusDevice): string[] {
  if (d.transport === 'lorawan' && d.devEui) return [keys.devEui(d.devEui)];
  if (d.transport === 'modbus' && d.modbus) return [keys.unit(d.modbus.bus, d.modbus.unitId)];
  if (d.transport === 'sdi12' && d.sdi12) return [keys.sensor(d.sdi12.port, d.sdi12.address)];
  return [];
}

/**
 * The issues of one device of `site`, checked against `places` (its own entry there, if any, is not a
 * clash): what the admin API asks of a device added or changed live. Paths are from the device.
 */
export function deviceFieldbusIssues(
  places: FieldbusPlaces,
  site: { id: string },
  device: FieldbusDevice,
  lib: ProfileLibrary = profileLibrary,
): FieldbusIssue[] {
  const taken = new Map<string, { siteId: string; deviceId: string }>();
  for (const s of places.sites)
    for (const d of s.devices) {
      if (s.id === site.id && d.id === device.id) continue;
      for (const k of keysOf(d)) if (!taken.has(k)) taken.set(k, { siteId: s.id, deviceId: d.id });
    }
  return checkDevice(places, device, (k) => taken.get(k), lib);
}

/**
 * Every device's issues in a configuration, each at its full path (`sites[i].devices[j]…`); an address
 * held twice is reported at the later device.
 */
export function configFieldbusIssues(
  places: FieldbusPlaces,
  lib: ProfileLibrary = profileLibrary,
): FieldbusIssue[] {
  const taken = new Map<string, { siteId: string; deviceId: string }>();
  const found: FieldbusIssue[] = [];
  places.sites.forEach((s, i) => {
    s.devices.forEach((d, j) => {
      for (const issue of checkDevice(places, d, (k) => taken.get(k), lib))
        found.push({ path: ['sites', i, 'devices', j, ...issue.path], message: issue.message });
      for (const k of keysOf(d)) if (!taken.has(k)) taken.set(k, { siteId: s.id, deviceId: d.id });
    });
  });
  return found;
}

function checkDevice(
  places: FieldbusPlaces,
  d: FieldbusDevice,
  holder: Holder,
  lib: ProfileLibrary,
): FieldbusIssue[] {
  const out: FieldbusIssue[] = [];
  const add = (path: Array<string | number>, message: string) => out.push({ path, message });
  const t = d.transport;
  if (d.devEui !== undefined && t !== 'lorawan')
    add(['devEui'], 'Only a LoRaWAN device has a DevEUI (transport: lorawan).');
  if (d.modbus !== undefined && t !== 'modbus')
    add(['modbus'], 'Only a Modbus RTU device has a place on a Modbus bus (transport: modbus).');
  if (d.sdi12 !== undefined && t !== 'sdi12')
    add(['sdi12'], 'Only an SDI-12 device has a place on an SDI-12 adapter (transport: sdi12).');
  if (t === undefined || !isNative(t)) {
    if (d.profile !== undefined)
      add(
        ['profile'],
        'Only a LoRaWAN, Modbus RTU or SDI-12 device has a sensor profile: set how it connects, or remove the profile.',
      );
    return out;
  }
  out.push(...profileIssues(d, t, lib));
  if (t === 'lorawan') {
    if (d.devEui === undefined)
      add(
        ['devEui'],
        'A LoRaWAN device needs its DevEUI: the 16 hexadecimal digits on its label and in its network server.',
      );
    else {
      const h = holder(keys.devEui(d.devEui));
      if (h) add(['devEui'], `The DevEUI ${d.devEui.toUpperCase()} already belongs to ${held(h)}.`);
    }
  }
  if (t === 'modbus') {
    if (d.modbus === undefined)
      add(['modbus'], 'A Modbus RTU device needs the bus it is wired to and its unit id.');
    else if (!places.modbus.some((b) => b.path === d.modbus?.bus))
      add(['modbus', 'bus'], notConfigured('Modbus bus', d.modbus.bus, places.modbus, 'modbus'));
    else {
      const h = holder(keys.unit(d.modbus.bus, d.modbus.unitId));
      if (h) add(['modbus', 'unitId'], `Unit ${d.modbus.unitId} on ${d.modbus.bus} is already ${held(h)}.`);
    }
  }
  if (t === 'sdi12') {
    if (d.sdi12 === undefined)
      add(['sdi12'], 'An SDI-12 device needs the adapter it is wired to and its address.');
    else if (!places.sdi12.some((a) => a.path === d.sdi12?.port))
      add(['sdi12', 'port'], notConfigured('SDI-12 adapter', d.sdi12.port, places.sdi12, 'sdi12'));
    else {
      const h = holder(keys.sensor(d.sdi12.port, d.sdi12.address));
      if (h)
        add(['sdi12', 'address'], `Address ${d.sdi12.address} on ${d.sdi12.port} is already ${held(h)}.`);
    }
  }
  return out;
}

function notConfigured(what: string, path: string, known: ReadonlyArray<{ path: string }>, key: string) {
  const have = known.length
    ? `the configured ones are ${list(known.map((k) => k.path))}`
    : `none is configured (add it under ${key})`;
  return `There is no ${what} ${path}: ${have}.`;
}

/** The profile: given, found, for the device's transport and kind, with only the kind's readings. */
function profileIssues(d: FieldbusDevice, t: NativeTransport, lib: ProfileLibrary): FieldbusIssue[] {
  const out: FieldbusIssue[] = [];
  const add = (path: Array<string | number>, message: string) => out.push({ path, message });
  const words = TRANSPORT_WORDS[t];
  if (d.profile === undefined) {
    add(
      ['profile'],
      `${A_DEVICE[t]} needs a sensor profile: one from the library, or one written out in the configuration file.`,
    );
    return out;
  }
  const named = typeof d.profile === 'string';
  const p: Profile | undefined = typeof d.profile === 'string' ? lib.byName(d.profile) : d.profile;
  if (p === undefined) {
    const names = lib.list.filter((q) => q.transport === t).map((q) => q.name);
    const have = names.length
      ? `the library's ${words} profiles are ${list(names)}`
      : `the library has no ${words} profile: write it out in the device's configuration`;
    add(['profile'], `There is no profile named "${String(d.profile)}" in the library: ${have}.`);
    return out;
  }
  const at = (...rest: Array<string | number>) => (named ? ['profile'] : ['profile', ...rest]);
  // A library profile is named by its sensor, as the forms list it.
  const called = named ? p.label : 'This profile';
  const inside = named ? p.label : 'this profile';
  if (p.transport !== t) {
    add(
      at('transport'),
      `${called} is for ${TRANSPORT_WORDS[p.transport]} devices, and this device speaks ${words}.`,
    );
    return out;
  }
  if (!p.kinds.includes(d.kind))
    add(
      named ? ['kind'] : ['profile', 'kinds'],
      `${called} is for ${list(
        p.kinds.map((k) => `a ${kindWords(k)}`),
        'or',
      )}, not a ${kindWords(d.kind)}.`,
    );
  const allowed = FIELDS_BY_KIND[d.kind];
  p.fields.forEach((f, k) => {
    const alarm = f.reading.startsWith('alarms.');
    if (alarm ? allowed.includes('alarms') : ALWAYS.has(f.reading) || allowed.includes(f.reading as never))
      return;
    const what = measureLabel(f.reading, d.kind).toLowerCase();
    add(
      at('fields', k, 'reading'),
      alarm
        ? `A ${kindWords(d.kind)} has no alarm inputs: ${inside} gives the ${what} (${f.reading}).`
        : `A ${kindWords(d.kind)} does not report the ${what} (${f.reading}), which ${inside} gives.`,
    );
  });
  if (d.mountHeightIn === undefined && needsMountHeight(p))
    add(
      ['mountHeightIn'],
      `${called} measures the distance down to the surface: give the sensor's mounting height above the bottom, in inches.`,
    );
  return out;
}
