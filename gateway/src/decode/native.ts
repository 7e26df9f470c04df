/**
 * The native transports' messages decoded: the transport's own decoder (native/) finds the device and
 * maps what it sent through the device's profile into the gateway's telemetry object; that object is
 * then checked exactly as a JSON message on MQTT is (the same schema, bounds, kinds and clock), so a
 * reading is the same whichever way it came. Pure.
 */
import { telemetryPayloadSchema } from '../../../shared/src/telemetry.ts';
import { type DecodeOptions, type DecodeResult, finish, zodRejection } from './decode.ts';
import { decodeLorawan } from './native/lorawan.ts';
import { decodeModbus } from './native/modbus.ts';
import { decodeSdi12 } from './native/sdi12.ts';
import type {
  NativeContext,
  NativeDecoder,
  NativeDevice,
  NativeMessage,
  NativeRegistry,
  NativeTransport,
} from './native/types.ts';

const DECODERS: Record<NativeTransport, NativeDecoder> = {
  lorawan: decodeLorawan,
  modbus: decodeModbus,
  sdi12: decodeSdi12,
};

/** Decodes a message of a native transport into a reading, or a reasoned rejection. */
export function decodeNative<D extends NativeDevice>(
  msg: NativeMessage,
  registry: NativeRegistry<D>,
  ctx: NativeContext<D>,
  opts: DecodeOptions,
): DecodeResult<D> {
  const decoded = DECODERS[msg.transport](msg, registry, ctx);
  if (!decoded.ok) return decoded;
  const { siteId, deviceId } = decoded.device;
  const parsed = telemetryPayloadSchema.safeParse(decoded.telemetry);
  if (!parsed.success) return zodRejection(parsed.error, siteId, deviceId);
  return finish(parsed.data, decoded.device, msg.receivedAt, msg.transport, opts);
}
