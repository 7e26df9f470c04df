/**
 * The LoRaWAN network server input against a real Mosquitto standing in for the network servers'
 * brokers: the applications' uplink topics, handed on as `lorawan`, counted per device and per server,
 * and at QoS 1 acknowledged only once the sink has stored the uplink (a connection lost before that
 * leaves it unacknowledged, and the broker delivers it again).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceLinks } from '../../../gateway/src/ingest/deviceLinks.ts';
import {
  NetworkServerInput,
  type NetworkServerInputOptions,
} from '../../../gateway/src/ingest/lorawan/networkServerInput.ts';
import { Registry } from '../../../gateway/src/metrics.ts';
import { waitFor } from '../../helpers/env.ts';
import { haveMosquitto, type Mosquitto, start } from '../../helpers/mosquitto.ts';
import { client, MemoryLog, RecordingSink, TcpProxy } from '../mqtt/support.ts';

const run = haveMosquitto();
const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/lorawan/${name}`, import.meta.url), 'utf8');
const APP = '17c82e96-be03-4f38-aef3-f83d48582d97';
const CS_TOPIC = `application/${APP}/device/a84041000181c061/event/up`;
const TTS_TOPIC = 'v3/chester-tanks@ttn/devices/tank-1-level/up';
const tank = { siteId: 'tank-1', deviceId: 'level' };
const registry = { byDevEui: (e: string) => (e === 'a84041000181c061' ? tank : undefined) };

describe.skipIf(!run)('LoRaWAN network server input against Mosquitto', () => {
  let broker: Mosquitto;
  beforeAll(async () => {
    broker = await start();
  });
  afterAll(async () => {
    await broker?.stop();
  });

  const input = (o: Partial<NetworkServerInputOptions> & Pick<NetworkServerInputOptions, 'server'>) =>
    new NetworkServerInput({
      settings: { url: broker.url, applications: [APP], qos: 1 },
      gatewayId: 'gw-lora',
      registry,
      links: new DeviceLinks(),
      metrics: new Registry(),
      log: new MemoryLog(),
      reconnectPeriodMs: 200,
      ...o,
    });

  it('takes the uplinks of its applications from ChirpStack and The Things Stack, as lorawan', async () => {
    const links = new DeviceLinks();
    const cs = input({ server: 'chirpstack', links });
    const tts = input({
      server: 'thingsStack',
      links,
      settings: { url: broker.url, applications: ['chester-tanks@ttn'], qos: 1 },
    });
    const sink = new RecordingSink();
    await cs.start(sink);
    await tts.start(sink);
    const pub = await client(broker.url);
    try {
      await pub.publishAsync(CS_TOPIC, fixture('chirpstack-ldds75-up.json'), { qos: 1 });
      await pub.publishAsync(TTS_TOPIC, fixture('things-stack-ldds75-up.json'), { qos: 1 });
      // Not its applications, not uplinks: not taken.
      await pub.publishAsync(CS_TOPIC.replace(APP, 'other-app'), '{}', { qos: 1 });
      await pub.publishAsync(CS_TOPIC.replace('/event/up', '/event/join'), '{}', { qos: 1 });
      await waitFor(() => sink.stored.length === 2, 5000, 'two uplinks');
      await new Promise((r) => setTimeout(r, 200));
      // Two clients of the broker: each delivers its own, in whichever order the broker sends them.
      expect(sink.calls.map((m) => [m.transport, m.topic]).sort()).toEqual(
        [
          ['lorawan', CS_TOPIC],
          ['lorawan', TTS_TOPIC],
        ].sort(),
      );
      expect(links.get('tank-1', 'level')?.counts).toEqual({ uplinks: 2 });
      expect(cs.health()).toMatchObject({
        name: 'lorawan-chirpstack',
        ok: true,
        connected: true,
        uplinks: 1,
      });
      expect(tts.health()).toMatchObject({ name: 'lorawan-thingsStack', ok: true, uplinks: 1, errors: 0 });
    } finally {
      await pub.endAsync();
      await cs.stop();
      await tts.stop();
    }
  });

  it('acknowledges a QoS 1 uplink only once stored: lost before that, it comes again', async () => {
    const proxy = new TcpProxy(broker.port);
    await proxy.start();
    const sink = new RecordingSink();
    let open: (() => void) | undefined;
    sink.gate = () =>
      sink.calls.length === 1
        ? new Promise<void>((resolve) => {
            open = resolve;
          })
        : undefined;
    const cs = input({
      server: 'chirpstack',
      settings: { url: proxy.url, applications: [APP], qos: 1, clientId: 'gw-lora-acks' },
    });
    const pub = await client(broker.url);
    try {
      await cs.start(sink);
      await pub.publishAsync(CS_TOPIC, fixture('chirpstack-ldds75-up.json'), { qos: 1 });
      await waitFor(() => open !== undefined, 5000, 'the uplink being stored');
      // The connection is lost while the uplink is being stored: no PUBACK went out.
      proxy.cut();
      open!();
      await waitFor(() => sink.stored.length === 2, 10_000, 'the uplink delivered again');
      expect(sink.stored.map((m) => m.payload.toString())).toEqual([
        fixture('chirpstack-ldds75-up.json'),
        fixture('chirpstack-ldds75-up.json'),
      ]);
      // Stored the second time and acknowledged: another lost connection brings nothing back.
      await new Promise((r) => setTimeout(r, 300));
      proxy.cut();
      await waitFor(() => cs.health().connected === true && proxy.connections >= 3, 10_000, 'reconnected');
      await new Promise((r) => setTimeout(r, 500));
      expect(sink.calls).toHaveLength(2);
    } finally {
      await pub.endAsync();
      await cs.stop();
      await proxy.stop();
    }
  });
});
