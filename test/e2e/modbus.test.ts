import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ModbusSlave } from '../../firmware-sim/src/transports/modbusSlave.ts';
import type { modbusProfileSchema } from '../../gateway/src/decode/profiles/schema.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { makeTempDir, type PtyPair, startPtyPair } from '../helpers/socat.ts';

const enabled = haveBinary('socat');

/** A pump panel: the pump alarm on coil 0, the tank's level in tenths of an inch in holding register 0. */
const panelProfile: z.input<typeof modbusProfileSchema> = {
  name: 'test-pump-panel',
  label: 'A pump panel with a Modbus RTU port',
  source: 'The test register map: coil 0 the pump alarm, holding register 0 the level in 0.1 in.',
  kinds: ['septic-panel'],
  transport: 'modbus',
  fields: [
    { reading: 'alarms.pump', from: { table: 'coil', address: 0 } },
    { reading: 'levelIn', from: { table: 'holding', address: 0 }, scale: 0.1 },
  ],
};

interface ModbusHealth {
  name: string;
  ok: boolean;
  devices: Array<{ deviceId: string; counts: Record<string, number>; lastError?: string }>;
}

describe.runIf(enabled)('Modbus RTU polling through a socat pair', () => {
  let gw: TestGateway;
  let pair: PtyPair;
  let slave: ModbusSlave;
  let dir: string;
  beforeAll(async () => {
    dir = await makeTempDir('gw-modbus-');
    pair = await startPtyPair({ a: `${dir}/gw`, b: `${dir}/bus` });
    slave = new ModbusSlave({ path: pair.b });
    await slave.open();
    slave.unit(1).holding.set(0, 300);
    slave.unit(3).holding.set(0, 120);
    gw = await startTestGateway({
      modbus: [{ path: pair.a, timeoutMs: 300 }],
      sites: [
        {
          id: 'oak-lane',
          kind: 'alternative-system',
          alarmHoldSeconds: 1,
          devices: [
            {
              id: 'panel-1',
              kind: 'septic-panel',
              liquidDepthIn: 60,
              transport: 'modbus',
              profile: panelProfile,
              modbus: { bus: pair.a, unitId: 1, pollSeconds: 1 },
            },
            {
              id: 'panel-2',
              kind: 'septic-panel',
              liquidDepthIn: 60,
              transport: 'modbus',
              profile: panelProfile,
              modbus: { bus: pair.a, unitId: 2, pollSeconds: 1 },
            },
            {
              id: 'panel-3',
              kind: 'septic-panel',
              liquidDepthIn: 60,
              transport: 'modbus',
              profile: panelProfile,
              modbus: { bus: pair.a, unitId: 3, pollSeconds: 1 },
            },
          ],
        },
      ],
    });
  });
  afterAll(async () => {
    await gw?.cleanup();
    await slave?.close();
    await pair?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const bus = async (): Promise<ModbusHealth> => {
    const h = (await (await fetch(`${gw.httpUrl}/api/health`)).json()) as { components: ModbusHealth[] };
    return h.components.find((c) => c.name === `modbus ${pair.a}`)!;
  };
  const device = async (id: string) => (await bus()).devices.find((d) => d.deviceId === id)!;
  const stored = async (deviceId: string) => {
    const res = await fetch(`${gw.httpUrl}/api/telemetry?siteId=oak-lane&deviceId=${deviceId}&from=0`);
    return ((await res.json()) as { readings: Array<{ values: Record<string, number> }> }).readings;
  };

  it('polls a unit and stores its level', async () => {
    await waitFor(async () => (await stored('panel-1')).length > 0, 10_000, 'a stored poll of panel-1');
    expect((await stored('panel-1'))[0]!.values.levelIn).toBe(30);
    expect((await bus()).ok).toBe(true);
  });

  it('a pump alarm on a coil reaches its equipment-remedy alert', async () => {
    slave.unit(1).coils.set(0, true);
    await waitFor(
      async () => {
        const alerts = (await (
          await fetch(`${gw.httpUrl}/api/alerts?siteId=oak-lane&rule=equipment-remedy`)
        ).json()) as Array<{ deviceId?: string }>;
        return alerts.length > 0;
      },
      15_000,
      'the equipment-remedy alert',
    );
  });

  it('a dead unit is counted and told in words while the live one beside it keeps its schedule', async () => {
    const before = (await device('panel-1')).counts.answers ?? 0;
    const deadBefore = (await device('panel-2')).counts.timeouts ?? 0;
    await new Promise((r) => setTimeout(r, 3000));
    const live = await device('panel-1');
    const dead = await device('panel-2');
    // Polled every second: three seconds give about three answers, never fewer than two.
    expect((live.counts.answers ?? 0) - before).toBeGreaterThanOrEqual(2);
    expect((dead.counts.timeouts ?? 0) - deadBefore).toBeGreaterThanOrEqual(2);
    expect(dead.counts.answers ?? 0).toBe(0);
    expect(dead.lastError).toMatch(
      /^Unit 2 on .*: no answer within 0\.3 s to a request for holding registers 0\.$/,
    );
  });

  it('counts a damaged answer and an exception response, in words', async () => {
    slave.faults.set(3, { badCrc: 1 });
    await waitFor(
      async () => (await device('panel-3')).counts.crcErrors === 1,
      10_000,
      'a CRC error counted',
    );
    expect((await device('panel-3')).lastError).toMatch(/arrived damaged \(its checksum was wrong\)/);
    slave.faults.set(3, { exception: { code: 2, times: 1 } });
    await waitFor(
      async () => (await device('panel-3')).counts.exceptions === 1,
      10_000,
      'an exception counted',
    );
    expect((await device('panel-3')).lastError).toMatch(
      /has no holding registers 0: its register map differs/,
    );
    // And it answers again after both.
    const answers = (await device('panel-3')).counts.answers ?? 0;
    await waitFor(
      async () => ((await device('panel-3')).counts.answers ?? 0) > answers,
      10_000,
      'answers again',
    );
  });

  it('reopens a port that was lost, and polls again', async () => {
    await slave.close();
    await pair.stop();
    await waitFor(async () => !(await bus()).ok, 10_000, 'health to show the bus closed');
    pair = await startPtyPair({ a: `${dir}/gw`, b: `${dir}/bus` });
    const images = slave.units;
    slave = new ModbusSlave({ path: pair.b });
    for (const [id, image] of images) slave.units.set(id, image);
    await slave.open();
    await waitFor(async () => (await bus()).ok, 20_000, 'the bus to reopen');
    const answers = (await device('panel-1')).counts.answers ?? 0;
    await waitFor(
      async () => ((await device('panel-1')).counts.answers ?? 0) > answers,
      10_000,
      'answers again',
    );
  });
});
