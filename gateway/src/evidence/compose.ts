/**
 * The evidence stage as the configuration asks for it: its signing key, and the places its checkpoints
 * go off the box (InfluxDB when configured, witnesses, the e-mail digest, and the MQTT broker once the
 * inputs are built), each with the way to read its copy back where there is one.
 */
import { readFileSync } from 'node:fs';
import { type Config, externalBrokerUrls } from '../config/schema.ts';
import { readRetained } from '../ingest/mqtt/retained.ts';
import type { NotificationStage } from '../notify/stage.ts';
import type { InfluxOutput } from '../outputs/influx/index.ts';
import { escapeKey, stringField } from '../outputs/influx/lineProtocol.ts';
import type { Log } from '../pipeline.ts';
import { Cursor } from '../store/cursor.ts';
import type { StoreStage } from '../store/stage.ts';
import { loadSigningKey } from './keys.ts';
import {
  checkpointLine,
  checkpointTopic,
  digestPublisher,
  influxV1ReadBack,
  mqttPublisher,
  witnessPublisher,
  witnessReadBack,
} from './publishers.ts';
import { type CheckpointPublisher, EvidenceStage } from './stage.ts';

export function evidenceStage(
  config: Config,
  deps: {
    store: StoreStage;
    influx: InfluxOutput;
    notifications: NotificationStage;
    log: Log;
    now: () => number;
  },
): EvidenceStage {
  const { store, influx, notifications, log, now } = deps;
  // On the store's stand-in (the data directory cannot be written) the key is not created there: the
  // stage is held and signs nothing until the gateway starts over on the real store.
  const key = loadSigningKey({
    gatewayId: config.gatewayId,
    dataDir: config.dataDir,
    keyFile: config.evidence.keyFile,
    ephemeral: store.standIn !== undefined,
  });
  if (key.generated)
    log.info({ file: key.file, verifierKey: key.verifierKey }, 'generated the checkpoint signing key');
  const stage = new EvidenceStage({
    db: store.db,
    log: store.evidence,
    key,
    logger: log,
    now,
    intervalMs: config.evidence.checkpointIntervalSeconds * 1000,
    heldBecause: store.standIn,
    write: store.gate.write,
  });
  if (config.influx.url) {
    const esc = { key: escapeKey, str: stringField };
    stage.publishTo({
      name: 'influxdb',
      where: config.influx.db ? 'InfluxDB' : 'InfluxDB 2',
      publish: async (cp) => influx.enqueueLine(checkpointLine(config.gatewayId, cp, esc)),
      ...(config.influx.db
        ? { readBack: influxV1ReadBack(config.influx.url, config.influx.db, config.gatewayId) }
        : {}),
    });
  }
  const webhook = notifications.webhook;
  for (const w of config.evidence.witnesses) {
    if (!webhook)
      throw new Error('evidence.witnesses needs notify.webhookSecret (checkpoints are signed like webhooks)');
    stage.publishTo(
      witnessPublisher(
        w.url,
        webhook,
        config.gatewayId,
        w.latestUrl ? witnessReadBack(w.latestUrl) : undefined,
      ),
    );
  }
  if (config.evidence.digestTo.length) {
    const email = notifications.email;
    if (!email) throw new Error('evidence.digestTo needs notify.smtp');
    stage.publishTo(
      digestPublisher(
        config.evidence.digestTo,
        email,
        config.gatewayId,
        new Cursor(store.db, 'evidence-digest'),
        key.verifierKey,
      ),
    );
  }
  return stage;
}

/**
 * Checkpoints retained on the broker the gateway publishes to. An external broker's copy is read back at
 * start over a connection of its own; the embedded broker's is on this box and proves nothing.
 */
export function mqttCheckpoints(
  config: Config,
  publisher: Parameters<typeof mqttPublisher>[1],
): CheckpointPublisher {
  const urls = externalBrokerUrls(config.mqtt);
  if (urls.length === 0) return mqttPublisher(config.gatewayId, publisher);
  const m = config.mqtt;
  const tls = m.clientTls;
  const opts = {
    urls,
    clientId: m.clientId ?? `gateway-${config.gatewayId}`,
    protocolVersion: m.protocolVersion,
    ...(m.username ? { username: m.username } : {}),
    ...(m.password ? { password: m.password } : {}),
    ...(tls?.caFile ? { ca: readFileSync(tls.caFile) } : {}),
    ...(tls?.certFile ? { cert: readFileSync(tls.certFile) } : {}),
    ...(tls?.keyFile ? { key: readFileSync(tls.keyFile) } : {}),
  };
  return mqttPublisher(config.gatewayId, publisher, () =>
    readRetained(opts, checkpointTopic(config.gatewayId)),
  );
}
