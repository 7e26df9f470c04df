/**
 * The composition root: the only place that wires stages together. Outputs start first and inputs
 * last; everything stops in reverse, so no input hands data to a stage that is gone.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { parseDeviceTopic } from '../../shared/src/topics.ts';
import { type AlertEvent, ComplianceEngine } from './alerts/engine.ts';
import { Auth } from './api/auth.ts';
import type { ApiContext, HealthReport } from './api/context.ts';
import { EventHub } from './api/events.ts';
import { alertsPlugin } from './api/plugins/alerts.ts';
import { importsPlugin } from './api/plugins/imports.ts';
import { reportsPlugin } from './api/plugins/reports.ts';
import { buildApi } from './api/server.ts';
import type { Config } from './config/schema.ts';
import { buildRegistry } from './decode/registry.ts';
import { importText } from './import/run.ts';
import { EmbeddedMqttInput } from './ingest/mqtt/embedded.ts';
import { ExternalMqttInput } from './ingest/mqtt/external.ts';
import { SerialInput } from './ingest/serial/serialInput.ts';
import { IngestStage } from './ingest/stage.ts';
import { createLog } from './log.ts';
import { Registry } from './metrics.ts';
import { HttpWebhookSender, NotificationDispatcher, SmtpEmailSender } from './notify/index.ts';
import type { ComponentHealth, Input, Log, Output } from './pipeline.ts';
import { evaluatorsFor } from './rules/index.ts';
import { Cursor } from './store/cursor.ts';
import { InfluxOutput } from './store/influx/index.ts';
import { InfluxOutbox } from './store/influxOutbox.ts';
import { openStore } from './store/open.ts';
import { ReadingStore } from './store/readings.ts';

export interface GatewayOptions {
  log?: Log;
  now?: () => number;
  /** Started on a stand-in store (the disk was full): called once the real one could be opened. */
  onStoreBack?: () => void;
}

export interface Gateway {
  httpUrl: string;
  mqttUrl: string;
  mqttPort: number;
  httpPort: number;
  config: Config;
  metrics: Registry;
  stop(): Promise<void>;
}

/** Something that can publish as the gateway (the embedded broker or the external client). */
interface Publisher {
  publish(topic: string, payload: string, opts?: { retain?: boolean; qos?: 0 | 1 }): Promise<void>;
}

