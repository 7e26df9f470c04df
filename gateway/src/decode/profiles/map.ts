/**
 * A profile's mapping applied: the values a transport read (one per field, by its `from`) become the
 * gateway's own telemetry object (`{ ts, seq, levelIn, alarms: { pump } … }`), which is then checked
 * exactly as a JSON message is (`decodeNative` in ../native.ts). Pure: the device's running tip count
 * (for a counter that wraps) is an argument.
 */
import { measureLabel } from '../../../../shared/src/api/measures.ts';
import type { Derivation, Profile, ProfileField } from './schema.ts';

/** A raw value as a transport read it: a number, a contact, absent (not in this message), or why not. */
export type RawValue = number | boolean | undefined | { error: string };

/** What a derivation needs of the device. */
export interface MappingDevice {
  /** The sensor's height above the bottom, for `mount-minus` (inches). */
  mountHeightIn?: number | undefined;
  /** Its kind, to name a reading in words ("Tank level" on a holding tank). */
  kind?: string | undefined;
}

/** The device's newest stored tip count, for a counter that wraps. */
export interface MappingContext {
  previousTips?: number | undefined;
}

export type Mapped =
  | { ok: true; telemetry: Record<string, unknown>; values: Record<string, number | boolean> }
  | { ok: false; detail: string };

const WRAP: Partial<Record<Derivation, number>> = { 'counter-16': 65_536, 'counter-32': 4_294_967_296 };

/**
 * The running count of a counter that wraps at `wrap`: the device's previous count with the raw value's
 * rise since its previous raw value added. A raw value below the previous one is a wrap when the
 * counter was in the top quarter of its range and is now in the bottom quarter (the rise counts on from
 * zero); any other drop is the device counting again from zero after a restart, so the tips since then
 * are added (the running count never goes back, and no impossible jump is made up).
 */
export function unwrapCounter(raw: number, wrap: number, previous: number | undefined): number {
  if (previous === undefined) return raw;
  const before = previous % wrap;
  if (raw >= before) return previous + raw - before;
  const wrapped = before >= (wrap * 3) / 4 && raw < wrap / 4;
  return previous + (wrapped ? wrap - before + raw : raw);
}

const round = (v: number) => Math.round(v * 1e6) / 1e6;

/** Applies a profile's fields to the values read; `read(field)` gives each raw value. */
export function mapFields<P extends Profile>(
  profile: P,
  read: (field: ProfileField<P>) => RawValue,
  device: MappingDevice,
  ctx: MappingContext = {},
): Mapped {
  const telemetry: Record<string, unknown> = {};
  const alarms: Record<string, boolean> = {};
  const values: Record<string, number | boolean> = {};
  for (const f of profile.fields as ProfileField<P>[]) {
    const raw = read(f);
    if (raw === undefined) continue;
    // People read these on the device's page: the reading by its name ("Tank level"), not its id.
    const name = measureLabel(f.reading, device.kind);
    if (typeof raw === 'object') return { ok: false, detail: `${name}: ${raw.error}` };
    if (f.reading.startsWith('alarms.')) {
      const on = typeof raw === 'boolean' ? raw : raw !== 0;
      const alarm = f.invert ? !on : on;
      alarms[f.reading.slice('alarms.'.length)] = alarm;
      values[f.reading] = alarm;
      continue;
    }
    if (typeof raw === 'boolean')
      return { ok: false, detail: `${name}: the device sent a contact (on or off), not a number` };
    if (!Number.isFinite(raw)) return { ok: false, detail: `${name}: the device sent no number (${raw})` };
    let v = raw * f.scale + f.offset;
    if (f.derive === 'mount-minus') {
      if (device.mountHeightIn === undefined)
        return {
          ok: false,
          detail: `${name}: the sensor's mounting height above the bottom is not set for this device`,
        };
      v = device.mountHeightIn - v;
    }
    const wrap = f.derive ? WRAP[f.derive] : undefined;
    if (wrap !== undefined) v = unwrapCounter(Math.round(v), wrap, ctx.previousTips);
    telemetry[f.reading] = round(v);
    values[f.reading] = round(v);
  }
  if (Object.keys(alarms).length) telemetry.alarms = alarms;
  return { ok: true, telemetry, values };
}

/**
 * The raw value a device sends for a numeric reading: `mapFields`'s arithmetic backwards, so a value the
 * gateway reads from it is `value` again (the simulators encode with it). A counter is sent as its
 * remainder at the wrap.
 */
export function unmapValue(
  f: Pick<ProfileField, 'scale' | 'offset' | 'derive'>,
  value: number,
  mountHeightIn?: number,
): number {
  let v = f.derive === 'mount-minus' ? (mountHeightIn ?? 0) - value : value;
  const wrap = f.derive ? WRAP[f.derive] : undefined;
  if (wrap !== undefined) v = Math.round(v) % wrap;
  return (v - f.offset) / f.scale;
}

/** Reads a number of `format` from `bytes` at `at` (bytes or registers as big-endian pairs). */
export function readNumber(
  bytes: Uint8Array,
  at: number,
  format: import('./schema.ts').NumberFormat,
  littleEndian = false,
): number | undefined {
  const size = format.endsWith('8') ? 1 : format.endsWith('16') ? 2 : 4;
  if (at < 0 || at + size > bytes.length) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset + at, size);
  switch (format) {
    case 'uint8':
      return view.getUint8(0);
    case 'int8':
      return view.getInt8(0);
    case 'uint16':
      return view.getUint16(0, littleEndian);
    case 'int16':
      return view.getInt16(0, littleEndian);
    case 'uint32':
      return view.getUint32(0, littleEndian);
    case 'int32':
      return view.getInt32(0, littleEndian);
    case 'float32':
      return view.getFloat32(0, littleEndian);
  }
}
