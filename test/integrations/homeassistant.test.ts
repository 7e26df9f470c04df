/**
 * Home Assistant MQTT discovery against a real Mosquitto, with the ACL `npm run mosquitto-acl` writes:
 * the gateway (an external-broker client) publishes retained discovery configs and states; a client
 * logged in as Home Assistant's account reads them and checks them against Home Assistant's documented
 * discovery schema (docs/integrations.md cites it): topic layout, required keys, unique ids, device
 * blocks, availability on the gateway's status, and state topics whose JSON carries the values the
 * value templates read. A retired device's configs disappear from the broker.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../gateway/src/config/schema.ts';
import { waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testConfigInput, testHash } from '../helpers/gateway.ts';
import { haveMosquitto, type Mosquitto, start } from '../helpers/mosquitto.ts';

const ROOT = join(import.meta.dirname, '../..');
const ADMIN = 'ha-test-admin-token';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** Home Assistant's documented values: sensor device classes and their units, the state classes. */
const SENSOR_UNITS: Record<string, string[]> = {
  precipitation: ['cm', 'in', 'mm'],
  distance: ['km', 'm', 'cm', 'mm', 'mi', 'yd', 'in', 'ft'],
  voltage: ['V', 'mV', 'µV', 'kV', 'MV'],
  signal_strength: ['dB', 'dBm'],
};
const STATE_CLASSES = ['measurement', 'total', 'total_increasing'];
const BINARY_SENSOR_CLASSES = ['problem'];
const TOPIC = /^homeassistant\/(sensor|binary_sensor)\/([A-Za-z0-9_-]+)\/([A-Za-z0-9_-]+)\/config$/;

