/**
 * The checks of LoRaWAN, Modbus and SDI-12 devices at load: each problem with its path and its words,
 * through the configuration's own parse and through the function a device added live is checked by.
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  deviceFieldbusIssues,
  type FieldbusDevice,
  type FieldbusPlaces,
} from '../../gateway/src/config/fieldbusChecks.ts';
import { ConfigError, parseConfig } from '../../gateway/src/config/load.ts';
import type { ConfigInput } from '../../gateway/src/config/schema.ts';
import {
  type lorawanProfileSchema,
  modbusProfileSchema,
  type sdi12ProfileSchema,
} from '../../gateway/src/decode/profiles/schema.ts';

/** A LoRaWAN ultrasonic level sensor: the distance down in millimetres, the battery in millivolts. */
const lorawanLevel = {
  name: 'test-ultrasonic',
  label: 'A test ultrasonic level sensor',
  source: 'Payload format, test document',
  transport: 'lorawan',
  kinds: ['holding-tank', 'septic-tank'],
  fields: [
    {
      reading: 'levelIn',
      from: { byte: 0, format: 'uint16' },
      scale: 0.0393701,
      derive: 'mount-minus',
    },
    { reading: 'batteryV', from: { byte: 2, format: 'uint16' }, scale: 0.001 },
    { reading: 'alarms.highWater', from: { byte: 4, format: 'uint8', bit: 0 } },
  ],
} satisfies z.input<typeof lorawanProfileSchema>;

const modbusLevel: z.input<typeof modbusProfileSchema> = {
  name: 'test-transmitter',
  label: 'A test level transmitter',
  source: 'Register map, test document',
  transport: 'modbus',
  kinds: ['holding-tank'],
  fields: [
    { reading: 'levelIn', from: { table: 'holding', address: 0, format: 'float32', wordOrder: 'low-first' } },
  ],
};

const sdi12Pressure: z.input<typeof sdi12ProfileSchema> = {
  name: 'test-pressure',
  label: 'A test pressure transducer',
  source: 'SDI-12 commands, test document',
  transport: 'sdi12',
  kinds: ['sediment-trap'],
  fields: [{ reading: 'levelIn', from: { index: 1 }, scale: 12 }],
};

type DeviceInput = NonNullable<NonNullable<ConfigInput['sites']>[number]['devices']>[number];

/** A configuration with one bus and one adapter, and these devices on two sites. */
function config(first: DeviceInput[], second: DeviceInput[] = []): ConfigInput {
  return {
    gatewayId: 'g',
    modbus: [{ path: '/dev/ttyUSB0' }],
    sdi12: [{ path: '/dev/ttyUSB1' }],
    sites: [
      { id: 'elm-st', kind: 'holding-tank', devices: first },
      { id: 'brook-rd', kind: 'construction', devices: second },
    ],
  };
}

