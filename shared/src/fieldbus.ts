/**
 * What a device of a native transport (LoRaWAN, Modbus RTU, SDI-12) adds to its settings: how it speaks,
 * its profile's name, its DevEUI, where it sits on a Modbus bus or an SDI-12 adapter, its mounting height.
 * One schema for the configuration file (gateway/src/config/fieldbus.ts) and the administrators' API and
 * forms (admin.ts). The words people read: transportWords.ts, connectionWords.ts.
 */
import { z } from 'zod';
import { DEVICE_TRANSPORTS } from './api/deviceLink.ts';

export { connectionText, everyText } from './connectionWords.ts';
export { TRANSPORT_WORDS } from './transportWords.ts';
export { DEVICE_TRANSPORTS };
export type DeviceTransport = (typeof DEVICE_TRANSPORTS)[number];

/** A profile of the library, by name. */
export const profileName = z
  .string()
  .max(64)
  .regex(/^[a-z0-9][a-z0-9-]{1,62}$/, 'a sensor profile of the list (lower-case letters, digits and dashes)');

export const transportField = z
  .enum(DEVICE_TRANSPORTS)
  .describe(
    "How the device talks to the gateway: `json` (the gateway's own JSON over MQTT or serial, the default), `lorawan` (radio, through a LoRaWAN network server), `modbus` (Modbus RTU, wired to an RS-485 bus the gateway reads) or `sdi12` (wired to an SDI-12 adapter the gateway measures through).",
  );

export const devEuiField = z
  .string()
  .max(16)
  .regex(/^[0-9A-Fa-f]{16}$/, '16 hexadecimal digits')
  .transform((s) => s.toLowerCase())
  .describe(
    "LoRaWAN (required): the device's DevEUI, the 16 hexadecimal digits on its label and in the network server; no two devices share one.",
  );

export const mountHeightInField = z
  .number()
  .positive('more than 0 in')
  .max(600, 'at most 600 in')
  .describe(
    "Level sensors that measure the distance down to the water (required when the profile says `derive: mount-minus`): the height of the sensor's face above the bottom of the tank or basin, in inches.",
  );

export const modbusPlacement = z
  .strictObject({
    bus: z
      .string()
      .min(1, 'the bus it is on')
      .max(200)
      .describe('The bus it is wired to: the `path` of one of the buses listed under `modbus`.'),
    unitId: z
      .number()
      .int('a whole number')
      .min(1, 'from 1 to 247')
      .max(247, 'from 1 to 247')
      .describe(
        "The device's unit id on the bus (also called its slave address or station number), as set on the device; no two devices on a bus share one.",
      ),
    pollSeconds: z
      .number()
      .int('a whole number of seconds')
      .min(1, 'at least 1 s')
      .max(86_400, 'at most a day')
      .default(60)
      .describe('How often the gateway reads it, in seconds.'),
  })
  .describe('Modbus RTU (required): the bus the device is wired to, its unit id, and how often it is read.');

export const sdi12Placement = z
  .strictObject({
    port: z
      .string()
      .min(1, 'the adapter it is on')
      .max(200)
      .describe('The adapter it is wired to: the `path` of one of the adapters listed under `sdi12`.'),
    address: z
      .string()
      .max(1)
      .regex(/^[0-9A-Za-z]$/, 'one character: 0-9, A-Z or a-z')
      .describe(
        "The sensor's SDI-12 address, one character (`0` as it leaves the factory); no two sensors on an adapter share one.",
      ),
    pollSeconds: z
      .number()
      .int('a whole number of seconds')
      .min(10, 'at least 10 s')
      .max(86_400, 'at most a day')
      .default(300)
      .describe('How often the gateway measures it, in seconds.'),
  })
  .describe(
    'SDI-12 (required): the adapter the sensor is wired to, its address, and how often it is measured.',
  );

/** The fields a device's body or configuration adds for a native transport (the profile apart). */
export const deviceTransportShape = {
  transport: transportField.optional(),
  devEui: devEuiField.optional(),
  mountHeightIn: mountHeightInField.optional(),
  modbus: modbusPlacement.optional(),
  sdi12: sdi12Placement.optional(),
};

/** The fields of one transport, and those every native transport has. */
export const TRANSPORT_KEYS = {
  json: [],
  lorawan: ['devEui'],
  modbus: ['modbus'],
  sdi12: ['sdi12'],
} as const satisfies Record<DeviceTransport, readonly string[]>;
/** What a device of a native transport keeps only while it speaks one. */
export const NATIVE_KEYS = ['profile', 'devEui', 'modbus', 'sdi12', 'mountHeightIn'] as const;
