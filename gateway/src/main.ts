/**
 * The composition root: it builds each stage after everything it reads, connects them through their
 * subscriptions (the site catalogue's and the engine's `onChange`, the ingest stage's `onStored`), each
 * made once its listener exists, and starts them outputs first and inputs last; they stop in reverse, so
 * no input hands data to a stage that is gone, and the store closes after everything that writes to it.
 * The fleet state and the notifications send through an input (the MQTT side): they start after the
 * inputs and stop before them, so nothing goes to a broker that is not there yet or any more. Each stage
 * owns its own health, mapping and housekeeping (the store its retention, the InfluxDB output its lines, the rules their cursor, the API
 * its live feed, the importer its policy).
 */

import { Catalogue } from './admin/catalogue.ts';
import { ChangeLog } from './admin/changes.ts';
import { alertsAndStorms, ComplianceEngine } from './alerts/engine.ts';
import { RulesStage } from './alerts/stage.ts';
import { ALERT_READINGS } from './alerts/stores/alerts.ts';
import { INSPECTION_PHOTOS } from './alerts/stores/inspections.ts';
import { STORM_READINGS } from './alerts/stores/storms.ts';
import { Auth } from './api/auth.ts';
import { ApiStage } from './api/stage.ts';
import { capabilities, logMissingCapabilities } from './capabilities.ts';
import { refuseExposedDemoSecrets } from './config/demoSecrets.ts';
import { liveRegistry } from './config/registry.ts';
import { type Config, externalBrokerUrls } from './config/schema.ts';
import { publicViewOn } from './config/sections.ts';
import { unknownEuiIdentity } from './decode/native/lorawan.ts';
import { type ProfileLibrary, profileLibrary } from './decode/profiles/library/index.ts';
import { deviceMetrics } from './deviceMetrics.ts';
import { workHalted } from './enforcement/halted.ts';
import {
  CORRECTION_PHOTOS,
  enginePort,
  openEnforcement,
  STOP_WORK_READINGS,
  VIOLATION_READINGS,
} from './enforcement/index.ts';
import { servedByEmail } from './enforcement/served.ts';
import { certificationsOf, certify } from './evidence/certifications.ts';
import { evidenceStage, mqttCheckpoints } from './evidence/compose.ts';
import { FleetStage } from './fleet/stage.ts';
import type { Gateway, GatewayOptions } from './gateway.ts';
import { healthReport } from './health.ts';
import { HomeAssistantStage } from './homeassistant/stage.ts';
import { loggerImporter } from './import/policy.ts';
import { buildInputs } from './ingest/inputs.ts';
import { CredentialMacs } from './ingest/mqtt/credentialMacs.ts';
import { IngestStage } from './ingest/stage.ts';
import { createLog } from './log.ts';
import { processMetrics, Registry } from './metrics.ts';
import { NotificationStage } from './notify/stage.ts';
import { InfluxOutput } from './outputs/influx/index.ts';
import { firstAdminLink, openPeople, withPeople } from './people/index.ts';
import { type Log, type Stage, startInOrder } from './pipeline.ts';
import { QuarantineRows } from './quarantine/rows.ts';
import { QuarantineService } from './quarantine/service.ts';
import { reportCitations } from './reports/cite.ts';
import { stopWorkDocuments } from './reports/stopWorkDoc.ts';
import { noticeDocuments } from './reports/violationDoc.ts';
import { evaluatorsFor } from './rules/index.ts';
import { StoreStage } from './store/stage.ts';

export type { Gateway, GatewayOptions };

export async function startGateway(config: Config, opts: GatewayOptions = {}): Promise<Gateway> {
  const log = opts.log ?? createLog((process.env.LOG_LEVEL as 'info') || 'info');
  const now = opts.now ?? Date.now;
  const startedAt = now();
  const metrics = processMetrics(new Registry());

  const store = new StoreStage({
    dataDir: config.dataDir,
    storage: config.storage,
    photos: config.photos,
    photoCitations: [INSPECTION_PHOTOS, CORRECTION_PHOTOS],
    readingWindows: [STORM_READINGS, ALERT_READINGS, VIOLATION_READINGS, STOP_WORK_READINGS],
    log,
    now,
    metrics,
  });
  try {
    const gw = await compose(config, store, {
      log,
      now,
      startedAt,
      metrics,
      profiles: opts.profiles ?? profileLibrary,
    });
    if (store.standIn && opts.onStoreBack) store.gate.onSpaceBack(opts.onStoreBack);
    return gw;
  } catch (e) {
    await store.stop();
    throw e;
  }
}

