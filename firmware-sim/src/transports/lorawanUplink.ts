/**
 * A simulated LoRaWAN device's uplink as its network server publishes it: the device's telemetry encoded
 * through its profile (the inverse of the gateway's mapping) into the frame's bytes and the codec's decoded
 * object, then wrapped in the documented JSON of ChirpStack v4 (`application/{applicationId}/device/
 * {devEui}/event/up`) or The Things Stack v3 (`v3/{app}@{tenant}/devices/{deviceId}/up`). Pure.
 */
import { randomUUID } from 'node:crypto';
import { unmapValue } from '../../../gateway/src/decode/profiles/map.ts';
import type { LorawanProfile } from '../../../gateway/src/decode/profiles/schema.ts';
import type { TelemetryPayload } from '../../../shared/src/telemetry.ts';

export type NetworkServerKind = 'chirpstack' | 'things-stack';

/** What the network server knows of the device and the frame. */
export interface UplinkFrame {
  devEui: string;
  deviceName: string;
  /** ChirpStack: the application id; The Things Stack: `<app>@<tenant>`. */
  application: string;
  fCnt: number;
  fPort: number;
  /** The network server's time of the frame, epoch ms. */
  time: number;
  frame: Uint8Array;
  object: Record<string, unknown>;
}

const SIZES = { uint8: 1, int8: 1, uint16: 2, int16: 2, uint32: 4, int32: 4, float32: 4 } as const;

function readingOf(t: TelemetryPayload, reading: string): number | boolean | undefined {
  if (reading.startsWith('alarms.'))
    return t.alarms?.[reading.slice(7) as keyof NonNullable<typeof t.alarms>];
  return t[reading as keyof TelemetryPayload] as number | undefined;
}

/**
 * The frame (on the profile's port) and the decoded object that give `telemetry` back through `profile`;
 * `mountHeightIn` for a level measured as a distance down.
 */
export function encodeThroughProfile(
  profile: LorawanProfile,
  telemetry: TelemetryPayload,
  mountHeightIn?: number,
): { fPort: number; frame: Uint8Array; object: Record<string, unknown> } {
  let fPort = 1;
  let size = 0;
  for (const f of profile.fields)
    if ('byte' in f.from) {
      size = Math.max(size, f.from.byte + SIZES[f.from.format]);
      if (f.from.fPort !== undefined) fPort = f.from.fPort;
    }
  const frame = new Uint8Array(size);
  const view = new DataView(frame.buffer);
  const object: Record<string, unknown> = {};
  for (const f of profile.fields) {
    const v = readingOf(telemetry, f.reading);
    if (v === undefined) continue;
    let raw: number;
    if (typeof v === 'boolean') raw = (f.invert ? !v : v) ? 1 : 0;
    else raw = Math.round(unmapValue(f, v, mountHeightIn));
    if ('path' in f.from) {
      const keys = f.from.path.split('.');
      let at = object;
      for (const k of keys.slice(0, -1)) {
        if (typeof at[k] !== 'object' || at[k] === null) at[k] = {};
        at = at[k] as Record<string, unknown>;
      }
      at[keys.at(-1)!] = typeof v === 'boolean' ? raw === 1 : raw;
      continue;
    }
    const { byte, format, byteOrder, bit } = f.from;
    const little = byteOrder === 'little';
    if (bit !== undefined) {
      frame[byte] = (frame[byte]! & ~(1 << bit)) | ((raw & 1) << bit);
      continue;
    }
    if (format === 'uint8') view.setUint8(byte, raw);
    else if (format === 'int8') view.setInt8(byte, raw);
    else if (format === 'uint16') view.setUint16(byte, raw, little);
    else if (format === 'int16') view.setInt16(byte, raw, little);
    else if (format === 'uint32') view.setUint32(byte, raw >>> 0, little);
    else if (format === 'int32') view.setInt32(byte, raw, little);
    else view.setFloat32(byte, raw, little);
    object[f.reading] = v;
  }
  return { fPort, frame, object };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The topic and JSON ChirpStack v4 publishes for an uplink (its JSON marshaler). */
export function chirpstackUplink(u: UplinkFrame, gateways = 1): { topic: string; payload: string } {
  const payload = {
    deduplicationId: randomUUID(),
    time: iso(u.time),
    deviceInfo: {
      tenantId: '52f14cd4-c6f1-4fbd-8f87-4025e1d49242',
      tenantName: 'ChirpStack',
      applicationId: u.application,
      applicationName: 'Town sensors',
      deviceProfileId: '14855bf7-d10d-4aee-b618-ebfcb64dc7ad',
      deviceProfileName: 'Sensors',
      deviceName: u.deviceName,
      devEui: u.devEui,
      deviceClassEnabled: 'CLASS_A',
      tags: {},
    },
    devAddr: '00189440',
    adr: true,
    dr: 3,
    fCnt: u.fCnt,
    fPort: u.fPort,
    confirmed: false,
    data: Buffer.from(u.frame).toString('base64'),
    object: u.object,
    rxInfo: Array.from({ length: gateways }, (_, i) => ({
      gatewayId: `0016c001f153a1${(0x4c + i).toString(16)}`,
      uplinkId: 4217106255 + i,
      nsTime: iso(u.time),
      rssi: -92 - 8 * i,
      snr: 7.5 - 3 * i,
      channel: 4,
      location: {},
      context: 'E3OWOQ==',
      metadata: { region_config_id: 'us915_1', region_common_name: 'US915' },
      crcStatus: 'CRC_OK',
    })),
    txInfo: {
      frequency: 904300000,
      modulation: { lora: { bandwidth: 125000, spreadingFactor: 7, codeRate: 'CR_4_5' } },
    },
    regionConfigId: 'us915_1',
  };
  return {
    topic: `application/${u.application}/device/${u.devEui}/event/up`,
    payload: JSON.stringify(payload),
  };
}

/** The topic and JSON The Things Stack v3 publishes for an uplink (it leaves out zeros and empties). */
export function thingsStackUplink(u: UplinkFrame): { topic: string; payload: string } {
  const [app] = u.application.split('@');
  const message: Record<string, unknown> = {
    session_key_id: 'AY9Q2bRr3Bq1pXz0Uq8vKw==',
    f_port: u.fPort,
    ...(u.fCnt ? { f_cnt: u.fCnt } : {}),
    frm_payload: Buffer.from(u.frame).toString('base64'),
    decoded_payload: u.object,
    rx_metadata: [
      {
        gateway_ids: { gateway_id: 'town-hall-roof', eui: 'B827EBFFFE8B0A12' },
        time: iso(u.time),
        rssi: -92,
        channel_rssi: -92,
        snr: 7.5,
        channel_index: 4,
        received_at: iso(u.time),
      },
    ],
    settings: {
      data_rate: { lora: { bandwidth: 125000, spreading_factor: 7, coding_rate: '4/5' } },
      frequency: '904300000',
      time: iso(u.time),
    },
    received_at: iso(u.time),
    consumed_airtime: '0.046336s',
  };
  const payload = {
    end_device_ids: {
      device_id: u.deviceName,
      application_ids: { application_id: app },
      dev_eui: u.devEui.toUpperCase(),
      join_eui: 'A840410000000101',
      dev_addr: '260C2B7F',
    },
    correlation_ids: [`as:up:${randomUUID()}`],
    received_at: iso(u.time + 20),
    uplink_message: message,
  };
  return { topic: `v3/${u.application}/devices/${u.deviceName}/up`, payload: JSON.stringify(payload) };
}
