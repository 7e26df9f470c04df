/**
 * What every native decoder (a LoRaWAN uplink, a Modbus poll, an SDI-12 measurement) shares: the message
 * as its input received it, the device it finds, and the telemetry object its profile maps it to. The
 * object is then checked exactly as a JSON message is (`../native.ts`). Pure.
 */
import type { DecodeDevice, DecodeRegistry, Rejection } from '../decode.ts';
import type { MappingContext } from '../profiles/map.ts';
import type { Profile } from '../profiles/schema.ts';

export const NATIVE_TRANSPORTS = ['lorawan', 'modbus', 'sdi12'] as const;
export type NativeTransport = (typeof NATIVE_TRANSPORTS)[number];

export const isNative = (t: string): t is NativeTransport =>
  (NATIVE_TRANSPORTS as readonly string[]).includes(t);

/** A message of a native transport, as its input hands it over. */
export interface NativeMessage {
  transport: NativeTransport;
  /**
   * LoRaWAN: the network server's topic. Modbus, SDI-12: `modbus:<siteId>/<deviceId>`,
   * `sdi12:<siteId>/<deviceId>` (the poller knows its device).
   */
  topic: string;
  /**
   * LoRaWAN: the uplink's JSON as the network server published it. Modbus: the poll's JSON
   * (`ModbusPoll` in modbus.ts). SDI-12: the measurement's JSON (`Sdi12Measurement` in sdi12.ts).
   */
  payload: Buffer | string;
  receivedAt: number;
}

/** A device that speaks a native transport: its configuration names its profile and what it needs. */
export interface NativeDevice extends DecodeDevice {
  device: DecodeDevice['device'] & {
    transport?: string | undefined;
    devEui?: string | undefined;
    mountHeightIn?: number | undefined;
  };
}

/** Where a native decoder finds a device: by site and device, and by DevEUI (LoRaWAN). */
export interface NativeRegistry<D extends NativeDevice> extends DecodeRegistry<D> {
  byDevEui(devEui: string): D | undefined;
}

/** What a decoder is given besides the message: the device's profile and its running tip count. */
export interface NativeContext<D extends NativeDevice> {
  profileOf(device: D): Profile | undefined;
  mapping(device: D): MappingContext;
}

export type NativeDecoded<D extends NativeDevice> =
  | { ok: true; device: D; telemetry: Record<string, unknown> }
  | Rejection;

export type NativeDecoder = <D extends NativeDevice>(
  msg: NativeMessage,
  registry: NativeRegistry<D>,
  ctx: NativeContext<D>,
) => NativeDecoded<D>;