async function compose(
  config: Config,
  store: StoreStage,
  deps: {
    log: Log;
    now: () => number;
    startedAt: number;
    metrics: Registry;
    profiles: ProfileLibrary;
  },
): Promise<Gateway> {
  const { log, now, startedAt, metrics, profiles } = deps;
  const { db, readings } = store;
  // Sites, devices and people: the configuration seeds the store at first start, the store holds them.
  // The catalogue is the one source of the live sites; what follows it subscribes to its changes, the
  // decoders first so every later listener sees the change.
  const changes = new ChangeLog(db, store.evidence, now);
  const catalogue = new Catalogue(db, changes, {
    now,
    log,
    mqttUsers: config.mqtt.users.map((u) => u.username),
    timezone: config.timezone,
    profiles,
    fieldbus: { modbus: config.modbus, sdi12: config.sdi12 },
  });
  catalogue.seed(config.sites);
  const registry = liveRegistry(() => catalogue.sites());
  catalogue.onChange(registry.refresh);
  // Nothing listens beyond this machine while a demo secret is in place (the store's devices included).
  await refuseExposedDemoSecrets(
    config,
    registry.all().map((d) => ({ siteId: d.siteId, siteName: d.site.name, device: d.device })),
  );
  const throttled = metrics.counter('gateway_login_throttled_total', 'Logins refused unchecked');
  const checked = metrics.counter(
    'gateway_password_checks_total',
    'Passwords checked against their hash (scrypt), by transport',
  );
  const people = openPeople(db, changes, {
    config,
    now,
    log,
    onThrottled: () => throttled.inc({ transport: 'http' }),
    onChecked: () => checked.inc({ transport: 'http' }),
  });

  // Outputs, and the rules whose changes they carry.
  const notifications = new NotificationStage(config, {
    db,
    now,
    log,
    metrics,
    siteOf: (id) => withPeople(catalogue.site(id), people.accounts.ofSite(id)),
    // A notice or an order is served with its document attached; its first delivery to a party is its
    // service (an order's lifting is told, not served).
    noticeDocument: async (v) => noticeDocumentOf(v),
    stopWorkDocument: async (o) => stopWorkDocumentOf(o),
    onSent: servedByEmail(() => enforcement.violations),
  });
  const engine = new ComplianceEngine({
    db,
    evidence: store.evidence,
    config,
    sites: catalogue,
    evaluatorsFor,
    now,
    log,
    metrics,
  });
  catalogue.onChange(engine.siteEvent);
  engine.onNotify(() => notifications.notify());
  // Notices and orders, each change one unit of work of the engine.
  const enforcement = openEnforcement(
    db,
    enginePort(engine),
    (id) => catalogue.site(id)?.timezone ?? config.timezone,
    // The town's choice of the days to appeal an order under law 000 (Section 5.010 names none).
    config.enforcement.wastewaterAppeal,
  );
  const noticeDocumentOf = noticeDocuments({
    siteOf: (id) => catalogue.site(id),
    inspectionsOf: (id) => engine.listInspections({ siteId: id }),
    timezone: config.timezone,
  });
  const stopWorkDocumentOf = stopWorkDocuments({
    siteOf: (id) => catalogue.site(id),
    noticeOf: (id) => enforcement.violations.get(id),
    timezone: config.timezone,
  });
  const influx = new InfluxOutput({
    db,
    influx: config.influx,
    metrics,
    log,
    now,
    deviceOf: (siteId, deviceId) => registry.lookup(siteId, deviceId),
    dutiesOf: engine.dutiesOf,
  });
  store.keepReadingsAbove(() => influx.writtenUpTo());
  engine.onChange(alertsAndStorms(influx));
  const evidence = evidenceStage(config, { store, influx, notifications, log, now });
  const rules = new RulesStage({ db, readings, engine, log });

  // The ingest stage, its quarantine and the inputs that feed it. Arrivals are stamped with the time the
  // engine's clock guard trusts, never a wall clock that jumped (a reading without `ts` takes it).
  const arrival = engine.trustedNow;
  const quarantineRows = new QuarantineRows(db);
  const ingest = new IngestStage({
    quarantine: quarantineRows,
    inTransaction: rules.inTransaction,
    db,
    store: readings,
    registry,
    ingest: config.ingest,
    metrics,
    log,
    now: arrival,
    gate: store.gate,
    rejectionsKept: config.storage.rejectionsKept,
    profiles,
  });
  ingest.onStored((rs) => influx.offer(rs));
  ingest.onStored(rules.onStored);
  deviceMetrics(metrics, {
    registry,
    deviceState: (siteId, deviceId) => ingest.deviceState(siteId, deviceId),
    openDuties: () => (db.open ? engine.openDuties() : []),
    now,
  });
  const { inputs, publisher, mqttPort, siteEvent, measureSdi12, pollModbus } = buildInputs(config, {
    sites: catalogue,
    registry,
    stage: ingest,
    metrics,
    log,
    now: arrival,
    profiles,
    credentials: new CredentialMacs(db, now, (e) =>
      log.warn({ err: e instanceof Error ? e.message : String(e) }, 'device login cache not stored'),
    ),
  });
  catalogue.onChange(siteEvent);
  const quarantine = new QuarantineService({
    db,
    rows: quarantineRows,
    changes,
    ingest,
    registered: (siteId, deviceId) => registry.lookup(siteId, deviceId) !== undefined,
    heldAs: (siteId, deviceId) => {
      const eui = registry.lookup(siteId, deviceId)?.device.devEui;
      return eui ? [unknownEuiIdentity(eui)] : [];
    },
    clock: (input) => engine.deviceClock(input),
    now,
    log,
  });
  catalogue.onChange(quarantine.siteEvent);
  notifications.publishWith(publisher);
  evidence.publishTo(mqttCheckpoints(config, () => publisher));

  // What publishes the gateway's state: the fleet view and Home Assistant.
  const homeAssistant = config.homeassistant.discovery
    ? new HomeAssistantStage({
        settings: config.homeassistant,
        sources: {
          gatewayId: config.gatewayId,
          timezone: config.timezone,
          sites: () => catalogue.sites(),
          lookup: (siteId, deviceId) => registry.lookup(siteId, deviceId),
          retiredDevices: (siteId) => catalogue.retiredDevices(siteId),
          deviceState: (siteId, deviceId) => ingest.deviceState(siteId, deviceId),
          openDuties: engine.openDuties,
          readings,
        },
        publisher,
        log,
        now,
      })
    : undefined;
  if (homeAssistant) {
    engine.onChange(homeAssistant.alertEvent);
    catalogue.onChange(homeAssistant.siteEvent);
    ingest.onStored(homeAssistant.readingsStored);
  }
  const fleet = new FleetStage({
    config,
    sources: {
      sites: () => catalogue.sites(),
      timezone: config.timezone,
      deviceState: (siteId, deviceId) => ingest.deviceState(siteId, deviceId),
      openAlerts: engine.openDuties,
      stopWork: (siteId) => enforcement.violations.inEffect(siteId),
      workHalted: (siteId) => {
        const site = catalogue.site(siteId);
        if (site?.kind !== 'construction') return null;
        const found = engine.violationInspections(siteId);
        return found.length === 0
          ? null
          : workHalted(found, enforcement.violations.list({ siteId }), site.practices);
      },
    },
    publisher,
    log,
    now,
  });
  engine.onChange(fleet.changed);
  catalogue.onChange(fleet.changed);
  ingest.onDeviceStatus(fleet.changed);

  // The HTTP API, over all of the above; its live feed follows the rules, the ingest stage and the inputs.
  const parts: Stage<never[]>[] = [store, evidence, influx, notifications, ingest, rules, quarantine, fleet];
  if (homeAssistant) parts.push(homeAssistant);
  const api = new ApiStage(config, {
    config,
    auth: new Auth(
      config.auth.tokens,
      publicViewOn(config.http),
      () => throttled.inc({ transport: 'http' }),
      people,
    ),
    people,
    catalogue,
    changes,
    transaction: (fn) => db.transaction(fn)(),
    registry,
    readings,
    devices: ingest,
    links: ingest.links,
    profiles,
    storeReadOnly: () => store.gate.readOnly,
    storeFault: (e) => store.gate.failed(e, 'api'),
    health: () =>
      healthReport([...parts, ...inputs], { gatewayId: config.gatewayId, startedAt, now: now() }, (c) =>
        capabilities(config, c),
      ),
    metrics,
    now,
    compliance: engine,
    enforcement,
    notifications: notifications.dispatcher,
    deadLetters: (limit) => influx.deadLetters(limit),
    quarantine,
    photos: store.photos,
    importLogger: loggerImporter({ registry, readings, sink: ingest, now, settle: rules.settle }),
    evidence,
    log: store.evidence,
    citations: (r, size, maxReadings) => reportCitations(db, store.evidence, r, size, maxReadings),
    certifications: (siteId, from, to) => certificationsOf(db, siteId, from, to),
    certify: (c) => certify(store.evidence, c),
    fleet,
  });
  engine.onChange(api.alertEvent);
  ingest.onStored(api.readingsStored);
  ingest.onDeviceStatus(api.deviceStatus);
  // In start order: outputs first, the API, then the inputs, then what publishes through the inputs' MQTT
  // side (the fleet state and the notifications), so nothing is sent to a broker not there yet; they stop
  // in reverse.
  const viaBroker: Stage<never[]>[] = [fleet, notifications];
  const stages: Stage<never[]>[] = [...parts.filter((p) => !viaBroker.includes(p)), api];

  const stopAll = await startInOrder(
    [...stages, ...inputs.map((i) => ({ start: () => i.start(ingest), stop: () => i.stop() })), ...viaBroker],
    log,
  );
  log.info({ httpPort: api.port(), mqttPort: mqttPort(), gatewayId: config.gatewayId }, 'gateway started');
  logMissingCapabilities(capabilities(config, []), log);
  const setupLink = firstAdminLink(people, config, api.url(), log);

  let stopping: Promise<void> | undefined;
  return {
    httpUrl: api.url(),
    mqttUrl: externalBrokerUrls(config.mqtt)[0] ?? `mqtt://127.0.0.1:${mqttPort()}`,
    mqttPort: mqttPort(),
    httpPort: api.port(),
    config,
    metrics,
    ...(setupLink ? { setupLink } : {}),
    storeFault: (e) => store.gate.failed(e, 'uncaught'),
    settled: () => notifications.settled(),
    measureSdi12,
    links: ingest.links,
    pollModbus,
    stop: () => {
      stopping ??= (async () => {
        await stopAll('error while stopping');
        log.info('gateway stopped');
      })();
      return stopping;
    },
  };
}