export async function startGateway(config: Config, opts: GatewayOptions = {}): Promise<Gateway> {
  const log = opts.log ?? createLog((process.env.LOG_LEVEL as 'info') || 'info');
  const now = opts.now ?? Date.now;
  const startedAt = now();
  const metrics = new Registry();
  metrics
    .gauge('process_resident_memory_bytes', 'Resident memory of the gateway process')
    .collect((set) => set(process.memoryUsage.rss()));
  metrics
    .gauge('nodejs_memory_bytes', 'Node.js memory by kind (heapUsed, heapTotal, external, arrayBuffers)')
    .collect((set) => {
      const m = process.memoryUsage();
      for (const kind of ['heapUsed', 'heapTotal', 'external', 'arrayBuffers'] as const)
        set(m[kind], { kind });
    });
  const registry = buildRegistry(config);

  // Store
  const { db, gate, standIn } = openStore(config.dataDir, { ...config.storage, log });
  const readings = new ReadingStore(db);
  const outbox = new InfluxOutbox(db);

  // Outputs
  const outputs: Output[] = [];
  const influx = new InfluxOutput({ db, outbox, influx: config.influx, metrics, log, now });
  outputs.push(influx);

  // Processing. The rules' position in the readings is persisted inside the next group commit, so it costs
  // no commit of its own; after a crash the rules re-evaluate from there (evaluators ignore a repeated reading).
  const rulesCursor = new Cursor(db, 'rules');
  let evaluatedUpTo: number | undefined;
  let savedUpTo: number | undefined;
  const stage = new IngestStage({
    inTransaction: () => {
      if (evaluatedUpTo !== undefined && evaluatedUpTo !== savedUpTo) {
        rulesCursor.write(evaluatedUpTo);
        savedUpTo = evaluatedUpTo;
      }
    },
    db,
    store: readings,
    registry,
    ingest: config.ingest,
    metrics,
    log,
    now,
    gate,
    rejectionsKept: config.storage.rejectionsKept,
  });
  const events = new EventHub();
  stage.onStored((rs) => influx.offer(rs));

  // Compliance: rules, deadlines, alert lifecycle, notifications
  const webhook = config.notify.webhookSecret
    ? new HttpWebhookSender({ secret: config.notify.webhookSecret, gatewayId: config.gatewayId })
    : undefined;
  const email = config.notify.smtp
    ? new SmtpEmailSender({ smtp: config.notify.smtp, gatewayId: config.gatewayId })
    : undefined;
  let publisher: Publisher | undefined;
  const dispatcher = new NotificationDispatcher({
    db,
    config,
    channels: {
      mqtt: {
        publish: (topic: string, payload: string) =>
          publisher
            ? publisher.publish(topic, payload, { qos: 1 })
            : Promise.reject(new Error('no MQTT connection yet')),
      },
      ...(webhook ? { webhook } : {}),
      ...(email ? { email } : {}),
    },
    now,
    log,
    metrics,
  });
  outputs.push(dispatcher);
  const onAlertEvent = (e: AlertEvent) => {
    events.publish(
      e.type,
      e.type === 'alert' ? { action: e.action, alert: e.alert } : e.type === 'storm' ? e.storm : e.inspection,
    );
    if (e.type === 'alert') influx.alertChanged(e.alert, e.action);
  };
  const engine = new ComplianceEngine({
    db,
    config,
    evaluatorsFor,
    now,
    log,
    metrics,
    onChange: onAlertEvent,
    onNotify: () => dispatcher.notify(),
  });
  stage.onStored((rs) => {
    try {
      engine.handleReadings(rs);
      evaluatedUpTo = rs[rs.length - 1]!.id;
    } catch (e) {
      log.error(
        { err: (e as Error).message },
        'rule evaluation failed; readings stay stored and are replayed on restart',
      );
    }
  });
  stage.onStored((rs) => {
    if (events.size === 0) return;
    const latest = new Map<string, (typeof rs)[number]>();
    for (const r of rs) latest.set(`${r.siteId}/${r.deviceId}`, r);
    events.publish('readings', {
      count: rs.length,
      latest: [...latest.values()].map((r) => ({
        siteId: r.siteId,
        deviceId: r.deviceId,
        ts: new Date(r.ts).toISOString(),
        values: r.values,
        ...(r.alarms ? { alarms: r.alarms } : {}),
      })),
    });
  });
  stage.onDeviceStatus((siteId, deviceId, status, at) =>
    events.publish('device-status', { siteId, deviceId, status, at: new Date(at).toISOString() }),
  );

  // Inputs
  const inputs: Input[] = [];
  let mqttPort = 0;
  let embedded: EmbeddedMqttInput | undefined;
  if (config.mqtt.url) {
    const ext = new ExternalMqttInput({
      url: config.mqtt.url,
      gatewayId: config.gatewayId,
      clientId: config.mqtt.clientId ?? `gateway-${config.gatewayId}`,
      ...(config.mqtt.username ? { username: config.mqtt.username } : {}),
      ...(config.mqtt.password ? { password: config.mqtt.password } : {}),
      ...(config.mqtt.clientTls?.caFile ? { ca: readFileSync(config.mqtt.clientTls.caFile) } : {}),
      ...(config.mqtt.clientTls?.certFile ? { cert: readFileSync(config.mqtt.clientTls.certFile) } : {}),
      ...(config.mqtt.clientTls?.keyFile ? { key: readFileSync(config.mqtt.clientTls.keyFile) } : {}),
      metrics,
      log,
    });
    inputs.push(ext);
    publisher = ext;
  } else {
    embedded = new EmbeddedMqttInput({
      mqtt: config.mqtt,
      maxPacketBytes: config.mqtt.maxPacketBytes ?? config.ingest.maxPayloadBytes + 4096,
      gatewayId: config.gatewayId,
      registry,
      metrics,
      log,
      now,
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

  const health = (): HealthReport => {
    const components: ComponentHealth[] = [];
    try {
      db.prepare('SELECT 1').get();
      components.push({ ...gate.health(), readings: readings.count() });
    } catch (e) {
      components.push({ name: 'store', ok: false, detail: (e as Error).message });
    }
    for (const i of inputs) {
      const h = i.health();
      components.push(...(Array.isArray(h) ? h : [h]));
    }
    for (const o of outputs) components.push(o.health());
    return {
      status: components.every((c) => c.ok) ? 'ok' : 'degraded',
      gatewayId: config.gatewayId,
      startedAt: new Date(startedAt).toISOString(),
      uptimeSeconds: Math.round((now() - startedAt) / 1000),
      components,
    };
  };

  const ctx: ApiContext = {
    config,
    auth: new Auth(config.auth.tokens, config.http.authenticateReads, () =>
      metrics.counter('gateway_login_throttled_total', 'Logins refused unchecked').inc({ transport: 'http' }),
    ),
    registry,
    readings,
    devices: stage,
    health,
    storeReadOnly: () => gate.readOnly,
    metrics,
    events,
    now,
    compliance: engine,
    notifications: dispatcher,
    deadLetters: (limit) => outbox.deadLetters(limit),
    importLogger: async (text, q) => {
      const device = registry.lookup(q.siteId, q.deviceId)!;
      // A device's later files continue its counter and sequence; re-imported tips are duplicates by time.
      const last = readings.lastOf(q.siteId, q.deviceId);
      return importText(
        text,
        q.name,
        {
          siteId: q.siteId,
          deviceId: q.deviceId,
          tipMm: (device.device.inchesPerTip ?? 0.01) * 25.4,
          ...(q.format ? { format: q.format } : {}),
          ...(q.utcOffsetMinutes !== undefined ? { utcOffsetMinutes: q.utcOffsetMinutes } : {}),
          ...(q.timeZone ? { timeZone: q.timeZone } : {}),
          ...(q.skipBefore ? { skipBefore: q.skipBefore } : {}),
          ...(last ? { startCount: last.values.rainTips ?? 0, startSeq: (last.seq ?? 0) + 1 } : {}),
          now,
        },
        stage,
      );
    },
  };
  const api = await buildApi({
    ctx,
    plugins: [alertsPlugin, reportsPlugin, importsPlugin],
    ...(config.http.tls
      ? {
          https: { cert: readFileSync(config.http.tls.certFile), key: readFileSync(config.http.tls.keyFile) },
        }
      : {}),
  });

  // Retention
  const prune = () => {
    try {
      const { retentionDays: days, rejectionsKept: kept, rejectionRetentionDays: rejDays } = config.storage;
      const before = days > 0 ? now() - days * 86_400_000 : 0;
      // Readings InfluxDB does not have yet are kept until it has them.
      const res = readings.prune(before, kept, now(), influx.writtenUpTo(), now() - rejDays * 86_400_000);
      if (res.readings || res.rejections) log.info(res, 'retention: pruned old rows');
    } catch (e) {
      log.error({ err: (e as Error).message }, 'retention prune failed');
    }
  };

  // Start: outputs first, inputs last.
  const started: Array<{ stop(): Promise<void> }> = [];
  try {
    for (const o of outputs) {
      await o.start();
      started.push(o);
    }
    await stage.start();
    started.push(stage);
    // Readings committed but not yet evaluated when the gateway last died are evaluated now.
    const from = rulesCursor.read();
    try {
      if (from === undefined) rulesCursor.write(readings.head().id);
      else
        for (
          let batch = readings.after(from, 5000);
          batch.length;
          batch = readings.after(batch.at(-1)!.id, 5000)
        ) {
          engine.handleReadings(batch);
          rulesCursor.write(batch.at(-1)!.id);
          log.info({ readings: batch.length }, 'evaluated readings stored before the last stop');
        }
    } catch (e) {
      // A full disk: the readings stay stored and are evaluated at the next start that can write.
      if (gate.readOnly === undefined && !gate.failed(e)) throw e;
      log.error({ err: (e as Error).message }, 'cannot evaluate readings stored before the last stop now');
    }
    engine.start();
    started.push({ stop: async () => engine.stop() });
    prune();
    const pruneTimer = setInterval(prune, 3_600_000);
    pruneTimer.unref();
    if (standIn && opts.onStoreBack) gate.onSpaceBack(opts.onStoreBack);
    started.push({ stop: async () => clearInterval(pruneTimer) });
    await api.listen({ port: config.http.port, host: config.http.host });
    started.push({ stop: () => api.close() });
    for (const i of inputs) {
      await i.start(stage);
      started.push(i);
    }
  } catch (e) {
    for (const s of started.reverse())
      await s
        .stop()
        .catch((err: Error) => log.error({ err: err.message }, 'error while stopping after a failed start'));
    db.close();
    throw e;
  }
  if (embedded) mqttPort = embedded.port();
  const httpPort = (api.server.address() as AddressInfo).port;
  const scheme = config.http.tls ? 'https' : 'http';
  log.info({ httpPort, mqttPort, gatewayId: config.gatewayId }, 'gateway started');

  let stopping: Promise<void> | undefined;
  return {
    httpUrl: `${scheme}://127.0.0.1:${httpPort}`,
    mqttUrl: config.mqtt.url ?? `mqtt://127.0.0.1:${mqttPort}`,
    mqttPort,
    httpPort,
    config,
    metrics,
    stop: () => {
      stopping ??= (async () => {
        for (const s of started.reverse()) {
          try {
            await s.stop();
          } catch (e) {
            log.error({ err: (e as Error).message }, 'error while stopping');
          }
        }
        email?.close?.();
        gate.stop();
        if (evaluatedUpTo !== undefined && gate.readOnly === undefined) rulesCursor.write(evaluatedUpTo);
        db.close();
        log.info('gateway stopped');
      })();
      return stopping;
    },
  };
}
