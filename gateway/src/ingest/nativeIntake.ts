/**
 * The ingest stage's part for the native transports (LoRaWAN, Modbus, SDI-12): a raw message decoded by
 * its transport's decoder (a native one given the device's profile and its newest tip count, for a
 * counter that wraps), and each native message recorded on its device's link (`DeviceLinks`) as it came,
 * with what came of it.
 */
import type { DeviceInfo, DeviceRegistry } from '../config/registry.ts';
import {
  type DecodeOptions,
  type DecodeResult,
  decodeMqttTelemetry,
  decodeSerialLine,
} from '../decode/decode.ts';
import { isNative, type NativeContext } from '../decode/native/types.ts';
import { decodeNative } from '../decode/native.ts';
import { type ProfileLibrary, profileLibrary, resolveProfile } from '../decode/profiles/library/index.ts';
import type { RawMessage } from '../pipeline.ts';
import { DeviceLinks } from './deviceLinks.ts';
import type { DeviceStates } from './deviceStates.ts';
import type { Settle } from './groupCommit.ts';

export class NativeIntake {
  /** How each device of a native transport was heard (its inputs and the stage record into it). */
  readonly links = new DeviceLinks();

  constructor(
    private readonly registry: DeviceRegistry,
    private readonly states: Pick<DeviceStates, 'get'>,
    private readonly profiles: ProfileLibrary = profileLibrary,
  ) {}

  /** A message decoded by its transport's decoder. */
  decode(
    msg: Pick<RawMessage, 'transport' | 'topic' | 'payload' | 'receivedAt'>,
    opts: DecodeOptions,
  ): DecodeResult<DeviceInfo> {
    const { transport } = msg;
    if (transport === 'mqtt')
      return decodeMqttTelemetry(msg.topic, msg.payload, msg.receivedAt, this.registry, opts);
    if (isNative(transport)) return decodeNative({ ...msg, transport }, this.registry, this.native, opts);
    const line = typeof msg.payload === 'string' ? msg.payload : msg.payload.toString('utf8');
    return decodeSerialLine(line, msg.receivedAt, this.registry, opts);
  }

  /**
   * The settle of a message: a native transport's message of a registered device is recorded on its
   * link once its outcome is known; any other message is settled as it was.
   */
  settle(msg: RawMessage, decoded: DecodeResult<DeviceInfo>, done: Settle): Settle {
    return isNative(msg.transport) ? this.heard(msg, decoded, done) : done;
  }

  /** A native transport's message: its device's link records it as it came, and what came of it. */
  private heard(msg: RawMessage, decoded: DecodeResult<DeviceInfo>, done: Settle): Settle {
    const siteId = decoded.ok ? decoded.reading.siteId : decoded.siteId;
    const deviceId = decoded.ok ? decoded.reading.deviceId : decoded.deviceId;
    if (siteId === undefined || deviceId === undefined || !this.registry.lookup(siteId, deviceId))
      return done;
    const raw = typeof msg.payload === 'string' ? msg.payload : msg.payload.toString('utf8');
    const values: Record<string, number | boolean> = {};
    if (decoded.ok) {
      Object.assign(values, decoded.reading.values);
      for (const [k, v] of Object.entries(decoded.reading.alarms ?? {})) values[`alarms.${k}`] = v;
    }
    return (err, res) => {
      if (!err && res && res.status !== 'ignored')
        this.links.heard(siteId, deviceId, {
          at: msg.receivedAt,
          raw,
          outcome: res.status,
          values,
          ...(res.status === 'rejected' || res.status === 'quarantined' ? { detail: res.detail } : {}),
        });
      done(err, res);
    };
  }

  /** What a native decoder is given: the device's profile, and its newest tip count (a counter that wraps). */
  private readonly native: NativeContext<DeviceInfo> = {
    profileOf: (d) => resolveProfile(d.device.profile, this.profiles),
    mapping: (d) => {
      const tips = this.states.get(d.siteId, d.deviceId)?.latest.rainTips?.value;
      return typeof tips === 'number' ? { previousTips: tips } : {};
    },
  };
}