/** The two template forms the gateway writes: `{{ value_json.key }}` and `{{ value_json['key'] }}`. */
function render(template: string, payload: string): unknown {
  const m = /^\{\{ value_json(?:\.(\w+)|\['([^']+)'\]) \}\}$/.exec(template);
  if (!m) throw new Error(`template not understood: ${template}`);
  const v = (JSON.parse(payload) as Record<string, unknown>)[m[1] ?? m[2]!];
  return v === null ? 'None' : v;
}

/** Retained messages as a client sees them after subscribing: topic -> newest payload ('' once removed). */
class Retained {
  readonly messages = new Map<string, string>();
  constructor(readonly client: MqttClient) {
    client.on('message', (topic, payload) => this.messages.set(topic, payload.toString()));
  }
  configs(): Map<string, Record<string, unknown>> {
    const out = new Map<string, Record<string, unknown>>();
    for (const [t, p] of this.messages)
      if (t.startsWith('homeassistant/') && p !== '') out.set(t, JSON.parse(p));
    return out;
  }
}

const run = haveMosquitto(['mosquitto', 'mosquitto_passwd']);

describe.runIf(run)('Home Assistant MQTT discovery through Mosquitto', () => {
  let broker: Mosquitto;
  let gw: TestGateway;
  let ha: Retained;
  let dir: string;
  const devices: MqttClient[] = [];

  const config = (url?: string): ConfigInput => {
    const base = testConfigInput();
    return {
      ...base,
      sites: [
        ...base.sites!,
        {
          id: 'cedar-court',
          name: 'Cedar Court',
          kind: 'holding-tank',
          devices: [{ id: 'tank-1', kind: 'holding-tank', liquidDepthIn: 72, highLevelIn: 60 }],
        },
      ],
      mqtt: {
        ...(url ? { url } : {}),
        username: 'gateway',
        password: 'gw-secret',
        users: [
          {
            username: 'ha',
            passwordHash: testHash('ha-secret'),
            subscribe: ['homeassistant/#', 'gateway/#'],
          },
        ],
      },
      homeassistant: { discovery: true, publishSeconds: 1 },
      auth: { tokens: [{ name: 'Admin', role: 'admin', tokenSha256: sha(ADMIN) }] },
    };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ha-test-'));
    // The ACL as an operator makes it for an external Mosquitto.
    const cfgFile = join(dir, 'gateway.json');
    writeFileSync(cfgFile, JSON.stringify(config()));
    const acl = execFileSync(
      process.execPath,
      ['--import', 'tsx', 'gateway/src/tools/mosquittoAcl.ts', cfgFile],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    // The gateway writes its own discovery nodes only: a site's duties and each of its devices' sensors.
    expect(acl).not.toContain('topic write homeassistant/#');
    expect(acl).toMatch(/^topic write homeassistant\/binary_sensor\/[\w-]+_maple-ridge_[0-9a-f]{8}\/#$/m);
    expect(acl).toMatch(/^topic write homeassistant\/sensor\/[\w-]+_maple-ridge_rg-1_[0-9a-f]{8}\/#$/m);
    const aclFile = join(dir, 'acl');
    writeFileSync(aclFile, acl);
    broker = await start({
      users: {
        gateway: 'gw-secret',
        ha: 'ha-secret',
        'maple-ridge/rg-1': 'pw-rg-1',
        'maple-ridge/trap-1': 'pw-trap-1',
      },
      extraConfig: [`acl_file ${aclFile}`],
    });
    gw = await startTestGateway(config(broker.url));
    const client = await mqtt.connectAsync(broker.url, {
      username: 'ha',
      password: 'ha-secret',
      reconnectPeriod: 0,
    });
    ha = new Retained(client);
    await client.subscribeAsync(['homeassistant/#', 'gateway/test-gw/#'], { qos: 1 });
  }, 60_000);

  afterAll(async () => {
    for (const d of devices) await d.endAsync();
    await ha?.client.endAsync();
    await gw?.cleanup();
    await broker?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const device = async (id: string) => {
    const c = await mqtt.connectAsync(broker.url, {
      clientId: `maple-ridge/${id}`,
      username: `maple-ridge/${id}`,
      password: `pw-${id}`,
      reconnectPeriod: 0,
    });
    devices.push(c);
    return c;
  };

  it('publishes configs that follow the discovery schema, grouped by device, available with the gateway', async () => {
    // rg-1, rg-2: rain today, battery, signal; trap-1: level, sediment, battery, signal; panel-1 and
    // tank-1: level, battery, signal; and the sites' duty problems.
    const configs = await waitFor(
      () => {
        const c = ha.configs();
        return [...c.keys()].filter((t) => t.startsWith('homeassistant/sensor/')).length >= 16
          ? c
          : undefined;
      },
      30_000,
      'the sensors configs',
    );
    const uniqueIds = new Set<string>();
    for (const [topic, p] of configs) {
      const m = TOPIC.exec(topic);
      expect(m, topic).not.toBeNull();
      const component = m![1]!;
      expect(typeof p.name).toBe('string');
      expect(typeof p.unique_id).toBe('string');
      expect(uniqueIds.has(p.unique_id as string), `unique_id ${p.unique_id}`).toBe(false);
      uniqueIds.add(p.unique_id as string);
      expect(typeof p.state_topic).toBe('string');
      expect(p.state_topic as string).toMatch(/^gateway\/test-gw\/ha\//);
      expect(typeof p.value_template).toBe('string');
      const dev = p.device as { identifiers: string[]; name: string };
      expect(dev.identifiers.length).toBeGreaterThan(0);
      expect(typeof dev.name).toBe('string');
      const avail = p.availability as Array<Record<string, string>>;
      expect(avail).toEqual([
        {
          topic: 'gateway/test-gw/status',
          value_template: '{{ value_json.status }}',
          payload_available: 'online',
          payload_not_available: 'offline',
        },
      ]);
      if (component === 'sensor') {
        if (p.device_class !== undefined) {
          expect(Object.keys(SENSOR_UNITS)).toContain(p.device_class);
          expect(SENSOR_UNITS[p.device_class as string]).toContain(p.unit_of_measurement);
        }
        if (p.state_class !== undefined) expect(STATE_CLASSES).toContain(p.state_class);
      } else {
        expect(BINARY_SENSOR_CLASSES).toContain(p.device_class);
        expect(p.payload_on).toBe('ON');
        expect(p.payload_off).toBe('OFF');
      }
    }
    // The gateway's status, the availability topic, renders to payload_available.
    const status = await waitFor(() => ha.messages.get('gateway/test-gw/status'), 10_000, 'the status');
    expect(render('{{ value_json.status }}', status)).toBe('online');

    // Sensors by what each kind reports, grouped under one device block per device.
    const objectsOf = (stateTopic: string) =>
      [...configs.values()]
        .filter((p) => p.state_topic === stateTopic)
        .map((p) => (p.unique_id as string).split('_').pop())
        .sort();
    expect(objectsOf('gateway/test-gw/ha/maple-ridge/rg-1')).toEqual(['battery', 'signal', 'today']);
    expect(objectsOf('gateway/test-gw/ha/maple-ridge/trap-1')).toEqual([
      'battery',
      'level',
      'sediment',
      'signal',
    ]);
    expect(objectsOf('gateway/test-gw/ha/cedar-court/tank-1')).toEqual(['battery', 'level', 'signal']);
    const trapDevices = new Set(
      [...configs.values()]
        .filter((p) => p.state_topic === 'gateway/test-gw/ha/maple-ridge/trap-1')
        .map((p) => JSON.stringify(p.device)),
    );
    expect(trapDevices.size).toBe(1);
    // A problem per duty kind of the rules that apply: a holding tank's pump-out at Cedar Court.
    const cedarDuties = [...configs.values()].filter(
      (p) => p.state_topic === 'gateway/test-gw/ha/cedar-court/duties',
    );
    expect(cedarDuties.map((p) => p.name)).toContain('Holding tank pump-out');
    expect(cedarDuties.every((p) => p.device_class === 'problem')).toBe(true);
  }, 60_000);

  it('carries the readings and the open duties on the state topics the templates read', async () => {
    const rg = await device('rg-1');
    const trap = await device('trap-1');
    const now = Date.now();
    await rg.publishAsync(
      'sites/maple-ridge/devices/rg-1/telemetry',
      JSON.stringify({ ts: now - 180_000, rainTips: 100, batteryV: 3.9, rssi: -71 }),
      { qos: 1 },
    );
    await rg.publishAsync(
      'sites/maple-ridge/devices/rg-1/telemetry',
      JSON.stringify({ ts: now - 60_000, rainTips: 160, batteryV: 3.8, rssi: -70 }),
      { qos: 1 },
    );
    await trap.publishAsync(
      'sites/maple-ridge/devices/trap-1/telemetry',
      JSON.stringify({ ts: now - 10_000, sedimentIn: 12 }),
      {
        qos: 1,
      },
    );
    const configs = ha.configs();
    const entityValue = (topic: string) => {
      const p = configs.get(topic)!;
      const state = ha.messages.get(p.state_topic as string);
      return state === undefined ? undefined : render(p.value_template as string, state);
    };
    const sensor = (stateTopic: string, object: string) =>
      [...configs.entries()].find(
        ([, p]) => p.state_topic === stateTopic && (p.unique_id as string).endsWith(`_${object}`),
      )![0];
    const rain = sensor('gateway/test-gw/ha/maple-ridge/rg-1', 'today');
    const battery = sensor('gateway/test-gw/ha/maple-ridge/rg-1', 'battery');
    const signal = sensor('gateway/test-gw/ha/maple-ridge/rg-1', 'signal');
    const sediment = sensor('gateway/test-gw/ha/maple-ridge/trap-1', 'sediment');
    // 60 tips of 0.01 in since the first counter reading of the day (2 minutes apart: a rate the gauge counts).
    await waitFor(
      () => entityValue(rain) === 0.6 && entityValue(battery) === 3.8,
      30_000,
      'rain today 0.6 in',
    ).catch((e) => {
      throw new Error(`${e}: ${ha.messages.get('gateway/test-gw/ha/maple-ridge/rg-1')}`);
    });
    expect(entityValue(signal)).toBe(-70);
    await waitFor(() => entityValue(sediment) === 50, 30_000, 'sediment at 50 %');
    // A device that reported no battery yet: Home Assistant's unknown.
    expect(entityValue(sensor('gateway/test-gw/ha/maple-ridge/trap-1', 'battery'))).toBe('None');

    // 0.6 in at a construction site: a storm inspection is due, its problem is on.
    const storm = [...configs.entries()].find(
      ([, p]) => p.state_topic === 'gateway/test-gw/ha/maple-ridge/duties' && p.name === 'Storm inspection',
    )![0];
    await waitFor(() => entityValue(storm) === 'ON', 30_000, 'the storm problem on');
    const holding = [...configs.entries()].find(
      ([, p]) =>
        p.state_topic === 'gateway/test-gw/ha/cedar-court/duties' && p.name === 'Holding tank pump-out',
    )![0];
    expect(entityValue(holding)).toBe('OFF');
  }, 60_000);

  it('removes a retired device from Home Assistant', async () => {
    const trapConfigs = () =>
      [...ha.configs().entries()].filter(
        ([, p]) => p.state_topic === 'gateway/test-gw/ha/maple-ridge/trap-1',
      );
    expect(trapConfigs().length).toBe(4);
    const res = await fetch(`${gw.httpUrl}/api/sites/maple-ridge/devices/trap-1`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ retired: true }),
    });
    expect(res.status).toBe(200);
    await waitFor(() => trapConfigs().length === 0, 30_000, 'the retired trap configs removed');
    // A client subscribing now gets no retained config of it from the broker.
    const fresh = await mqtt.connectAsync(broker.url, {
      username: 'ha',
      password: 'ha-secret',
      reconnectPeriod: 0,
    });
    const later = new Retained(fresh);
    await fresh.subscribeAsync('homeassistant/#', { qos: 1 });
    await waitFor(() => later.configs().size >= 12, 15_000, 'the retained configs');
    expect(
      [...later.configs().values()].filter((p) => p.state_topic === 'gateway/test-gw/ha/maple-ridge/trap-1'),
    ).toEqual([]);
    expect(
      [...later.configs().values()].some((p) => p.state_topic === 'gateway/test-gw/ha/maple-ridge/rg-1'),
    ).toBe(true);
    await fresh.endAsync();
  }, 60_000);
});
