/**
 * The compliance report's shape: what its JSON holds (and the verifier reads), what it is built from,
 * and the items its sections list. The sections (`sections/`) fill it; `compliance.ts` puts it together.
 */

import type { ChangeResponse } from '../../../shared/src/admin.ts';
import type { AlertDto, ExtensionDto, InspectionDto, StormDto } from '../../../shared/src/api/alerts.ts';
import type { NoticeDto } from '../../../shared/src/api/notices.ts';
import type { ResolutionCause } from '../../../shared/src/api/resolutionCause.ts';
import type { SiteRecordDto } from '../../../shared/src/api/siteRecords.ts';
import type { Certification } from '../../../shared/src/api/system.ts';
import type { StopWorkDto, ViolationDto } from '../../../shared/src/api/violations.ts';
import type { ReportSection as DutyList } from '../../../shared/src/rules.ts';
import type { SiteConfig } from '../config/schema.ts';
import type { Citations } from '../evidence/citations.ts';
import type { DeviceService } from '../rules/index.ts';
import type { LongStorm } from './cite.ts';

export type DutyStatus = 'on-time' | 'late' | 'missing' | 'overdue' | 'open' | 'resolved' | 'superseded';

export interface DutyRow {
  alertId: string;
  rule: string;
  deviceId: string | null;
  began: string;
  dueAt: string | null;
  originalDueAt: string | null;
  resolvedAt: string | null;
  resolvedBy: string | null;
  /** What closed it (its resolution's cause), and that in words ("by the storm inspection by …"); none before causes were kept. */
  cause?: ResolutionCause;
  resolution?: string;
  status: DutyStatus;
  message: string;
  /** Whether it counts among the summary's duties (the rule module says). */
  duty: boolean;
  /** What the rule calls an unresolved duty past its due time: missing (never done) or overdue. */
  pastDue: 'missing' | 'overdue';
  /** The evidence-log entries of its history, oldest first. */
  historyIndexes: number[];
  /**
   * A duty met by a submittal to the town (`RuleDuty.measure`): when the work it reports was done (its
   * `resolvedAt` is the submittal). Absent for the others.
   */
  workAt?: string;
}

/** How the site's configuration reads a law's deadline where the law leaves the town a choice. */
export interface DeadlineReading {
  rule: string;
  /** The list of the report the rule's duties are in. */
  section: DutyList;
  /** "Deadline read as: …". */
  text: string;
}

/** A person's statement on the record, logged (`POST /api/reports/compliance/certify`). */
export type { Certification };

/** What the summary counts, in order, with the label a person reads. */
export const SUMMARY_LABELS = {
  storms: 'Storm events',
  qualifyingStorms: 'Storms of the threshold or more',
  stormInspectionsOnTime: 'Storm inspections on time',
  stormInspectionsLate: 'Storm inspections late',
  stormInspectionsMissing: 'Storm inspections missing',
  stormInspectionsPending: 'Storm inspections not yet due',
  inspections: 'Inspections recorded',
  noticesOnTime: 'Milestone notices on time',
  noticesLate: 'Milestone notices late',
  violationsIssued: 'Notices of violation issued',
  violationsOnTime: 'Notices of violation corrected on time',
  violationsLate: 'Notices of violation corrected late',
  violationsOpen: 'Notices of violation not yet approved',
  stopWorkOrders: 'Stop-work orders in effect during the period',
  dutiesOnTime: 'Duties met on time',
  dutiesLate: 'Duties met late',
  dutiesMissing: 'Duties missed',
  dutiesOverdue: 'Duties overdue',
  dutiesOpen: 'Duties open, not yet due',
  extensions: "Engineer's extensions",
  gaps: 'Gaps in the evidence',
} as const;
export type SummaryKey = keyof typeof SUMMARY_LABELS;

