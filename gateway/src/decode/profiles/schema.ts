/**
 * Device profiles as data: how a sensor that does not speak the gateway's own JSON (a LoRaWAN uplink, a
 * Modbus RTU register map, an SDI-12 measurement) gives the gateway's readings. A profile names its
 * transport, the maker's document it follows, and one mapping per reading: where the value is in what
 * the device sends (`from`, per transport), its scale and offset, and what is derived from it (a level
 * from the sensor's mounting height, a tip counter that wraps). Checked with zod when the configuration
 * loads; the library of ready profiles is in `library/`. Pure.
 */
import { z } from 'zod';
import { ALARM_NAMES, DEVICE_KINDS, READING_NAMES } from '../../../../shared/src/telemetry.ts';

/** How a number sits in bytes or registers. */
export const NUMBER_FORMATS = ['uint8', 'int8', 'uint16', 'int16', 'uint32', 'int32', 'float32'] as const;
export type NumberFormat = (typeof NUMBER_FORMATS)[number];
/** The formats a register (or two) holds: every one but the single bytes. */
export const REGISTER_FORMATS = ['uint16', 'int16', 'uint32', 'int32', 'float32'] as const;

/** Where a reading goes: one of the gateway's readings, or one alarm input (`alarms.pump`). */
export const PROFILE_TARGETS = [...READING_NAMES, ...ALARM_NAMES.map((a) => `alarms.${a}` as const)] as const;
export type ProfileTarget = (typeof PROFILE_TARGETS)[number];

/**
 * What is derived from the value once scaled:
 * - `mount-minus`: the sensor measures the distance down to the surface; the level is the device's
 *   `mountHeightIn` (the sensor's height above the bottom) minus it;
 * - `counter-16`: a 16-bit tip counter that wraps at 65,536: added to the device's running count;
 * - `counter-32`: the same for a 32-bit counter.
 */
export const DERIVATIONS = ['mount-minus', 'counter-16', 'counter-32'] as const;
export type Derivation = (typeof DERIVATIONS)[number];

const scaling = {
  scale: z.number().finite().default(1).describe('The raw value is multiplied by this…'),
  offset: z.number().finite().default(0).describe('…and this is added.'),
  derive: z.enum(DERIVATIONS).optional().describe('What is derived from the scaled value.'),
  invert: z
    .boolean()
    .default(false)
    .describe('Alarms: the contact is normally closed (0 or false means the alarm).'),
};

/** A value of a LoRaWAN uplink: a path in the network server's decoded object, or bytes of the frame. */
export const lorawanSourceSchema = z.union([
  z.strictObject({
    path: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/, 'a dot path such as `distance` or `battery.voltage`')
      .describe(
        "A dot path in the codec's decoded object (ChirpStack `object`, The Things Stack `decoded_payload`).",
      ),
  }),
  z.strictObject({
    byte: z.number().int().min(0).max(241).describe('The first byte of the value in the frame payload.'),
    format: z.enum(NUMBER_FORMATS).describe('How the value sits in the bytes.'),
    byteOrder: z.enum(['big', 'little']).default('big').describe('Byte order (big-endian by default).'),
    bit: z.number().int().min(0).max(31).optional().describe('One bit of it (an alarm contact).'),
    fPort: z.number().int().min(1).max(223).optional().describe('Only frames on this port carry it.'),
  }),
]);

/** A value of a Modbus RTU device: a register (or two), a coil or a discrete input. */
export const modbusSourceSchema = z.strictObject({
  table: z
    .enum(['holding', 'input', 'coil', 'discrete'])
    .describe('Holding register (function 3), input register (4), coil (1) or discrete input (2).'),
  address: z.number().int().min(0).max(65535).describe('The zero-based address on the wire.'),
  format: z
    .enum(REGISTER_FORMATS)
    .default('uint16')
    .describe('Registers: one 16-bit register, or two for a 32-bit value.'),
  wordOrder: z
    .enum(['high-first', 'low-first'])
    .default('high-first')
    .describe('32-bit values: which register holds the high word.'),
  bit: z.number().int().min(0).max(15).optional().describe('Registers: one bit of it (an alarm flag).'),
});

/** A value of an SDI-12 measurement: its position in the values the sensor returns. */
export const sdi12SourceSchema = z.strictObject({
  index: z
    .number()
    .int()
    .min(1)
    .max(99)
    .describe('The position of the value among those `aD0!`, `aD1!`, … return, counted from 1.'),
});

const field = <S extends z.ZodType>(from: S) =>
  z.strictObject({
    reading: z.enum(PROFILE_TARGETS).describe('The reading, or `alarms.<input>`.'),
    from: from.describe('Where the value is in what the device sends.'),
    ...scaling,
  });

const common = {
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{1,62}$/, 'lower-case letters, digits and dashes')
    .describe('How a device names the profile.'),
  label: z.string().min(1).max(200).describe('The sensor, in words (maker and model).'),
  source: z
    .string()
    .min(1)
    .max(500)
    .describe(
      "The maker's document the mapping follows (title and address): its register map or payload format.",
    ),
  kinds: z.array(z.enum(DEVICE_KINDS)).min(1).describe('The kinds of device it can be.'),
};

export const lorawanProfileSchema = z.strictObject({
  ...common,
  transport: z.literal('lorawan'),
  fields: z.array(field(lorawanSourceSchema)).min(1).max(32),
});

export const modbusProfileSchema = z.strictObject({
  ...common,
  transport: z.literal('modbus'),
  fields: z.array(field(modbusSourceSchema)).min(1).max(32),
});

export const sdi12ProfileSchema = z.strictObject({
  ...common,
  transport: z.literal('sdi12'),
  command: z
    .string()
    .regex(/^(M|MC|C|CC)[1-9]?$/, 'M, MC, C or CC, with an optional digit 1-9')
    .default('M')
    .describe('The measurement command sent after the address (`M` sends `aM!`).'),
  fields: z.array(field(sdi12SourceSchema)).min(1).max(32),
});

export const profileSchema = z.discriminatedUnion('transport', [
  lorawanProfileSchema,
  modbusProfileSchema,
  sdi12ProfileSchema,
]);

export type Profile = z.infer<typeof profileSchema>;
export type LorawanProfile = z.infer<typeof lorawanProfileSchema>;
export type ModbusProfile = z.infer<typeof modbusProfileSchema>;
export type Sdi12Profile = z.infer<typeof sdi12ProfileSchema>;
export type LorawanSource = z.infer<typeof lorawanSourceSchema>;
export type ModbusSource = z.infer<typeof modbusSourceSchema>;
export type Sdi12Source = z.infer<typeof sdi12SourceSchema>;
export type ProfileField<P extends Profile = Profile> = P['fields'][number];
export type ProfileTransport = Profile['transport'];

/** Whether a profile derives a level from the device's mounting height (it then needs `mountHeightIn`). */
export const needsMountHeight = (p: Profile): boolean => p.fields.some((f) => f.derive === 'mount-minus');
