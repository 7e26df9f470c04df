/**
 * The evidence stage as the configuration asks for it: its signing key, and the places its checkpoints
 * go off the box besides MQTT (InfluxDB when configured, witnesses, the e-mail digest).
 */
import type { Config } from '../config/schema.ts';
import type { NotificationStage } from '../notify/stage.ts';
import type { Log } from '../pipeline.ts';
import { Cursor } from '../store/cursor.ts';
import type { InfluxOutput } from '../store/influx/index.ts';
import { escapeKey, stringField } from '../store/influx/lineProtocol.ts';
import type { StoreStage } from '../store/stage.ts';
import { loadSigningKey } from './keys.ts';
import { checkpointLine, digestPublisher, influxV1ReadBack, witnessPublisher } from './publishers.ts';
import { EvidenceStage } from './stage.ts';

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
  });
  if (config.influx.url) {
    const esc = { key: escapeKey, str: stringField };
    stage.publishTo({
      name: 'influxdb',
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
    stage.publishTo(witnessPublisher(w.url, webhook, config.gatewayId));
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