/** A milestone notice as the report lists it, with its standing in words. */
export type ReportNotice = NoticeDto & { standing: string };
/** A notice of violation as the report lists it: its steps up to the period's end, and its standing in words. */
export type ReportViolation = ViolationDto & { standing: string };
/** A stop-work order as the report lists it: lifted only if lifted before the period's end. */
export type ReportStopWork = StopWorkDto & { standing: string };

export interface ComplianceReport {
  /**
   * What a reader must know before anything else (first in the JSON, at the top of the page): that the
   * gateway's audit found its store does not match its evidence log when the report was made.
   */
  warnings: string[];
  /**
   * The site; the labels of its practices (a construction site's) name each finding's practice, in the
   * report and in the verifier's sentences.
   */
  site: {
    id: string;
    name: string;
    kind: string;
    timezone: string;
    practices?: Array<{ id: string; label: string }>;
  };
  /** Whole days in the site's time zone: `from` is the first day's midnight, `to` the one after the last. */
  period: { from: string; to: string; firstDay: string; lastDay: string };
  generatedAt: string;
  generatedBy: string;
  summary: Record<SummaryKey, number>;
  storms: StormDto[];
  inspections: InspectionDto[];
  /** The milestone notices whose milestone falls in the period (town law 001, A(1)). */
  notices: ReportNotice[];
  /** Notices of violation in force in the period, and stop-work orders in effect in it. */
  violations: ReportViolation[];
  stopWork: ReportStopWork[];
  /**
   * The developer's records of the site on file at the period's end (law 001: certifications, the SWPPP,
   * expected milestones, final acceptance, the one-year inspection).
   */
  records: SiteRecordDto[];
  /** The stop-work order in effect at the period's end, if any (the site's header says so). */
  stopWorkInEffect?: { id: string; since: string; reason: string };
  routine: DutyRow[];
  cleanouts: DutyRow[];
  remedies: DutyRow[];
  other: DutyRow[];
  gaps: DutyRow[];
  /** The rules' deadlines as the site's configuration reads them (the town's choice), printed with their lists. */
  deadlineReadings: DeadlineReading[];
  extensions: ExtensionDto[];
  certifications: Certification[];
  /**
   * Changes to the site and its devices (a calibration, a parameter, a device retired) effective in the
   * period, the site's history on record (entity `history`) dated or recorded in it, and its figures set
   * looser than the law (entity `override`) in the period or in effect when it began.
   */
  changes: ChangeResponse[];
  evidence: {
    /** The signed checkpoint (C2SP note) the cited entries are proved against. */
    checkpoint: { origin: string; size: number; root: string; note: string };
    verifierKey: string;
    /** Every record the report cites, as hashed, and one multi-range inclusion proof of them all. */
    entries: Citations['entries'];
    proof: Citations['proof'];
    /** Storms too long to carry all their readings: cited by their record and first and last readings. */
    longStorms: LongStorm[];
    /** The audit of the store against its evidence log when the report was made. */
    audit: { ok: boolean; detail?: string | undefined };
  };
}

/** What a report is built from: what the store holds for the site and period, and the evidence cited. */
export interface ReportInputs {
  site: SiteConfig;
  timezone: string;
  period: { from: number; to: number; firstDay: string; lastDay: string };
  now: number;
  generatedBy: string;
  /** Alerts open at some time in the period. */
  alerts: AlertDto[];
  storms: StormDto[];
  inspections: InspectionDto[];
  notices: NoticeDto[];
  /**
   * The notices of violation and stop-work orders of the period as the report lists (and cites) them
   * (`sections/violations.ts`, `sections/stopWork.ts`).
   */
  violations: ReportViolation[];
  stopWork: ReportStopWork[];
  /** The developer's records recorded before the period's end (none: an empty list). */
  records?: SiteRecordDto[];
  extensions: ExtensionDto[];
  certifications: Certification[];
  changes: ChangeResponse[];
  evidence: ComplianceReport['evidence'];
  /**
   * Each device's time in service (retired ones too): a gap is listed and counted only where its device
   * was expected to report within the period, as the charts show it. A device not in it: all along.
   */
  services?: ReadonlyMap<string, DeviceService>;
}
