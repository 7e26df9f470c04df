/**
 * The compliance report of one site over a period of whole local days, built from the logged data:
 * storms and their inspections, routine inspections, cleanouts, alarms and remedies, extensions and gaps,
 * each on time, late, missing, overdue or still open; who generated it and who certified it; and the
 * evidence: the signed checkpoint it rests on and every record it cites with its inclusion proof
 * (`evidence/citations.ts`), so that `npm run verify` can check it with nothing but the public key.
 *
 * A duty counts in the period when it was open (or overdue) at any time in it, whatever day it was
 * raised. Which list a rule's alerts go in, and whether they count as duties, is the rule module's
 * (`RuleModule.report`); the storm records carry the storm rule's inspection duty, so its alerts are not
 * listed again. Renderers: `csv.ts`, `html.ts`.
 */
import type { ChangeResponse } from '../../../shared/src/admin.ts';
import type { AlertDto, ExtensionDto, InspectionDto, StormDto } from '../../../shared/src/api/alerts.ts';
import { type NoticeDto, noticeStanding } from '../../../shared/src/api/notices.ts';
import type { SiteConfig } from '../config/schema.ts';
import type { Citations } from '../evidence/citations.ts';
import { reportOf, ruleModule } from '../rules/index.ts';
import type { ReportSection } from '../rules/module.ts';
import type { ShownCertification } from '../verifier/shown.ts';
import type { LongStorm } from './cite.ts';
import type { EnforcementSections, ReportStopWork, ReportViolation } from './enforcement.ts';

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
  status: DutyStatus;
  message: string;
  /** Whether it counts among the summary's duties (the rule module says). */
  duty: boolean;
  /** What the rule calls an unresolved duty past its due time: missing (never done) or overdue. */
  pastDue: 'missing' | 'overdue';
  /** The evidence-log entries of its history, oldest first. */
  historyIndexes: number[];
}

/** A person's statement on the record, logged (`POST /api/reports/compliance/certify`). */
export interface Certification extends ShownCertification {
  checkpoint: { size: number; root: string };
}

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

export interface ComplianceReport {
  /**
   * What a reader must know before anything else (first in the JSON, at the top of the page): that the
   * gateway's audit found its store does not match its evidence log when the report was made.
   */
  warnings: string[];
  site: { id: string; name: string; kind: string; timezone: string };
  /** Whole days in the site's time zone: `from` is the first day's midnight, `to` the one after the last. */
  period: { from: string; to: string; firstDay: string; lastDay: string };
  generatedAt: string;
  generatedBy: string;
  summary: Record<SummaryKey, number>;
  storms: StormDto[];
  inspections: InspectionDto[];
  /** The milestone notices whose milestone falls in the period (town law 001, A(1)). */
  notices: ReportNotice[];
  /** Notices of violation in force in the period, and stop-work orders in effect in it (`enforcement.ts`). */
  violations: ReportViolation[];
  stopWork: ReportStopWork[];
  /** The stop-work order in effect at the period's end, if any (the site's header says so). */
  stopWorkInEffect?: { id: string; since: string; reason: string };
  routine: DutyRow[];
  cleanouts: DutyRow[];
  remedies: DutyRow[];
  other: DutyRow[];
  gaps: DutyRow[];
  extensions: ExtensionDto[];
  certifications: Certification[];
  /**
   * Changes to the site and its devices (a calibration, a parameter, a device retired) effective in the
   * period, and the site's history on record (entity `history`) dated or recorded in it.
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
  /** The notices of violation and stop-work orders of the period, as the report lists them (and cites). */
  enforcement: EnforcementSections;
  extensions: ExtensionDto[];
  certifications: Certification[];
  changes: ChangeResponse[];
  evidence: ComplianceReport['evidence'];
}

/**
 * On time, late, missing (a storm or routine inspection never done), overdue, open, resolved (no
 * deadline), or superseded: closed because a record (an inspection or pump-out on record, or logged late)
 * showed its clock ran from the wrong start; neither met nor missed.
 */
export function dutyStatus(a: AlertDto, now: number): DutyStatus {
  if (a.status === 'resolved' && a.resolution?.evidence.superseded === true) return 'superseded';
  if (a.status === 'resolved') {
    if (a.dueAt === null) return 'resolved';
    return a.withinDeadline === false ? 'late' : 'on-time';
  }
  if (a.dueAt !== null && now > Date.parse(a.dueAt)) return reportOf(a.rule).pastDue;
  return 'open';
}

