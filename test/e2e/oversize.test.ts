/**
 * A publish over ingest.maxPayloadBytes (4096) but under mqtt.maxPacketBytes (1 MiB) against the gateway
 * process: read, refused as oversize with the device it names, recorded and counted, then acknowledged
 * (MQTT 3.1.1: a plain PUBACK; MQTT 5: reason code 0x83 with the Reason String "Packet too large: …"),
 * on the same connection, and the device's next reading is stored. Before, it closed the connection and
 * the client sent it again after every reconnect, its next reading never stored. Devices: mqtt.js 3.1.1
 * and 5, and `mosquitto_pub -l` (each stdin line a publish on one connection). A v5 CONNACK carries the
 * Maximum Packet Size; a packet over the hard cap still closes the connection. Then the same through an
 * external Mosquitto configured as deploy/mosquitto.conf is (max_packet_size 1 MiB): the gateway, its
 * subscriber, records and acknowledges it once, and stores the next reading.
 */
import { spawn } from 'node:child_process';
import mqtt, { type IClientOptions, type MqttClient, type Packet } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { waitFor } from '../helpers/env.ts';
import { faultConfig, metrics, metricValue, T } from '../helpers/faults.ts';
import {
  haveMosquitto,
  type Mosquitto,
  mosquittoProgram,
  start as startMosquitto,
} from '../helpers/mosquitto.ts';

const BIG = 300 * 1024;
const big = (seq: number) => JSON.stringify({ seq, rainTips: 1, pad: 'x'.repeat(BIG) });
const valid = (seq: number) => JSON.stringify({ seq, rainTips: seq });

interface Rejection {
  reason: string;
  deviceId?: string;
  detail: string;
}

/** A device client that counts its CONNACKs and keeps the PUBACKs it received. */
async function deviceClient(url: string, deviceId: string, o: IClientOptions = {}) {
  const c = mqtt.connect(url, {
    clientId: `maple-ridge/${deviceId}`,
    username: `maple-ridge/${deviceId}`,
    password: `pw-${deviceId}`,
    reconnectPeriod: 500,
    ...o,
  });
  const seen = { connacks: [] as Packet[], pubacks: [] as Packet[], closes: 0 };
  c.on('packetreceive', (p) => {
    if (p.cmd === 'connack') seen.connacks.push(p);
    if (p.cmd === 'puback') seen.pubacks.push(p);
  });
  c.on('close', () => seen.closes++);
  c.on('error', () => {});
  await new Promise((r) => c.once('connect', r));
  return { c, seen };
}

/** Publishes at QoS 1: 'acknowledged', or the error the client was told (a v5 reason code). */
const publish = (c: MqttClient, topic: string, payload: string) =>
  c.publishAsync(topic, payload, { qos: 1 }).then(
    () => ({ outcome: 'acknowledged' as const }),
    (e: Error & { code?: number }) => ({ outcome: 'refused' as const, code: e.code, message: e.message }),
  );

