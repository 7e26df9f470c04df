/**
 * Devices of LoRaWAN, Modbus RTU and SDI-12 through the administrators' API: the body checked as the
 * configuration is (a profile of the list that fits the transport and the kind, a DevEUI and a place on a
 * bus or adapter of its own, the mounting height when the profile needs it), no MQTT login handed out,
 * the change told in words; GET /api/profiles and GET …/link with their roles.
 */
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeResponse } from '../../../shared/src/admin.ts';
import { changeSentence } from '../../../shared/src/changeWords.ts';
import { TEST_FIELDBUS, TEST_PROFILES } from '../../fixtures/profiles.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { PASSWORD, peopleApi, sha } from '../../helpers/people.ts';
import { fetchAnonymous } from '../../helpers/viewerFetch.ts';

const ADMIN = 'device-links-admin-token';

describe('devices of the native transports in the API', () => {
  let gw: TestGateway;
  let api: ReturnType<typeof peopleApi>;
  const add = (siteId: string, body: Record<string, unknown>) =>
    api.call('POST', `/api/sites/${siteId}/devices`, body, api.admin);
  const edit = (siteId: string, id: string, body: Record<string, unknown>) =>
    api.call('PATCH', `/api/sites/${siteId}/devices/${id}`, body, api.admin);
  /** A refusal's words, by field. */
  const refused = (r: { status: number; body: Record<string, unknown> }) => {
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error).toBe('BAD_REQUEST');
    return String(r.body.message);
  };

  beforeAll(async () => {
    gw = await startTestGateway(
      {
        ...TEST_FIELDBUS,
        // The public view is on: what it shows of a device, and that it never shows a link or the profiles.
        http: { publicView: true },
        auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN) }] },
      } as never,
      { profiles: TEST_PROFILES },
    );
    api = peopleApi(gw.httpUrl, ADMIN);
  });
  afterAll(async () => gw?.cleanup());

  it('lists the ready profiles for viewers, never for a visitor', async () => {
    const list = (await (await fetch(`${gw.httpUrl}/api/profiles`)).json()) as Array<Record<string, unknown>>;
    expect(list.map((p) => p.name)).toEqual(TEST_PROFILES.list.map((p) => p.name));
    expect(list[0]).toMatchObject({
      transport: 'lorawan',
      kinds: ['septic-tank', 'holding-tank'],
      readings: ['levelIn', 'batteryV'],
      needsMountHeight: true,
    });
    expect(list[1]).toMatchObject({ transport: 'modbus', needsMountHeight: false });
    expect((await fetchAnonymous(`${gw.httpUrl}/api/profiles`)).status).toBe(401);
  });

  it('adds a LoRaWAN device without an MQTT login, and shows how it connects', async () => {
    const r = await add('oak-lane', {
      id: 'tank-lora',
      kind: 'septic-tank',
      liquidDepthIn: 60,
      transport: 'lorawan',
      profile: 'test-lorawan-ultrasonic',
      devEui: '70B3D57ED0001234',
      mountHeightIn: 70,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body).toEqual({
      siteId: 'oak-lane',
      deviceId: 'tank-lora',
      transport: 'lorawan',
      message:
        'It needs no MQTT password: the gateway hears it (Test ultrasonic tank level (LoRaWAN)) through the LoRaWAN network server, by its DevEUI 70b3d57ed0001234.',
    });
    expect(JSON.stringify(r.body)).not.toMatch(/password"|username/);
    const site = (await (await fetch(`${gw.httpUrl}/api/sites/oak-lane`)).json()) as {
      devices: Array<Record<string, unknown>>;
    };
    expect(site.devices.find((d) => d.id === 'tank-lora')).toMatchObject({
      transport: 'lorawan',
      profile: 'test-lorawan-ultrasonic',
      devEui: '70b3d57ed0001234',
      mountHeightIn: 70,
    });
    // A device of the gateway's own JSON shows no transport of its own.
    expect(site.devices.find((d) => d.id === 'panel-1')).not.toHaveProperty('transport');
    // The public sees how it connects, in kind only: not its DevEUI.
    const seen = (await (await fetchAnonymous(`${gw.httpUrl}/api/sites/oak-lane`)).json()) as {
      devices: Array<Record<string, unknown>>;
    };
    const publicDevice = seen.devices.find((d) => d.id === 'tank-lora');
    expect(publicDevice).toMatchObject({ transport: 'lorawan', profile: 'test-lorawan-ultrasonic' });
    expect(publicDevice).not.toHaveProperty('devEui');
    const rotate = await api.call('POST', '/api/sites/oak-lane/devices/tank-lora/secret', {}, api.admin);
    expect(rotate.status).toBe(409);
    expect(rotate.body.error).toBe('NO_MQTT_SECRET');
  });

  it('refuses what does not fit, in words by field', async () => {
    const modbus = { bus: '/dev/test-modbus-0', unitId: 3, pollSeconds: 60 };
    const rain = { kind: 'rain-gauge', inchesPerTip: 0.01 };
    expect(refused(await add('maple-ridge', { id: 'x1', ...rain, transport: 'modbus', modbus }))).toBe(
      'profile: A Modbus RTU device needs a sensor profile: one from the library, or one written out in the configuration file.',
    );
    expect(
      refused(
        await add('maple-ridge', { id: 'x2', ...rain, transport: 'modbus', profile: 'no-such', modbus }),
      ),
    ).toBe(
      'profile: There is no profile named "no-such" in the library: the library\'s Modbus RTU profiles are test-modbus-rain and test-modbus-level.',
    );
    expect(
      refused(
        await add('maple-ridge', {
          id: 'x3',
          ...rain,
          transport: 'lorawan',
          profile: 'test-modbus-rain',
          devEui: '70b3d57ed0009999',
        }),
      ),
    ).toBe(
      'profile: Test tipping-bucket counter (Modbus RTU) is for Modbus RTU devices, and this device speaks LoRaWAN.',
    );
    expect(
      refused(
        await add('maple-ridge', {
          id: 'x4',
          kind: 'sediment-trap',
          designDepthIn: 24,
          transport: 'modbus',
          profile: 'test-modbus-rain',
          modbus,
        }),
      ),
    ).toBe(
      'kind: Test tipping-bucket counter (Modbus RTU) is for a rain gauge, not a sediment trap.; profile: A sediment trap does not report the rain gauge count (rainTips), which Test tipping-bucket counter (Modbus RTU) gives.',
    );
    expect(
      refused(
        await add('maple-ridge', {
          id: 'x5',
          ...rain,
          transport: 'modbus',
          profile: 'test-modbus-rain',
          modbus: { ...modbus, bus: '/dev/ttyNOPE' },
        }),
      ),
    ).toBe('modbus.bus: There is no Modbus bus /dev/ttyNOPE: the configured ones are /dev/test-modbus-0.');
    expect(
      refused(
        await add('oak-lane', {
          id: 'x6',
          kind: 'holding-tank',
          liquidDepthIn: 60,
          highLevelIn: 50,
          transport: 'lorawan',
          profile: 'test-lorawan-ultrasonic',
          devEui: '70b3d57ed0001234',
        }),
      ),
    ).toBe(
      'mountHeightIn: Test ultrasonic tank level (LoRaWAN) measures the distance down to the surface: give the sensor\'s mounting height above the bottom, in inches.; devEui: The DevEUI 70B3D57ED0001234 already belongs to device "tank-lora" of site "oak-lane".',
    );
    expect(refused(await add('maple-ridge', { id: 'x7', ...rain, devEui: '70b3d57ed0001111' }))).toBe(
      'devEui: Only a LoRaWAN device has a DevEUI (transport: lorawan).',
    );
    expect(
      refused(
        await add('maple-ridge', { id: 'x8', ...rain, transport: 'lorawan', profile: 'test-modbus-rain' }),
      ),
    ).toContain('devEui: A LoRaWAN device needs its DevEUI: the 16 hexadecimal digits on its label');
    expect(refused(await add('maple-ridge', { id: 'x9', ...rain, transport: 'carrier-pigeon' }))).toMatch(
      /^transport: /,
    );
    // A place on the bus is one device's.
    expect(
      (
        await add('maple-ridge', {
          id: 'rg-modbus',
          ...rain,
          transport: 'modbus',
          profile: 'test-modbus-rain',
          modbus,
        })
      ).status,
    ).toBe(201);
    expect(
      refused(
        await add('maple-ridge', {
          id: 'x10',
          ...rain,
          transport: 'modbus',
          profile: 'test-modbus-rain',
          modbus,
        }),
      ),
    ).toBe(
      'modbus.unitId: Unit 3 on /dev/test-modbus-0 is already device "rg-modbus" of site "maple-ridge".',
    );
    const sdi12 = { port: '/dev/test-sdi12-0', address: '0' };
    const turbidity = {
      kind: 'turbidity',
      role: 'outlet',
      transport: 'sdi12',
      profile: 'test-sdi12-turbidity',
    };
    const first = await add('maple-ridge', { id: 'turb-sdi', ...turbidity, sdi12 });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.message).toBe(
      'It needs no MQTT password: the gateway measures it (Test turbidity probe (SDI-12)) on /dev/test-sdi12-0, address 0, every 5 min.',
    );
    expect(refused(await add('maple-ridge', { id: 'x11', ...turbidity, sdi12 }))).toBe(
      'sdi12.address: Address 0 on /dev/test-sdi12-0 is already device "turb-sdi" of site "maple-ridge".',
    );
    // Nothing refused was kept.
    const site = (await (await fetch(`${gw.httpUrl}/api/sites/maple-ridge`)).json()) as {
      devices: Array<{ id: string }>;
    };
    expect(site.devices.map((d) => d.id).filter((id) => id.startsWith('x'))).toEqual([]);
  });

  it('changes a device to another transport, and the Changes page says so in words', async () => {
    const made = await add('oak-lane', {
      id: 'tank-modbus',
      kind: 'holding-tank',
      liquidDepthIn: 60,
      highLevelIn: 50,
      transport: 'modbus',
      profile: 'test-modbus-level',
      modbus: { bus: '/dev/test-modbus-0', unitId: 7 },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const r = await edit('oak-lane', 'tank-modbus', {
      transport: 'lorawan',
      profile: 'test-lorawan-ultrasonic',
      devEui: '70b3d57ed0005678',
      mountHeightIn: 66,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ transport: 'lorawan', devEui: '70b3d57ed0005678' });
    // What only the Modbus device had went with the change.
    expect(r.body).not.toHaveProperty('modbus');
    // Its old place on the bus is free again.
    expect(
      (
        await add('oak-lane', {
          id: 'tank-modbus-2',
          kind: 'septic-tank',
          liquidDepthIn: 60,
          transport: 'modbus',
          profile: 'test-modbus-level',
          modbus: { bus: '/dev/test-modbus-0', unitId: 7 },
        })
      ).status,
    ).toBe(201);
    const changes = (await (await fetch(`${gw.httpUrl}/api/changes?siteId=oak-lane`)).json()) as unknown[];
    const update = changes
      .map((c) => changeResponse.parse(c))
      .find((c) => c.deviceId === 'tank-modbus' && c.action === 'update');
    expect(update).toBeDefined();
    const { text, diffs } = changeSentence(update!, {
      siteName: () => 'Oak Lane',
      deviceName: () => undefined,
      siteZone: () => 'UTC',
      homeZone: 'UTC',
    });
    expect(text).toMatch(/^Device tank-modbus at 'Oak Lane' was changed by Ada Admin/);
    expect(diffs).toContain('how it connects from Modbus RTU to LoRaWAN');
    expect(diffs).toContain('sensor profile from test-modbus-level to test-lorawan-ultrasonic');
    expect(diffs).toContain('mounting height set to 66 in');
    expect(diffs).toContain('DevEUI set to 70b3d57ed0005678');
    expect(diffs).toContain('Modbus RTU removed (it was bus /dev/test-modbus-0; unit 7; poll interval 60 s)');
    expect(diffs.join(' ')).not.toMatch(/devEui|unitId|mountHeightIn| lorawan | modbus /);
  });

  it('ends the MQTT password of a device that now connects through Modbus RTU', async () => {
    const login = () =>
      mqtt.connectAsync(gw.mqttUrl, {
        clientId: 'maple-ridge/rg-2',
        username: 'maple-ridge/rg-2',
        password: 'pw-rg-2',
        reconnectPeriod: 0,
      });
    const before = await login();
    await before.endAsync();
    const r = await edit('maple-ridge', 'rg-2', {
      transport: 'modbus',
      profile: 'test-modbus-rain',
      modbus: { bus: '/dev/test-modbus-0', unitId: 9 },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const changes = (await (await fetch(`${gw.httpUrl}/api/changes?siteId=maple-ridge`)).json()) as Array<{
      entity: string;
      action: string;
      deviceId: string | null;
    }>;
    expect(changes.filter((c) => c.deviceId === 'rg-2').map((c) => `${c.entity} ${c.action}`)).toEqual(
      expect.arrayContaining(['device update', 'secret revoke']),
    );
    await expect(login()).rejects.toThrow(/Not authorized|Bad username or password/i);
    // Back to the gateway's own JSON, it logs in again with a new secret.
    const back = await edit('maple-ridge', 'rg-2', { transport: 'json' });
    expect(back.status).toBe(200);
    expect(back.body).not.toHaveProperty('transport');
    expect(back.body).not.toHaveProperty('modbus');
    // A form that sends the default way of connecting changes nothing.
    const count = async () =>
      ((await (await fetch(`${gw.httpUrl}/api/changes?siteId=maple-ridge`)).json()) as unknown[]).length;
    const n = await count();
    expect((await edit('maple-ridge', 'rg-2', { transport: 'json' })).status).toBe(200);
    expect(await count()).toBe(n);
    const rotated = await api.call('POST', '/api/sites/maple-ridge/devices/rg-2/secret', {}, api.admin);
    expect(rotated.status).toBe(200);
    expect(String(rotated.body.password).length).toBeGreaterThanOrEqual(16);
  });

  it('tells how a device was heard, to those who may see its site', async () => {
    const at = Date.parse('2026-12-08T10:00:00Z');
    // The LoRaWAN decoder is its own part of the gateway: its record of a message is written here as it
    // would write it, to read it back through the API.
    gw.links.heard('oak-lane', 'tank-lora', {
      at,
      raw: '{"deviceInfo":{"devEui":"70b3d57ed0001234"},"data":"BQ8OEA=="}',
      outcome: 'stored',
      values: { levelIn: 19.2, batteryV: 3.6 },
    });
    gw.links.error('oak-lane', 'tank-lora', at + 60_000, 'The frame was cut short: 3 bytes, 4 expected.');
    gw.links.count('oak-lane', 'tank-lora', 'uplinks', 2);
    const link = await (await fetch(`${gw.httpUrl}/api/sites/oak-lane/devices/tank-lora/link`)).json();
    expect(link).toEqual({
      transport: 'lorawan',
      profile: {
        name: 'test-lorawan-ultrasonic',
        label: 'Test ultrasonic tank level (LoRaWAN)',
        source: TEST_PROFILES.byName('test-lorawan-ultrasonic')!.source,
      },
      last: {
        at: '2026-12-08T10:00:00.000Z',
        raw: '{"deviceInfo":{"devEui":"70b3d57ed0001234"},"data":"BQ8OEA=="}',
        outcome: 'stored',
        values: { levelIn: 19.2, batteryV: 3.6 },
      },
      errors: [{ at: '2026-12-08T10:01:00.000Z', text: 'The frame was cut short: 3 bytes, 4 expected.' }],
      counts: { uplinks: 2 },
    });
    // A device of the gateway's own JSON: its transport, nothing heard through a link.
    expect(await (await fetch(`${gw.httpUrl}/api/sites/oak-lane/devices/panel-1/link`)).json()).toEqual({
      transport: 'json',
      last: null,
      errors: [],
      counts: {},
    });
    expect((await fetch(`${gw.httpUrl}/api/sites/oak-lane/devices/nope/link`)).status).toBe(404);
    expect((await fetchAnonymous(`${gw.httpUrl}/api/sites/oak-lane/devices/tank-lora/link`)).status).toBe(
      401,
    );
    // An owner of another site is answered as if the device were not there.
    const owner = await api.call(
      'POST',
      '/api/users',
      {
        name: 'Mo Owner',
        email: 'mo@maple.example',
        role: 'owner',
        password: PASSWORD,
        sites: ['maple-ridge'],
      },
      api.admin,
    );
    expect(owner.status).toBe(201);
    const mo = await api.signIn('mo@maple.example');
    const other = await fetchAnonymous(`${gw.httpUrl}/api/sites/oak-lane/devices/tank-lora/link`, {
      headers: { cookie: mo.cookie },
    });
    expect(other.status).toBe(404);
    const own = await fetchAnonymous(`${gw.httpUrl}/api/sites/maple-ridge/devices/rg-modbus/link`, {
      headers: { cookie: mo.cookie },
    });
    expect(own.status).toBe(200);
    expect(((await own.json()) as { transport: string }).transport).toBe('modbus');
  });
});
