import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModbusSlave } from '../../../firmware-sim/src/transports/modbusSlave.ts';
import type { DeviceInfo } from '../../../gateway/src/config/registry.ts';
import { DeviceLinks } from '../../../gateway/src/ingest/deviceLinks.ts';
import { ModbusInput } from '../../../gateway/src/ingest/modbus/modbusInput.ts';
import { type IngestResult, type RawMessage, silentLog } from '../../../gateway/src/pipeline.ts';
import { haveBinary } from '../../helpers/env.ts';
import { type PtyPair, startPtyPair } from '../../helpers/socat.ts';

const profile = {
  name: 'one-register',
  label: 'one register',
  source: 'test',
  kinds: ['holding-tank'],
  transport: 'modbus',
  fields: [
    {
      reading: 'levelIn',
      from: { table: 'holding', address: 0, format: 'uint16', wordOrder: 'high-first' },
      scale: 0.1,
      offset: 0,
      invert: false,
    },
  ],
};

/** The input on a real pty, its devices following a registry that changes under it. */
describe.runIf(haveBinary('socat'))('the Modbus input follows the live registry', () => {
  let pair: PtyPair;
  let slave: ModbusSlave;
  let input: ModbusInput;
  const devices: DeviceInfo[] = [];
  const got: RawMessage[] = [];
  let clock = Date.UTC(2026, 5, 1);
  const device = (id: string, unitId: number) =>
    ({
      siteId: 'oak-lane',
      deviceId: id,
      kind: 'holding-tank',
      device: {
        id,
        kind: 'holding-tank',
        transport: 'modbus',
        profile,
        modbus: { bus: pair.a, unitId, pollSeconds: 60 },
      },
    }) as unknown as DeviceInfo;

  beforeAll(async () => {
    pair = await startPtyPair();
    slave = new ModbusSlave({ path: pair.b });
    await slave.open();
    slave.unit(1).holding.set(0, 100);
    slave.unit(2).holding.set(0, 200);
    devices.push(device('tank-1', 1));
    input = new ModbusInput({
      buses: [{ path: pair.a, baudRate: 9600, parity: 'none', dataBits: 8, stopBits: 1, timeoutMs: 200 }],
      registry: { all: () => devices },
      links: new DeviceLinks(),
      now: () => clock,
      log: silentLog,
      tickMs: 60_000,
    });
    await input.start({
      ingest: async (m): Promise<IngestResult> => {
        got.push(m);
        return { status: 'ignored' };
      },
    });
    // The poll the start made (every device falls due at once) is done before the steps.
    await input.pollAll();
  });
  afterAll(async () => {
    await input?.stop();
    await slave?.close();
    await pair?.stop();
  });

  /** A minute on: the registry changed (re-read, as a site event does), then every device polled. */
  const step = async (change: () => void = () => {}) => {
    got.length = 0;
    clock += 60_000;
    change();
    input.refresh();
    await input.pollAll();
    return got
      .map((m) => `${m.topic} ${JSON.parse(String(m.payload)).holding['0']} @${m.receivedAt - clock}`)
      .sort();
  };

  it('polls a device added at once, one retired no more, one edited at its new unit, without a restart', async () => {
    expect(await step()).toEqual(['modbus:oak-lane/tank-1 100 @0']);
    expect(await step(() => devices.push(device('tank-2', 2)))).toEqual([
      'modbus:oak-lane/tank-1 100 @0',
      'modbus:oak-lane/tank-2 200 @0',
    ]);
    expect(await step(() => devices.splice(0, 1))).toEqual(['modbus:oak-lane/tank-2 200 @0']);
    // Edited: moved to unit 1 (whose register holds 100).
    expect(await step(() => (devices[0] = device('tank-2', 1)))).toEqual(['modbus:oak-lane/tank-2 100 @0']);
  });
});