function row(a: AlertDto, now: number): DutyRow {
  return {
    alertId: a.id,
    rule: a.rule,
    deviceId: a.deviceId ?? null,
    began: a.raisedAt,
    dueAt: a.dueAt,
    originalDueAt: a.originalDueAt ?? null,
    resolvedAt: a.resolvedAt ?? null,
    resolvedBy: a.resolution?.by ?? null,
    status: dutyStatus(a, now),
    message: a.message,
    duty: reportOf(a.rule).duty,
    pastDue: reportOf(a.rule).pastDue,
    historyIndexes: a.history.map((h) => h.logIndex).filter((i): i is number => i !== undefined),
  };
}

/** Whether an alert was open at some time in [from, to): raised before its end, not resolved before its start. */
export function openDuring(a: AlertDto, from: number, to: number): boolean {
  return Date.parse(a.raisedAt) < to && (a.resolvedAt === undefined || Date.parse(a.resolvedAt) >= from);
}

/** The alerts a report lists as duties: the storm rule's are the storm records' inspection status, not listed twice. */
export function listedAlerts(alerts: AlertDto[]): AlertDto[] {
  return alerts.filter((a) => ruleModule(a.rule)?.storms !== true);
}

export function buildComplianceReport(i: ReportInputs): ComplianceReport {
  const rows = listedAlerts(i.alerts).map((a) => row(a, i.now));
  const section = (s: ReportSection) => rows.filter((r) => reportOf(r.rule).section === s);
  const gaps = section('gaps');
  const count = (rs: DutyRow[], s: DutyStatus) => rs.filter((r) => r.status === s).length;
  const qualified = i.storms.filter((s) => s.qualified);
  const stormStatus = (s: string) => qualified.filter((x) => x.inspection.status === s).length;
  const duties = rows.filter((r) => r.duty);
  const audit = i.evidence.audit;
  const { enforcement } = i;
  return {
    warnings: audit.ok
      ? []
      : [
          `When this report was made, the gateway's own check found that its records do not match its evidence log (${audit.detail ?? 'no detail given'}). Records may have been changed or removed: do not rely on this report until the store has been examined.`,
        ],
    site: { id: i.site.id, name: i.site.name ?? i.site.id, kind: i.site.kind, timezone: i.timezone },
    period: {
      from: new Date(i.period.from).toISOString(),
      to: new Date(i.period.to).toISOString(),
      firstDay: i.period.firstDay,
      lastDay: i.period.lastDay,
    },
    generatedAt: new Date(i.now).toISOString(),
    generatedBy: i.generatedBy,
    summary: {
      storms: i.storms.length,
      qualifyingStorms: qualified.length,
      stormInspectionsOnTime: stormStatus('on-time'),
      stormInspectionsLate: stormStatus('late'),
      stormInspectionsMissing: stormStatus('missing'),
      stormInspectionsPending: stormStatus('pending'),
      inspections: i.inspections.length,
      noticesOnTime: i.notices.filter((n) => !n.late).length,
      noticesLate: i.notices.filter((n) => n.late).length,
      ...enforcement.counts,
      dutiesOnTime: count(duties, 'on-time'),
      dutiesLate: count(duties, 'late'),
      dutiesMissing: count(duties, 'missing'),
      dutiesOverdue: count(duties, 'overdue'),
      dutiesOpen: count(duties, 'open'),
      extensions: i.extensions.length,
      gaps: gaps.length,
    },
    storms: i.storms,
    inspections: i.inspections,
    notices: i.notices.map((n) => ({ ...n, standing: noticeStanding(n) })),
    violations: enforcement.violations,
    stopWork: enforcement.stopWork,
    ...(enforcement.stopWorkInEffect ? { stopWorkInEffect: enforcement.stopWorkInEffect } : {}),
    routine: section('routine'),
    cleanouts: section('cleanouts'),
    remedies: section('remedies'),
    other: section('other'),
    gaps,
    extensions: i.extensions,
    certifications: i.certifications,
    changes: i.changes,
    evidence: i.evidence,
  };
}
