/**
 * Simulated LoRaWAN devices heard through a network server: one MQTT client stands in for ChirpStack v4 or
 * The Things Stack v3 and publishes each device's telemetry as that server's uplink event (documented
 * JSON: lorawanUplink.ts), the values encoded through the device's library profile into the frame and the
 * decoded object. The device's DevEUI is made from its site and id (`lorawanDevice`), so the gateway
 * config written for the scenario (gatewayConfig.ts) names the same one.
 */
import { createHash } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import { profileByName } from '../../../gateway/src/decode/profiles/library/index.ts';
import { type LorawanProfile, needsMountHeight } from '../../../gateway/src/decode/profiles/schema.ts';
import type { DeviceKind, TelemetryPayload } from '../../../shared/src/telemetry.ts';
import type { DeviceOutput, SimDevice } from '../devices/base.ts';
import {
  chirpstackUplink,
  encodeThroughProfile,
  type NetworkServerKind,
  thingsStackUplink,
} from './lorawanUplink.ts';
import type { SimDeviceLogin, Transport, TransportStats } from './types.ts';

/** The application the simulated network servers publish under. */
export const SIM_APPLICATION: Record<NetworkServerKind, string> = {
  chirpstack: '5d3b9a60-0c1f-4e2a-9b7d-6a8e1f2c3b4d',
  'things-stack': 'chester-sim@ttn',
};

/**
 * The library profile a simulated device of each kind speaks through: a rain gauge's pulse counter, an
 * ultrasonic sensor over a tank (its level) or a sediment trap (the sediment's depth), and a septic
 * panel's high-water float on a dry contact (its alarm; the panel's other readings are not sent).
 */
const PROFILE_OF: Partial<Record<DeviceKind, string>> = {
  'rain-gauge': 'dragino-lsn50v2-count',
  'holding-tank': 'dragino-ldds75',
  'septic-tank': 'dragino-ldds75',
  'septic-panel': 'dragino-cpl01-float',
  'sediment-trap': 'dragino-ldds75-sediment',
};
/** The mounting height of a sensor that measures a distance down (its profile derives `mount-minus`). */
const MOUNT_HEIGHT_IN = 120;

/** How a simulated device is known on LoRaWAN: its DevEUI, profile and (distance sensors) mounting height. */
export function lorawanDevice(
  siteId: string,
  deviceId: string,
  kind: DeviceKind,
): { devEui: string; profile: string; mountHeightIn?: number } {
  const profile = PROFILE_OF[kind];
  if (!profile) throw new Error(`${siteId}/${deviceId}: no LoRaWAN profile for a ${kind} in the library`);
  const devEui = `a8${createHash('sha256').update(`${siteId}/${deviceId}`).digest('hex').slice(0, 14)}`;
  const p = profileByName(profile);
  return { devEui, profile, ...(p && needsMountHeight(p) ? { mountHeightIn: MOUNT_HEIGHT_IN } : {}) };
}

export interface LorawanTransportOptions {
  /** The network server's broker. */
  url: string;
  server: NetworkServerKind;
  qos?: 0 | 1;
  log?: (msg: string) => void;
}

/** How many transports this process opened, for their client ids. */
let opened = 0;

export class LorawanTransport implements Transport {
  readonly name: string;
  readonly stats: TransportStats = { sent: 0, acked: 0, errors: 0 };
  private client: MqttClient | undefined;
  private readonly fCnt = new Map<SimDevice, number>();
  private inflight = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly o: LorawanTransportOptions) {
    this.name = o.server;
  }

  async open(devices: readonly SimDeviceLogin[]): Promise<void> {
    for (const d of devices) lorawanDevice(d.device.siteId, d.device.deviceId, d.device.kind);
    // A client id of its own: several scenarios in one process (the demo) share the network server's
    // broker, and a second client with the same id would push the first one off.
    this.client = await mqtt.connectAsync(this.o.url, {
      clientId: `sim-${this.o.server}-${process.pid}-${++opened}`,
      reconnectPeriod: 500,
    });
    this.client.on('error', (err) => {
      this.stats.errors++;
      this.o.log?.(`${this.o.server}: ${err.message}`);
    });
  }

  send(device: SimDevice, output: DeviceOutput): void {
    // A link going down or up: the radio is lost or back; the device keeps what it could not send.
    if (output.type !== 'telemetry') {
      if (output.reason === 'reboot' && output.up) this.fCnt.set(device, 0);
      return;
    }
    const client = this.client;
    if (!client) throw new Error(`${device.siteId}/${device.deviceId}: send before open`);
    const id = lorawanDevice(device.siteId, device.deviceId, device.kind);
    const profile = profileByName(id.profile) as LorawanProfile;
    const p: TelemetryPayload = output.payload;
    const enc = encodeThroughProfile(profile, p, id.mountHeightIn);
    const fCnt = this.fCnt.get(device) ?? 0;
    this.fCnt.set(device, fCnt + 1);
    const time = p.ts === undefined ? output.at : typeof p.ts === 'number' ? p.ts : Date.parse(p.ts);
    const frame = {
      ...enc,
      fCnt,
      time,
      devEui: id.devEui,
      deviceName: device.deviceId,
      application: SIM_APPLICATION[this.o.server],
    };
    const up = this.o.server === 'chirpstack' ? chirpstackUplink(frame) : thingsStackUplink(frame);
    this.inflight++;
    this.stats.sent++;
    client.publish(up.topic, up.payload, { qos: this.o.qos ?? 1 }, (err) => {
      this.inflight--;
      if (err) {
        this.stats.errors++;
        this.o.log?.(`${device.siteId}/${device.deviceId}: uplink not published: ${err.message}`);
      } else this.stats.acked++;
      if (this.inflight === 0) for (const w of this.idleWaiters.splice(0)) w();
    });
  }

  async close(timeoutMs = 5000): Promise<void> {
    if (this.inflight > 0)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        this.idleWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    const client = this.client;
    this.client = undefined;
    await client?.endAsync();
  }
}
