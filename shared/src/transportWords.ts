/**
 * Each way a device connects, in words people read (a select, a change record). Kept apart from the
 * schemas (fieldbus.ts) and from the longer sentences (connectionWords.ts), so the dashboard's first
 * bundle carries only these few words.
 */
import type { DEVICE_TRANSPORTS } from './api/deviceLink.ts';

type DeviceTransport = (typeof DEVICE_TRANSPORTS)[number];

/** Each transport in words, for a select. */
export const TRANSPORT_WORDS: Record<DeviceTransport, string> = {
  json: "MQTT (the gateway's own JSON)",
  lorawan: 'LoRaWAN',
  modbus: 'Modbus RTU',
  sdi12: 'SDI-12',
};
