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
      "LoRaWAN, Modbus, SDI-12 (required): how what the device sends becomes readings. The name of a profile in the gateway's library, or a profile written out here for a sensor the library lacks (docs/devices.md#device-profiles).",
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
      path: z
        .string()
        .min(1)
        .describe(
          "The RS-485 adapter's serial port, e.g. /dev/ttyUSB0 (a /dev/serial/by-id/… name stays the same when adapters are replugged). Devices name it in `modbus.bus`.",
        ),
      baudRate: z
        .number()
        .int()
        .positive()
        .default(9600)
        .describe('Line speed in bits per second, as set on every device of the bus.'),
      parity: z
        .enum(['none', 'even', 'odd'])
        .default('none')
        .describe('Parity, as set on every device of the bus.'),
      dataBits: z
        .union([z.literal(7), z.literal(8)])
        .default(8)
        .describe('Data bits, as set on every device of the bus.'),
      stopBits: z
        .union([z.literal(1), z.literal(2)])
        .default(1)
        .describe('Stop bits, as set on every device of the bus.'),
      timeoutMs: z
        .number()
        .int()
        .min(50)
        .max(10_000)
        .default(1000)
        .describe('How long a device has to answer a read, in milliseconds.'),
    }),
  )
  .default([])
  .describe(
    'Modbus RTU buses the gateway reads: one for each RS-485 adapter, with the line settings its devices use (docs/devices.md).',
  );

export const sdi12Schema = z
  .array(
    z.strictObject({
      path: z
        .string()
        .min(1)
        .describe("The SDI-12 adapter's serial port, e.g. /dev/ttyUSB1. Sensors name it in `sdi12.port`."),
      baudRate: z
        .number()
        .int()
        .positive()
        .default(9600)
        .describe(
          "The speed of the adapter's own serial port, from its manual (the SDI-12 wires themselves always run at 1200).",
        ),
      timeoutMs: z
        .number()
        .int()
        .min(100)
        .max(10_000)
        .default(1500)
        .describe(
          "How long the adapter has to bring a sensor's answer (its break and the bus's own retries included).",
        ),
    }),
  )
  .default([])
  .describe(
    'SDI-12 adapters the gateway measures sensors through: one for each adapter, its sensors wired to it (docs/devices.md).',
  );