describe('an oversize publish against the embedded broker (gateway process)', () => {
  let gw: GatewayChild;
  beforeAll(async () => {
    gw = await startGatewayChild(faultConfig({ ingest: { deviceRatePerSec: 1000, deviceBurst: 1000 } }));
  });
  afterAll(() => gw?.cleanup());

  const stored = async (deviceId: string) =>
    (
      (await (
        await fetch(
          `${gw.httpUrl}/api/telemetry?siteId=maple-ridge&deviceId=${deviceId}&from=0&to=2100-01-01T00:00:00Z`,
        )
      ).json()) as { readings: Array<{ seq?: number }> }
    ).readings;
  const rejections = async () => (await (await fetch(`${gw.httpUrl}/api/rejections`)).json()) as Rejection[];
  const oversizeCount = async () =>
    metricValue(await metrics(gw.httpUrl), 'gateway_rejections_total', 'reason="oversize"');

  it('MQTT 3.1.1 (mqtt.js): a plain PUBACK, recorded and counted, the same connection, the next reading stored', async () => {
    const before = await oversizeCount();
    const { c, seen } = await deviceClient(gw.mqttUrl, 'rg-1', { protocolVersion: 4, clean: false });
    expect(await publish(c, T('rg-1'), big(1))).toEqual({ outcome: 'acknowledged' });
    expect(await publish(c, T('rg-1'), valid(2))).toEqual({ outcome: 'acknowledged' });
    expect((await stored('rg-1')).map((r) => r.seq)).toEqual([2]);
    expect(seen.connacks).toHaveLength(1);
    expect(seen.closes).toBe(0);
    expect(await oversizeCount()).toBe(before + 1);
    const rec = (await rejections()).find((r) => r.reason === 'oversize' && r.deviceId === 'rg-1');
    expect(rec?.detail).toMatch(/exceeds 4096/);
    await c.endAsync();
  });

  it('MQTT 5 (mqtt.js): the CONNACK tells the maximum packet size; a PUBACK with reason code 0x83 "Packet too large", the next reading stored', async () => {
    const before = await oversizeCount();
    const { c, seen } = await deviceClient(gw.mqttUrl, 'rg-2', { protocolVersion: 5 });
    expect(seen.connacks[0]).toMatchObject({ reasonCode: 0, properties: { maximumPacketSize: 1024 * 1024 } });
    expect(await publish(c, T('rg-2'), big(1))).toMatchObject({ outcome: 'refused', code: 0x83 });
    const ack = seen.pubacks.at(-1) as Packet & {
      reasonCode?: number;
      properties?: { reasonString?: string };
    };
    expect(ack.reasonCode).toBe(0x83);
    expect(ack.properties?.reasonString).toMatch(/^Packet too large: payload of \d+ bytes exceeds 4096/);
    expect(await publish(c, T('rg-2'), valid(2))).toEqual({ outcome: 'acknowledged' });
    expect((await stored('rg-2')).map((r) => r.seq)).toEqual([2]);
    expect(seen.connacks).toHaveLength(1);
    expect(seen.closes).toBe(0);
    expect(await oversizeCount()).toBe(before + 1);
    // Subscribing and unsubscribing answer in MQTT 5 too (a device may read its own commands).
    const granted = await c.subscribeAsync('sites/maple-ridge/devices/rg-2/cmd', { qos: 1 });
    expect(granted[0]?.qos).toBe(1);
    await c.unsubscribeAsync('sites/maple-ridge/devices/rg-2/cmd');
    expect(c.connected).toBe(true);
    await c.endAsync();
  });

  it.runIf(haveMosquitto(['mosquitto_pub']))(
    'mosquitto_pub -l: both lines acknowledged on one connection, the second stored',
    async () => {
      const before = await oversizeCount();
      const pub = spawn(mosquittoProgram('mosquitto_pub')!, [
        ...['-h', '127.0.0.1', '-p', String(gw.mqttPort), '-i', 'maple-ridge/rg-3'],
        ...['-u', 'maple-ridge/rg-3', '-P', 'pw-rg-3', '-q', '1', '-t', T('rg-3'), '-l', '-d'],
      ]);
      let out = '';
      pub.stdout.on('data', (d) => {
        out += d;
      });
      pub.stderr.on('data', (d) => {
        out += d;
      });
      pub.stdin.end(`${big(1)}\n${valid(2)}\n`);
      const code = await new Promise<number | null>((r) => pub.once('exit', r));
      expect(code, out).toBe(0);
      expect((out.match(/received PUBACK/g) ?? []).length).toBe(2);
      expect((out.match(/sending CONNECT/g) ?? []).length).toBe(1);
      expect((await stored('rg-3')).map((r) => r.seq)).toEqual([2]);
      expect(await oversizeCount()).toBe(before + 1);
    },
    30_000,
  );

  it('a packet over mqtt.maxPacketBytes (1 MiB) still closes the connection', async () => {
    const before = metricValue(await metrics(gw.httpUrl), 'gateway_mqtt_oversize_packets_total');
    const { c } = await deviceClient(gw.mqttUrl, 'trap-1', { protocolVersion: 4, reconnectPeriod: 0 });
    const closed = new Promise<'closed'>((r) => c.once('close', () => r('closed')));
    c.publish(T('trap-1'), 'x'.repeat(1024 * 1024 + 1), { qos: 1 });
    expect(await closed).toBe('closed');
    expect(metricValue(await metrics(gw.httpUrl), 'gateway_mqtt_oversize_packets_total')).toBe(before + 1);
    c.end(true);
  });
});

describe.runIf(haveMosquitto(['mosquitto']))('an oversize publish through an external Mosquitto', () => {
  let broker: Mosquitto;
  let gw: GatewayChild;
  beforeAll(async () => {
    // As deploy/mosquitto.conf: packets up to 1 MiB, no message_size_limit (see docs/security-and-faults.md).
    broker = await startMosquitto({ extraConfig: ['max_packet_size 1048576'] });
    gw = await startGatewayChild(faultConfig({ mqtt: { url: broker.url } }));
  });
  afterAll(async () => {
    await gw?.cleanup();
    await broker?.stop();
  });

  it('the gateway records it once and acknowledges it; the device is acknowledged; the next reading is stored', async () => {
    const connects = () => (broker.log().match(/New client connected .* as gateway-faults/g) ?? []).length;
    const before = connects();
    const c = await mqtt.connectAsync(broker.url, { clientId: 'rg-1-field', protocolVersion: 5 });
    expect(await publish(c, T('rg-1'), big(1))).toEqual({ outcome: 'acknowledged' });
    expect(await publish(c, T('rg-1'), valid(2))).toEqual({ outcome: 'acknowledged' });
    const readings = async () =>
      (
        (await (
          await fetch(
            `${gw.httpUrl}/api/telemetry?siteId=maple-ridge&deviceId=rg-1&from=0&to=2100-01-01T00:00:00Z`,
          )
        ).json()) as { readings: Array<{ seq?: number }> }
      ).readings;
    await waitFor(async () => (await readings()).length === 1, 20_000, 'the next reading stored');
    expect((await readings()).map((r) => r.seq)).toEqual([2]);
    const m = await metrics(gw.httpUrl);
    expect(metricValue(m, 'gateway_rejections_total', 'reason="oversize"')).toBe(1);
    // Not delivered again and again: the gateway's own connection stayed.
    expect(connects(), broker.log()).toBe(before);
    await c.endAsync();
  }, 60_000);
});
