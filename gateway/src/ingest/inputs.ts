/**
 * The gateway's inputs from its configuration: the embedded MQTT broker, or a client of an external
 * broker (or broker cluster) when `mqtt.url` or `mqtt.urls` is set, the serial ports, and a client of
 * each LoRaWAN network server in `integrations`. The MQTT side
 * is also how the gateway publishes (alerts, its status).
 */
import { readFileSync } from 'node:fs';
import { parseDeviceTopic } from '../../../shared/src/topics.ts';
import type { DeviceRegistry } from '../config/registry.ts';
import { type Config, externalBrokerUrls } from '../config/schema.ts';
import type { SiteCatalogue, SiteChange } from '../config/sites.ts';
import type { ProfileLibrary } from '../decode/profiles/library/index.ts';
import type { Registry } from '../metrics.ts';
import type { Input, Log } from '../pipeline.ts';
import { buildFieldbusInputs } from './fieldbusInputs.ts';
import type { CredentialCache } from './mqtt/credentialMacs.ts';
import { EmbeddedMqttInput } from './mqtt/embedded.ts';
import { ExternalMqttInput } from './mqtt/external.ts';
import type { Sdi12Outcome } from './sdi12/sdi12Input.ts';
import { SerialInput } from './serial/serialInput.ts';
import type { IngestStage } from './stage.ts';

/** Something that can publish as the gateway (the embedded broker or the external client). */
export interface Publisher {
  publish(topic: string, payload: string, opts?: { retain?: boolean; qos?: 0 | 1 }): Promise<void>;
}

export interface GatewayInputs {
  inputs: Input[];
  publisher: Publisher;
  /** The embedded broker's port once it listens (0 with an external broker). */
  mqttPort(): number;
  /**
   * For the site catalogue's listeners. A device changed (added, edited, retired, its secret rotated): the
   * embedded broker takes its client ids again and, when its secret changed or it was retired, closes its
   * live connections (an external broker keeps its own logins). A site added: an external broker's topics
   * for it are subscribed to (the embedded broker has all).
   */
  siteEvent(e: SiteChange): void;
  /** Measures every SDI-12 device now (none without adapters); resolves once each outcome is stored. */
  measureSdi12(): Promise<Sdi12Outcome[]>;
  /** Polls every Modbus device now (a virtual clock stepped); resolves once their readings are handed over. */
  pollModbus(): Promise<void>;
}

export function buildInputs(
  config: Config,
  deps: {
    /** The live sites (the catalogue's), not the configuration's. */
    sites: Pick<SiteCatalogue, 'sites' | 'site'>;
    registry: DeviceRegistry;
    stage: IngestStage;
    metrics: Registry;
    log: Log;
    now: () => number;
    /** The profiles devices name (default: the library). */
    profiles?: ProfileLibrary;
    /** Device secrets verified before, for the embedded broker. */
    credentials?: CredentialCache;
  },
): GatewayInputs {
  const { sites, registry, stage, metrics, log, now } = deps;
  const inputs: Input[] = [];
  let publisher: Publisher;
  let mqttPort = () => 0;
  let deviceChanged = (_siteId: string, _deviceId: string, _endSession: boolean): void => {};
  let siteAdded = (_siteId: string): void => {};
  const brokerUrls = externalBrokerUrls(config.mqtt);
  if (brokerUrls.length > 0) {
    const tls = config.mqtt.clientTls;
    const ext = new ExternalMqttInput({
      url: brokerUrls,
      protocolVersion: config.mqtt.protocolVersion,
      maxInFlight: config.mqtt.maxInFlight,
      // A shared broker carries other gateways' sites too: only this gateway's own are taken.
      siteIds: sites.sites().map((s) => s.id),
      gatewayId: config.gatewayId,
      clientId: config.mqtt.clientId ?? `gateway-${config.gatewayId}`,
      ...(config.mqtt.username ? { username: config.mqtt.username } : {}),
      ...(config.mqtt.password ? { password: config.mqtt.password } : {}),
      ...(tls?.caFile ? { ca: readFileSync(tls.caFile) } : {}),
      ...(tls?.certFile ? { cert: readFileSync(tls.certFile) } : {}),
      ...(tls?.keyFile ? { key: readFileSync(tls.keyFile) } : {}),
      metrics,
      log,
    });
    inputs.push(ext);
    publisher = ext;
    siteAdded = (siteId) => void ext.siteAdded(siteId);
  } else {
    const embedded = new EmbeddedMqttInput({
      mqtt: config.mqtt,
      maxPacketBytes: maxPacketBytes(config),
      maxPacketBytesBeforeLogin: config.ingest.maxPayloadBytes + 4096,
      gatewayId: config.gatewayId,
      registry,
      metrics,
      log,
      now,
      ...(deps.credentials ? { credentials: deps.credentials } : {}),
      // A publish the topic policy refused is recorded as a rejection.
      onRefused: (topic, payload, clientId, detail) => {
        const t = parseDeviceTopic(topic);
        void stage.refuse(
          { transport: 'mqtt', topic, payload, receivedAt: now(), clientId },
          'not_authorized',
          detail,
          ...(t.kind === 'other' ? [] : [t.siteId, t.deviceId]),
        );
      },
    });
    inputs.push(embedded);
    publisher = embedded;
    mqttPort = () => embedded.port();
    deviceChanged = (siteId, deviceId, endSession) => embedded.deviceChanged(siteId, deviceId, endSession);
  }
  if (config.serial.length)
    inputs.push(
      new SerialInput({
        ports: config.serial,
        maxLineBytes: config.ingest.maxPayloadBytes + 5,
        metrics,
        log,
        now,
      }),
    );
  // LoRaWAN, Modbus RTU, SDI-12: the devices that do not speak the gateway's own JSON.
  const fieldbus = buildFieldbusInputs(config, {
    registry,
    links: stage.links,
    metrics,
    log,
    now,
    ...(deps.profiles ? { profiles: deps.profiles } : {}),
  });
  inputs.push(...fieldbus.inputs);
  const siteEvent = (e: SiteChange): void => {
    if (sites.site(e.siteId)) siteAdded(e.siteId);
    if (e.deviceId) deviceChanged(e.siteId, e.deviceId, e.what === 'secret' || e.what === 'retired');
    fieldbus.devicesChanged();
  };
  return {
    inputs,
    publisher,
    mqttPort,
    siteEvent,
    measureSdi12: fieldbus.measureSdi12,
    pollModbus: fieldbus.pollModbus,
  };
}

/** The hard cap on an MQTT packet once logged in: mqtt.maxPacketBytes, by default 1 MiB (never below a payload's limit). */
export function maxPacketBytes(config: Config): number {
  return (
    config.mqtt.maxPacketBytes ?? Math.max(DEFAULT_MAX_PACKET_BYTES, config.ingest.maxPayloadBytes + 4096)
  );
}

export const DEFAULT_MAX_PACKET_BYTES = 1024 * 1024;
