import type { Health } from '../../../shared/src/api.ts';
import type { Catalogue } from '../admin/catalogue.ts';
import type { ChangeLog } from '../admin/changes.ts';
import type { ProfileLibrary } from '../admin/deviceTransport.ts';
import type { ComplianceEngine } from '../alerts/engine.ts';
import type { DeviceRegistry } from '../config/registry.ts';
import type { Config } from '../config/schema.ts';
import type { Enforcement } from '../enforcement/index.ts';
import type { CertificationRecord } from '../evidence/certifications.ts';
import type { EvidenceStage } from '../evidence/stage.ts';
import type { FleetView } from '../fleet/stage.ts';
import type { ImportQuery } from '../import/request.ts';
import type { ImportSummary } from '../import/run.ts';
import type { DeviceLinks } from '../ingest/deviceLinks.ts';
import type { Registry } from '../metrics.ts';
import type { NotificationDispatcher } from '../notify/dispatcher.ts';
import type { SetupCodes } from '../people/setup.ts';
import type { SignIn } from '../people/signIn.ts';
import type { QuarantineRows } from '../quarantine/rows.ts';
import type { QuarantineService } from '../quarantine/service.ts';
import type { Cited, ReportCitations } from '../reports/cite.ts';
import type { EvidenceLog } from '../store/evidenceLog.ts';
import type { PhotoStore } from '../store/photos.ts';
import type { DeviceStateRow, ReadingStore } from '../store/readings.ts';
import type { Auth, People } from './auth.ts';
import type { EventHub } from './events.ts';

/** GET /api/health's report: the contract's shape. */
export type HealthReport = Health;

/**
 * The services the API is built with: small read interfaces, never the stages' internals. No plugin sees
 * all of them: `server.ts` gives each the few its routes use (its `...Services` type).
 */
export interface ApiContext {
  config: Config;
  auth: Auth;
  /** Accounts, sessions, personal tokens, sign-in and the first admin's setup code. */
  people: People & { signIn: SignIn; setup: SetupCodes };
  /** The live sites, devices and recipients (the store's, seeded from the configuration). */
  catalogue: Catalogue;
  changes: ChangeLog;
  /** Runs `fn` in one store transaction. */
  transaction<T>(fn: () => T): T;
  registry: DeviceRegistry;
  readings: ReadingStore;
  devices: { deviceState(siteId: string, deviceId: string): DeviceStateRow | undefined };
  /** How each device of a native transport was heard (the ingest stage's `links`). */
  links: Pick<DeviceLinks, 'get'>;
  /** The ready profiles a device may name (the library). */
  profiles: ProfileLibrary;
  health(): HealthReport;
  /** Why the store is read-only (a full disk), or undefined while it takes writes. */
  storeReadOnly(): string | undefined;
  /** A write failed: true when the disk is the cause (the store then turns read-only). */
  storeFault?(e: unknown): boolean;
  metrics: Registry;
  events: EventHub;
  now(): number;
  /** Photos stored by their hash, who uploaded them, and which sites' records cite them. */
  photos: Pick<PhotoStore, 'tempPath' | 'commit' | 'usage' | 'get' | 'uploadedBy' | 'read' | 'citingSites'>;
  /** Alerts, storms, inspections and extensions. */
  compliance: Pick<
    ComplianceEngine,
    | 'listAlerts'
    | 'getAlert'
    | 'acknowledge'
    | 'resolve'
    | 'extend'
    | 'recordInspection'
    | 'listStorms'
    | 'listInspections'
    | 'getInspection'
    | 'violationInspections'
    | 'listExtensions'
  >;
  /** Milestone notices, notices of violation and stop-work orders (town law 001). */
  enforcement: Enforcement;
  notifications: Pick<NotificationDispatcher, 'list' | 'retryFailed'>;
  deadLetters(limit: number): unknown[];
  /** The evidence log's stage (checkpoints, the audit) and the log itself (proofs, entries). */
  evidence: EvidenceStage;
  log: EvidenceLog;
  /** The entries a report cites, with their proof against the tree of `size` entries (built in slices). */
  citations(r: Cited, size: number, maxReadings: number): Promise<ReportCitations>;
  certifications(siteId: string, from: number, to: number): Array<CertificationRecord & { logIndex: number }>;
  certify(c: CertificationRecord): number;
  /** Other gateways' sites, when this one follows some. */
  fleet: { view(): FleetView };
  /** The messages kept until they can be used, and their release with a clock correction. */
  quarantine: Pick<QuarantineRows, 'list' | 'summary'> & Pick<QuarantineService, 'release'>;
  /** Imports a logger file's text for a rain gauge through the live pipeline. */
  importLogger(text: string, q: ImportQuery): Promise<ImportSummary>;
}
