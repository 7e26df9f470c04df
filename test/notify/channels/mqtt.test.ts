import { createServer, type Server } from 'node:net';
import { Aedes } from 'aedes';
import mqtt, { type MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { mqttChannel } from '../../../gateway/src/notify/channels/mqtt.ts';
import { NotificationDispatcher } from '../../../gateway/src/notify/dispatcher.ts';
import { freePort, waitFor } from '../../helpers/env.ts';
import {
  addEvent,
  configAndSites,
  makeAlert,
  makeConfig,
  makeDelivery,
  type TempDb,
  tempDb,
} from '../support.ts';

describe('MQTT delivery through a real broker', () => {
  let broker: Aedes | undefined;
  let server: Server | undefined;
  const clients: MqttClient[] = [];
  let store: TempDb | undefined;
  let dispatcher: NotificationDispatcher | undefined;

  afterEach(async () => {
    await dispatcher?.stop();
    for (const c of clients.splice(0)) await c.endAsync(true);
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await new Promise<void>((resolve) => (broker ? broker.close(() => resolve()) : resolve()));
    store?.cleanup();
    dispatcher = undefined;
    store = undefined;
  });

  it('publishes {event, eventId, alert} on alerts/{siteId}/{rule} to a subscriber', async () => {
    broker = await Aedes.createBroker();
    server = createServer(broker.handle);
    const port = await freePort();
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', () => resolve()));

    const subscriber = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
      clientId: 'sub',
      reconnectPeriod: 0,
    });
    clients.push(subscriber);
    const received: Array<{ topic: string; payload: string }> = [];
    subscriber.on('message', (topic, payload) => received.push({ topic, payload: payload.toString() }));
    await subscriber.subscribeAsync('alerts/#', { qos: 1 });

    const publisher = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
      clientId: 'gw',
      reconnectPeriod: 0,
    });
    clients.push(publisher);

    store = tempDb();
    dispatcher = new NotificationDispatcher({
      db: store.db,
      ...configAndSites(makeConfig()),
      channels: {
        mqtt: {
          async publish(topic, payload) {
            await publisher.publishAsync(topic, payload, { qos: 1 });
          },
        },
      },
    });
    await dispatcher.start();
    addEvent(
      store.db,
      'ev-m1',
      'raise',
      makeAlert({ id: 'a-1', rule: 'equipment-remedy', deviceId: 'panel-1' }),
    );
    dispatcher.notify();

    await waitFor(() => received.length === 1, 10_000, 'an MQTT message');
    expect(received[0]!.topic).toBe('alerts/maple-ridge/equipment-remedy');
    const msg = JSON.parse(received[0]!.payload);
    expect(msg).toMatchObject({
      event: 'raise',
      eventId: 'ev-m1',
      alert: { id: 'a-1', deviceId: 'panel-1' },
    });
    await waitFor(
      () => dispatcher!.list({ status: 'sent', channel: 'mqtt' }).length === 1,
      5_000,
      'marked sent',
    );
  });
});

describe('mqttChannel', () => {
  const delivery = makeDelivery({ channel: 'mqtt', target: 'alerts/maple-ridge/storm-inspection' });

  it('publishes the body on the target topic and reports success', async () => {
    const sent: Array<[string, string]> = [];
    const channel = mqttChannel({ publish: async (topic, payload) => void sent.push([topic, payload]) });
    expect(await channel.send(delivery)).toEqual({ ok: true });
    expect(sent).toEqual([['alerts/maple-ridge/storm-inspection', delivery.body]]);
  });

  it('reports a publish that fails as retryable', async () => {
    const channel = mqttChannel({
      publish: () => Promise.reject(new Error('no MQTT connection yet')),
    });
    expect(await channel.send(delivery)).toEqual({
      ok: false,
      permanent: false,
      message: 'Error: no MQTT connection yet',
    });
  });

  it('without a publisher, fails every delivery for good, as a channel left out (not a fault)', async () => {
    expect(await mqttChannel(undefined).send(delivery)).toEqual({
      ok: false,
      permanent: true,
      unconfigured: true,
      message: 'no MQTT channel is configured',
    });
  });
});
