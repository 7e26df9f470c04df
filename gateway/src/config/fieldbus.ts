/**
 * The settings of the devices that do not speak the gateway's own JSON: how a device speaks (its
 * `transport`, `profile` and what the transport needs of it), the LoRaWAN network servers the gateway
 * subscribes to (`integrations`), the Modbus RTU buses it polls (`modbus`) and the SDI-12 adapters
 * (`sdi12`). docs/devices.md shows a configuration for each.
 */
import { z } from 'zod';
import { deviceTransportShape, profileName } from '../../../shared/src/fieldbus.ts';
import { profileSchema } from '../decode/profiles/schema.ts';

/** The fields a device's configuration adds for a native transport (shared with the API's bodies). */
export const deviceTransportFields = {
  ...deviceTransportShape,
  profile: z
    .union([profileName, profileSchema])
    .optional()
    .describe(
      'LoRaWAN, Modbus, SDI-12: the profile that maps what the device sends to readings, by name from the library (docs/devices.md), or written out.',
    ),
};

const fileTls = z.strictObject({
  caFile: z.string().optional().describe('PEM CA certificates to trust.'),
  certFile: z.string().optional().describe('PEM client certificate.'),
  keyFile: z.string().optional().describe('PEM client key.'),
});

const networkServer = (what: string, apps: string) =>
  z
    .strictObject({
      url: z
        .string()
        .regex(/^(mqtts?|tcp|ssl):\/\/[^/\s]+\/?$/, 'an mqtt:// or mqtts:// URL with a host and port')
        .describe(`${what}'s MQTT broker.`),
      username: z.string().optional().describe('The login name.'),
      password: z.string().optional().describe('The password (The Things Stack: an API key).'),
      clientId: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe('The MQTT client id (default `gateway-<gatewayId>-…`).'),
      tls: fileTls.optional().describe('TLS files, for mqtts://.'),
      applications: z.array(z.string().min(1).max(200)).min(1).describe(apps),
      qos: z
        .union([z.literal(0), z.literal(1)])
        .default(1)
        .describe('1: each uplink is acknowledged to the broker only after it is stored.'),
    })
    .optional();

export const integrationsSchema = z
  .strictObject({
    chirpstack: networkServer(
      'A ChirpStack v4 network server',
      'The application ids whose uplinks are taken (`application/<id>/device/+/event/up`).',
    ).describe('ChirpStack v4: the gateway subscribes to its MQTT integration.'),
    thingsStack: networkServer(
      'The Things Stack v3',
      'The application ids, as `<app>@<tenant>` (`v3/<app>@<tenant>/devices/+/up`; `ttn` is The Things Network).',
    ).describe(
      'The Things Stack v3 (The Things Network included): the gateway subscribes to its MQTT server.',
    ),
  })
  .prefault({})
  .describe('LoRaWAN network servers the gateway takes uplinks from.');

export const modbusSchema = z
  .array(
    z.strictObject({
      path: z.string().min(1).describe('The RS-485 adapter, e.g. /dev/ttyUSB0.'),
      baudRate: z.number().int().positive().default(9600).describe('Line speed.'),
      parity: z.enum(['none', 'even', 'odd']).default('none').describe('Parity.'),
      dataBits: z
        .union([z.literal(7), z.literal(8)])
        .default(8)
        .describe('Data bits.'),
      stopBits: z
        .union([z.literal(1), z.literal(2)])
        .default(1)
        .describe('Stop bits.'),
      timeoutMs: z
        .number()
        .int()
        .min(50)
        .max(10_000)
        .default(1000)
        .describe('How long a device has to answer.'),
    }),
  )
  .default([])
  .describe('Modbus RTU buses the gateway polls.');

export const sdi12Schema = z
  .array(
    z.strictObject({
      path: z.string().min(1).describe('The SDI-12 adapter, e.g. /dev/ttyUSB1.'),
      baudRate: z.number().int().positive().default(9600).describe("The adapter's line speed."),
    }),
  )
  .default([])
  .describe('SDI-12 adapters the gateway measures through.');
