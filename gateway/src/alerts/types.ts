/**
 * The alert engine's leaf types: the rows of its tables as stored, the inputs of people's actions, and
 * the events it reports to live listeners. Times are epoch ms; the DTOs the API sees are the contract's (`shared/src/api/alerts.ts`).
 */
import type Database from 'better-sqlite3';
import type {
  AlertDto,
  AlertStatus,
  HistoryAction,
  InspectionDto,
  InspectionKind,
  StormDto,
} from '../../../shared/src/api/alerts.ts';
import type {
  Finding,
  InspectionDetails,
  InspectionSide,
  Signature,
} from '../../../shared/src/api/findings.ts';
import type { ExtensionFields } from '../ledger/records.ts';
import type { RuleId } from '../rules/index.ts';
import type { Page } from '../store/page.ts';

export type Db = Database.Database;

export interface AlertRow {
  id: string;
  key: string;
  rule: RuleId;
  site_id: string;
  device_id: string | null;
  status: AlertStatus;
  raised_at: number;
  due_at: number | null;
  original_due_at: number | null;
  message: string;
  evidence: string;
  acknowledged_at: number | null;
  acknowledged_by: string | null;
  resolved_at: number | null;
  resolution: 'auto' | 'manual' | null;
  resolved_by: string | null;
  resolution_message: string | null;
  resolution_evidence: string | null;
  /** What closed it, as canonical JSON (`ResolutionCause`); none before schema version 18. */
  resolution_cause?: string | null;
  within_deadline: number | null;
  overdue_notified: number;
  reminders_sent: string;
  created_at: number;
  updated_at: number;
}

export interface HistoryRow {
  seq: number;
  alert_id: string;
  at: number;
  source_at: number | null;
  actor: string;
  action: HistoryAction;
  detail: string;
  /** Empty, and `hash` its entry's leaf hash (hex), since schema version 7; a chain link before. */
  prev_hash: string;
  hash: string;
  /** Its place in its alert's history (none on rows of schema versions before 6). */
  alert_seq?: number | null;
  /** Its evidence-log entry (the storm record's latest), and that entry's leaf hash. */
  log_idx?: number | null;
  leaf?: Buffer | null;
}

/** A history entry to append; `detail` is stored as canonical JSON. */
export interface HistoryInput {
  alertId: string;
  at: number;
  sourceAt: number | null;
  actor: string;
  action: HistoryAction;
  detail: Record<string, unknown>;
}

export type { StormRow } from '../store/types.ts';

export interface InspectionRow {
  seq: number;
  id: string;
  site_id: string;
  at: number;
  inspector: string;
  kind: InspectionKind;
  notes: string;
  recorded_at: number;
  recorded_by: string;
  /** Empty, and `hash` its entry's leaf hash (hex), since schema version 7; a chain link before. */
  prev_hash: string;
  hash: string;
  /** Its place among its site's inspections (none on rows of schema versions before 6). */
  site_seq?: number | null;
  /** Its findings as canonical JSON (`[]` for none, and on every row of schema versions before 9). */
  findings: string;
  /**
   * Its deficiencies, deficiencies remedied and hauler (`InspectionDetails`) as canonical JSON (`{}` for
   * none, and on every row of schema versions before 14).
   */
  details: string;
  /** Whose it is: `developer` or `town` (none on rows of schema versions before 17: the developer's). */
  side?: string | null;
  /** The site's practices when it was recorded, and how many it covered (none: a site without any). */
  practices?: number | null;
  covered?: number | null;
  /** The inspector's signature as canonical JSON (none on rows recorded without one, and before version 19). */
  signature?: string | null;
  /** The id the browser gave it, when it gave one. */
  client_id?: string | null;
  /** Its evidence-log entry (the storm record's latest), and that entry's leaf hash. */
  log_idx?: number | null;
  leaf?: Buffer | null;
}

export interface ExtensionRow extends ExtensionFields {
  /** Empty, and `hash` its entry's leaf hash (hex), since schema version 7; a chain link before. */
  prev_hash: string;
  hash: string;
  /** Its evidence-log entry (the storm record's latest), and that entry's leaf hash. */
  log_idx?: number | null;
  leaf?: Buffer | null;
}

/** An extension with the site and rule of its alert, as listed. */
export type ExtensionListRow = ExtensionRow & { site_id: string; rule: RuleId };

export interface TimerRow {
  id: number;
  alert_id: string;
  kind: 'reminder' | 'overdue';
  hours: number | null;
  due_at: number;
  fire_at: number;
  fired_at: number | null;
  outcome: 'sent' | 'skipped' | 'cancelled' | null;
}

export interface NewAlert {
  id: string;
  key: string;
  rule: RuleId;
  siteId: string;
  deviceId: string | null;
  raisedAt: number;
  dueAt: number | null;
  message: string;
  evidence: string;
  now: number;
}

export interface AlertQuery {
  siteId?: string;
  status?: AlertStatus | AlertStatus[];
  rule?: string;
  /** true: only overdue (unresolved and now > due); false: only not overdue. */
  overdue?: boolean;
  /** Source time window on raisedAt. */
  from?: number;
  to?: number;
  limit?: number;
  /** One page, newest first (the API's lists); `limit` is then the page's. */
  page?: Page;
  /** Only these sites (a caller who sees only theirs). */
  siteIds?: readonly string[];
}

/** A time range of one site (or every site), for storms, inspections and extensions. */
export interface RangeQuery {
  siteId?: string;
  from?: number;
  to?: number;
  /** One page, newest first (the API's lists); without it, every row in the list's own order. */
  page?: Page;
  /** Only these sites (a caller who sees only theirs). */
  siteIds?: readonly string[];
}

/** GET /api/inspections: a range with the inspection's kind and whose it is. */
export interface InspectionQuery extends RangeQuery {
  kind?: string;
  /** The developer's or the town's (rows recorded before sides were kept are the developer's). */
  side?: string;
}

/** What the engine reports to live listeners (server-sent events), after the change is committed. */
export type AlertEvent =
  | { type: 'alert'; action: HistoryAction; alert: AlertDto }
  | { type: 'storm'; storm: StormDto }
  | { type: 'inspection'; inspection: InspectionDto };

export interface InspectionInput {
  siteId: string;
  /** When the inspection took place, epoch ms. */
  at: number;
  inspector: string;
  kind: InspectionKind;
  notes?: string;
  /** What it found at each of the site's practices (the caller has checked the practices and photos). */
  findings?: Finding[];
  /** The browser's own id: sent again, the first inspection is answered and nothing is recorded. */
  clientId?: string;
  /** Deficiencies to remedy, earlier ones remedied, a pump-out's hauler (the caller has checked them). */
  details?: InspectionDetails;
  /** Whose inspection it is (the caller has checked the account may record it): the developer's when none. */
  side?: InspectionSide;
  /** The site's practices (their ids) when it is recorded: none or [] for a site without any. */
  practices?: readonly string[];
  /** The inspector's signature under the statement (checked by its schema). */
  signature?: Signature;
}

export interface ExtensionInput {
  newDueAt: number;
  engineer: string;
  letterRef: string;
  note?: string;
}

export interface TickResult {
  effects: number;
  reminders: number;
  overdue: number;
}
