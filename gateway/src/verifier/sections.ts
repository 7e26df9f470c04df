/**
 * The table of each list a report shows, run by the one checker (`checker.ts`): which logged records it
 * lists, the field rows compared (beside each DTO in `shared/src/api/`), how a difference reads, whether
 * the site's records are numbered without a gap, whether every one logged in the period must be listed,
 * and the law's own checks of a record, where the law says more than a table can (`notices.ts`,
 * `violations.ts`, `stopWork.ts`). Pure, no Node API (it is bundled into verify.html).
 */
import { extensionFields, inspectionFields } from '../../../shared/src/api/alertFields.ts';
import { certificationFields } from '../../../shared/src/api/certificationFields.ts';
import { noticeFields } from '../../../shared/src/api/noticeFields.ts';
import { siteRecordFields } from '../../../shared/src/api/siteRecordFields.ts';
import { stopWorkFields, violationFields } from '../../../shared/src/api/violationFields.ts';
import { changeFields } from '../../../shared/src/changeFields.ts';
import { type Context, checkSection, ms, type Says, type Section } from './checker.ts';
import { checkClaims } from './inspected.ts';
import { checkLate, checkNoticeCounts, noticeWhere, type ShownNotice } from './notices.ts';
import { checkConfirmation, checkStatement, recordWhere, type ShownSiteRecord } from './records.ts';
import type { ReportChange, ReportJson } from './reportJson.ts';
import {
  checkDutiesShown,
  checkSite,
  type DutyAt,
  type ShownCertification,
  type ShownExtension,
  type ShownInspection,
} from './shown.ts';
import { checkInEffect, checkLifting, checkServices, hasOrders } from './stopWork.ts';
import { checkEnforcementCounts, checkSteps, type ShownStopWork, type ShownViolation } from './violations.ts';
import { capital, dutyWords, noticeName, orderName, type Problem, when } from './words.ts';

/** The sections of the engine's records: what the report shows of the record, absent fields not compared. */
const RECORD: Says = { compare: 'given', sentence: 'shows' };
const LOGGED = 'its logged record is not in the report';
/** Enforcement's sections: every field compared, absent as none, against the record's log entry. */
const ENFORCEMENT = {
  cites: 'logIndex',
  says: { compare: 'all', sentence: 'differs' },
  missing: 'its log entry is not in the report',
} as const;

export const inspections: Section<ShownInspection> = {
  list: 'inspections',
  record: 'inspection',
  cites: 'logIndex',
  fields: inspectionFields,
  says: RECORD,
  where: (x, _b, { w }) =>
    `The inspection of ${when(ms(x.at), w)} at ${w.site} by ${x.inspector ?? 'an inspector'}`,
  missing: LOGGED,
  numbered: { sentence: 'running', where: "The site's inspections in the report", one: 'inspection' },
  inPeriod: { at: 'at', period: 'stated' },
  // Whose it is and what it covered are its entry's, and its entry's coverage is what its findings name.
  law: (x, e, at) => checkClaims(x, e, at),
};

/** Extensions, each named by the duty it extends. */
export const extensions = (duties: DutyAt[]): Section<ShownExtension> => ({
  list: 'extensions',
  record: 'extension',
  cites: 'logIndex',
  fields: extensionFields,
  says: RECORD,
  where: (x) =>
    `The engineer's extension of ${dutyWords(duties.find((d) => d.d.alertId === x.alertId)?.d ?? x)}`,
  missing: LOGGED,
});

export const certifications: Section<ShownCertification> = {
  list: 'certifications',
  record: 'certification',
  cites: 'logIndex',
  fields: certificationFields,
  says: RECORD,
  where: (c) => `The certification by ${c.by}`,
  missing: LOGGED,
};

/** Milestone notices: late by the 48 hours' rule (`notices.ts`). */
export const notices: Section<ShownNotice> = {
  list: 'notices',
  record: 'notice',
  cites: 'logIndex',
  fields: noticeFields,
  says: RECORD,
  where: (n, _b, { w }) => noticeWhere(n, w),
  missing: LOGGED,
  numbered: { sentence: 'site', one: 'milestone notice', many: 'milestone notices' },
  inPeriod: { at: 'at', period: 'stated' },
  law: (n, e, { base, where }, { w }) => checkLate(n, e, base, where, w),
};

/** Notices of violation: their steps, status and "on time" (`violations.ts`). */
export const violations: Section<ShownViolation> = {
  list: 'violations',
  record: 'violation',
  ...ENFORCEMENT,
  fields: violationFields,
  where: (v, b, { w }) => capital(noticeName(v.id, b, w)),
  numbered: { sentence: 'site', one: 'notice of violation', many: 'notices of violation' },
  inPeriod: { at: 'issuedAt', period: 'open', name: (b, w) => noticeName(String(b.id), b, w) },
  law: checkSteps,
};

/** Stop-work orders: their liftings and services (`stopWork.ts`). */
export const stopWork = (r: ReportJson): Section<ShownStopWork> => ({
  list: 'stopWork',
  record: 'stop-work',
  ...ENFORCEMENT,
  fields: stopWorkFields,
  where: (o, b, { w }) => capital(orderName(o.id, b, w)),
  numbered: { sentence: 'site', one: 'stop-work order', many: 'stop-work orders' },
  inPeriod: { at: 'at', period: 'open', name: (b, w) => orderName(String(b.id), b, w) },
  law: (o, e, at, ctx) => [...checkLifting(r, o, e, at, ctx), ...checkServices(o, at, ctx)],
});

/**
 * The developer's records: every field compared; a certification's statement the law's, a confirmation of
 * final stabilization confirming one logged before it (`records.ts`).
 */
export const records: Section<ShownSiteRecord> = {
  list: 'records',
  record: 'site-record',
  ...ENFORCEMENT,
  fields: siteRecordFields,
  where: (x, _b, { w }) => recordWhere(x, w),
  numbered: { sentence: 'site', one: "developer's record", many: "developer's records" },
  inPeriod: { at: 'recordedAt', period: 'stated' },
  law: (_x, e, { base, where }, ctx) => [
    ...checkStatement(e, base, where),
    ...checkConfirmation(e, base, where, ctx),
  ],
};

/** Change records: every field compared, as the report gives it. */
export const changes: Section<ReportChange> = {
  list: 'changes',
  record: 'change',
  cites: 'logIndex',
  fields: changeFields,
  says: { compare: 'all', sentence: 'shows' },
  where: (c, _b, { w }) => `The change (${c.action}) by ${c.by} of ${when(ms(c.effectiveAt), w)}`,
  missing: LOGGED,
};

/** Every list of the report against the records it cites, in the order a reader meets them. */
export function checkSections(r: ReportJson, duties: DutyAt[], ctx: Context): Problem[] {
  const { all, w } = ctx;
  return [
    ...checkSite(r, all, w),
    ...checkSection(inspections, r.inspections, ctx),
    ...checkSection(extensions(duties), r.extensions, ctx),
    ...checkSection(certifications, r.certifications, ctx),
    ...checkDutiesShown(duties, ctx.cited, w),
    ...checkSection(notices, r.notices, ctx),
    ...checkNoticeCounts(r),
    ...checkSection(violations, r.violations, ctx),
    ...checkEnforcementCounts(r, ctx.from),
    ...(hasOrders(r, all) ? [...checkSection(stopWork(r), r.stopWork, ctx), ...checkInEffect(r, ctx)] : []),
    ...checkSection(records, r.records, ctx),
    ...checkSection(changes, r.changes, ctx),
  ];
}