/** Every problem of a configuration, as `path: words`. */
function problems(input: ConfigInput): string[] {
  try {
    parseConfig(input);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
}

const tank = (over: Partial<DeviceInput> = {}): DeviceInput =>
  ({
    id: 'tank',
    kind: 'holding-tank',
    highLevelIn: 48,
    transport: 'lorawan',
    profile: lorawanLevel,
    devEui: '70B3D57ED0000001',
    mountHeightIn: 60,
    ...over,
  }) as DeviceInput;

describe('configuration checks of LoRaWAN, Modbus and SDI-12 devices', () => {
  it('takes a device of each transport with its profile written out', () => {
    expect(
      problems(
        config(
          [
            tank(),
            tank({
              id: 'tank-2',
              transport: 'modbus',
              profile: modbusLevel,
              devEui: undefined,
              modbus: { bus: '/dev/ttyUSB0', unitId: 1 },
            }),
          ],
          [
            {
              id: 'trap',
              kind: 'sediment-trap',
              designDepthIn: 24,
              transport: 'sdi12',
              profile: sdi12Pressure,
              sdi12: { port: '/dev/ttyUSB1', address: '0' },
            } as DeviceInput,
          ],
        ),
      ),
    ).toEqual([]);
  });

  it('needs a profile, and a named one must be in the library', () => {
    expect(problems(config([tank({ profile: undefined })]))).toEqual([
      'sites[0].devices[0].profile: A LoRaWAN device needs a sensor profile: one from the library, or one written out in the configuration file.',
    ]);
    const [missing] = problems(config([tank({ profile: 'no-such-sensor' })]));
    expect(missing).toMatch(
      /^sites\[0\]\.devices\[0\]\.profile: There is no profile named "no-such-sensor" in the library: /,
    );
  });

  it("refuses a profile of another transport, and one not for the device's kind", () => {
    expect(problems(config([tank({ profile: modbusLevel })]))).toEqual([
      'sites[0].devices[0].profile.transport: This profile is for Modbus RTU devices, and this device speaks LoRaWAN.',
    ]);
    expect(problems(config([tank({ profile: { ...lorawanLevel, kinds: ['septic-tank'] } })]))).toEqual([
      'sites[0].devices[0].profile.kinds: This profile is for a septic tank level sensor, not a holding tank level sensor.',
    ]);
  });

  it("refuses a reading the device's kind does not report, and an alarm on a kind without alarm inputs", () => {
    const gauge = tank({
      id: 'gauge',
      kind: 'rain-gauge',
      inchesPerTip: 0.01,
      highLevelIn: undefined,
      profile: { ...lorawanLevel, kinds: ['rain-gauge'] },
    });
    expect(problems(config([], [gauge]))).toEqual([
      'sites[1].devices[0].profile.fields[0].reading: A rain gauge does not report the level (levelIn), which this profile gives.',
      'sites[1].devices[0].profile.fields[2].reading: A rain gauge has no alarm inputs: this profile gives the high-water alarm (alarms.highWater).',
    ]);
  });

  it('needs the mounting height when a level is measured down from the sensor', () => {
    expect(problems(config([tank({ mountHeightIn: undefined })]))).toEqual([
      "sites[0].devices[0].mountHeightIn: This profile measures the distance down to the surface: give the sensor's mounting height above the bottom, in inches.",
    ]);
  });

  it('needs a DevEUI, each its own across sites (any case)', () => {
    expect(problems(config([tank({ devEui: undefined })]))).toEqual([
      'sites[0].devices[0].devEui: A LoRaWAN device needs its DevEUI: the 16 hexadecimal digits on its label and in its network server.',
    ]);
    const trap = tank({
      id: 'trap',
      kind: 'sediment-trap',
      designDepthIn: 24,
      highLevelIn: undefined,
      devEui: '70b3d57ed0000001',
      profile: { ...lorawanLevel, kinds: ['sediment-trap'], fields: [lorawanLevel.fields[0]!] },
    });
    expect(problems(config([tank()], [trap]))).toEqual([
      'sites[1].devices[0].devEui: The DevEUI 70B3D57ED0000001 already belongs to device "tank" of site "elm-st".',
    ]);
  });

  it('needs a configured Modbus bus and a unit of its own on it', () => {
    const onBus = (id: string, bus: string, unitId: number) =>
      tank({ id, transport: 'modbus', profile: modbusLevel, devEui: undefined, modbus: { bus, unitId } });
    expect(problems(config([onBus('a', '/dev/ttyUSB0', 1), onBus('b', '/dev/ttyUSB0', 2)]))).toEqual([]);
    expect(problems(config([onBus('a', '/dev/ttyUSB0', 1), onBus('b', '/dev/ttyUSB0', 1)]))).toEqual([
      'sites[0].devices[1].modbus.unitId: Unit 1 on /dev/ttyUSB0 is already device "a" of site "elm-st".',
    ]);
    expect(problems(config([onBus('a', '/dev/ttyUSB7', 1)]))).toEqual([
      'sites[0].devices[0].modbus.bus: There is no Modbus bus /dev/ttyUSB7: the configured ones are /dev/ttyUSB0.',
    ]);
    expect(
      problems(config([tank({ transport: 'modbus', profile: modbusLevel, devEui: undefined })])),
    ).toEqual([
      'sites[0].devices[0].modbus: A Modbus RTU device needs the bus it is wired to and its unit id.',
    ]);
  });

  it('needs a configured SDI-12 adapter and an address of its own on it', () => {
    const trap = (id: string, port: string, address: string) =>
      ({
        id,
        kind: 'sediment-trap',
        designDepthIn: 24,
        transport: 'sdi12',
        profile: sdi12Pressure,
        sdi12: { port, address },
      }) as DeviceInput;
    expect(problems(config([], [trap('a', '/dev/ttyUSB1', '0'), trap('b', '/dev/ttyUSB1', '0')]))).toEqual([
      'sites[1].devices[1].sdi12.address: Address 0 on /dev/ttyUSB1 is already device "a" of site "brook-rd".',
    ]);
    const none = { ...config([], [trap('a', '/dev/ttyS3', '0')]), sdi12: [] };
    expect(problems(none)).toEqual([
      'sites[1].devices[0].sdi12.port: There is no SDI-12 adapter /dev/ttyS3: none is configured (add it under sdi12).',
    ]);
  });

  it("refuses one transport's settings on another's device", () => {
    const json: DeviceInput = {
      id: 'gauge',
      kind: 'rain-gauge',
      inchesPerTip: 0.01,
      devEui: '70B3D57ED0000009',
      modbus: { bus: '/dev/ttyUSB0', unitId: 3 },
      profile: 'anything',
    };
    expect(problems(config([], [json]))).toEqual([
      'sites[1].devices[0].devEui: Only a LoRaWAN device has a DevEUI (transport: lorawan).',
      'sites[1].devices[0].modbus: Only a Modbus RTU device has a place on a Modbus bus (transport: modbus).',
      'sites[1].devices[0].profile: Only a LoRaWAN, Modbus RTU or SDI-12 device has a sensor profile: set how it connects, or remove the profile.',
    ]);
    const sdi = tank({
      transport: 'sdi12',
      profile: sdi12Pressure,
      sdi12: { port: '/dev/ttyUSB1', address: '1' },
    });
    expect(problems(config([sdi]))[0]).toBe(
      'sites[0].devices[0].devEui: Only a LoRaWAN device has a DevEUI (transport: lorawan).',
    );
  });

  it('takes a network server configured without any LoRaWAN device', () => {
    const input = {
      ...config([]),
      integrations: { chirpstack: { url: 'mqtt://ns.example:1883', applications: ['tanks'] } },
    };
    expect(problems(input)).toEqual([]);
  });
});

describe('deviceFieldbusIssues (a device added live)', () => {
  const places = (devices: FieldbusDevice[]): FieldbusPlaces => ({
    sites: [{ id: 'elm-st', devices }],
    modbus: [{ path: '/dev/ttyUSB0' }],
    sdi12: [],
  });
  const unit = (id: string, unitId: number): FieldbusDevice => ({
    id,
    kind: 'holding-tank',
    transport: 'modbus',
    profile: modbusProfileSchema.parse(modbusLevel),
    modbus: { bus: '/dev/ttyUSB0', unitId, pollSeconds: 60 },
  });

  it('checks a new device against the devices already there, with paths from the device', () => {
    expect(deviceFieldbusIssues(places([unit('a', 1)]), { id: 'elm-st' }, unit('b', 1))).toEqual([
      {
        path: ['modbus', 'unitId'],
        message: 'Unit 1 on /dev/ttyUSB0 is already device "a" of site "elm-st".',
      },
    ]);
    expect(deviceFieldbusIssues(places([unit('a', 1)]), { id: 'elm-st' }, unit('b', 2))).toEqual([]);
  });

  it('does not take a changed device for a clash with itself, but does on another site', () => {
    expect(deviceFieldbusIssues(places([unit('a', 1)]), { id: 'elm-st' }, unit('a', 1))).toEqual([]);
    expect(deviceFieldbusIssues(places([unit('a', 1)]), { id: 'oak-ln' }, unit('a', 1))).toHaveLength(1);
  });

  it('says what is missing in words, at the path of the key', () => {
    const bare: FieldbusDevice = { id: 'c', kind: 'holding-tank', transport: 'sdi12' };
    expect(deviceFieldbusIssues(places([]), { id: 'elm-st' }, bare)).toEqual([
      {
        path: ['profile'],
        message:
          'An SDI-12 device needs a sensor profile: one from the library, or one written out in the configuration file.',
      },
      {
        path: ['sdi12'],
        message: 'An SDI-12 device needs the adapter it is wired to and its address.',
      },
    ]);
  });
});
