/**
 * Every route of the API, `METHOD /path` (path parameters as `:name`), with the zod schemas of what it
 * takes (its path parameters, query string and body) and of its 2xx JSON answer. The gateway registers
 * its routes from this map (their OpenAPI document is drawn from it) and parses with these schemas; the
 * dashboard's client reads the types of each route's inputs and answer from it.
 *
 * `response` is null for a route whose answer is not JSON (a stream, a photo, a printable page); a
 * route that also answers in other media types says so in its plugin. `status` lists the 2xx statuses
 * that answer `response` (200 unless given); `paged` marks a list answered a page at a time, the next
 * page named by the answer's `Link` header.
 */

import { z } from 'zod';
import {
  changeResponse,
  deviceCreateBody,
  deviceCreatedResponse,
  devicePatchBody,
  loginBody,
  meResponse,
  passwordChangeBody,
  secretResponse,
  setupBody,
  siteCreateBody,
  sitePatchBody,
  tokenCreateBody,
  tokenCreatedResponse,
  tokenResponse,
  userCreateBody,
  userPatchBody,
  userResponse,
} from '../admin.ts';
import { quarantineList, releaseBody, releaseResponse } from '../quarantine.ts';
import { rulesResponseSchema } from '../rules.ts';
import { agendaSchema } from './agenda.ts';
import {
  alertDtoSchema,
  deliveryViewSchema,
  extensionDtoSchema,
  inspectionDtoSchema,
  inspectionRecordedSchema,
  stormDtoSchema,
} from './alerts.ts';
import { chartsAnswerSchema } from './charts.ts';
import {
  okSchema,
  passwordChangedSchema,
  retriedSchema,
  setupDoneSchema,
  tokenRevokedSchema,
} from './common.ts';
import { deviceLinkSchema, profileSummarySchema } from './deviceLink.ts';
import { inspectionBody, photoStoredSchema, photoUploadQuery } from './findings.ts';
import { fleetViewSchema } from './fleet.ts';
import { noticeBody, noticeDtoSchema, noticeFiledSchema } from './notices.ts';
import {
  ackBody,
  agendaQuery,
  alertsQuery,
  certifyBody,
  changesFilter,
  chartsQuery,
  checkpointQuery,
  consistencyQuery,
  entriesQuery,
  extendBody,
  idParams,
  importQuery,
  inclusionQuery,
  inspectionsQuery,
  noticesQuery,
  notificationsQuery,
  photoParams,
  quarantinePageQuery,
  rangeQuery,
  rejectionsQuery,
  reportQuery,
  resolveBody,
  siteDeviceParams,
  siteDevicesParams,
  telemetryQuery,
  violationDocumentQuery,
  violationsPageQuery,
} from './requests.ts';
import { siteRecordBody, siteRecordDtoSchema, siteRecordStandingSchema } from './siteRecords.ts';
import {
  deadLetterSchema,
  devicePatchedSchema,
  rejectionSchema,
  siteViewSchema,
  telemetryAnswerSchema,
} from './sites.ts';
import {
  certificationSchema,
  checkpointViewSchema,
  complianceReportSchema,
  consistencyProofSchema,
  evidenceKeySchema,
  evidenceSummarySchema,
  healthAnswerSchema,
  importSummarySchema,
  inclusionProofSchema,
  logEntrySchema,
} from './system.ts';
import {
  appealBody,
  approveBody,
  correctedBody,
  hearingBody,
  serviceBody,
  stopWorkBody,
  stopWorkDtoSchema,
  stopWorkLiftBody,
  violationBody,
  violationDtoSchema,
  violationIssuedSchema,
} from './violations.ts';

/** What a route takes and answers. */
export interface RouteSchemas {
  readonly params?: z.ZodType;
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
  /** The 2xx JSON answer; null when the route answers no JSON. */
  readonly response: z.ZodType | null;
  /** The 2xx statuses that answer `response`; 200 unless given. */
  readonly status?: readonly [number, ...number[]];
  /** A list answered a page at a time (the `Link` header names the next page). */
  readonly paged?: true;
}

const created = [201] as const;

export const ROUTES = {
  // Health and metrics
  'GET /api/health': { response: healthAnswerSchema },
  'GET /metrics': { response: null },
  // Sign-in, sessions, the first admin
  'POST /api/auth/login': { body: loginBody, response: meResponse },
  'POST /api/auth/logout': { response: okSchema },
  'GET /api/auth/me': { response: meResponse },
  'POST /api/auth/password': { body: passwordChangeBody, response: passwordChangedSchema },
  'POST /api/setup': { body: setupBody, response: setupDoneSchema, status: created },
  // Accounts and personal tokens
  'GET /api/users': { response: z.array(userResponse) },
  'POST /api/users': { body: userCreateBody, response: userResponse, status: created },
  'PATCH /api/users/:id': { params: idParams, body: userPatchBody, response: userResponse },
  'GET /api/tokens': { response: z.array(tokenResponse) },
  'POST /api/tokens': { body: tokenCreateBody, response: tokenCreatedResponse, status: created },
  'DELETE /api/tokens/:id': { params: idParams, response: tokenRevokedSchema },
  // Sites, devices and the change records
  'GET /api/sites': { response: z.array(siteViewSchema) },
  'GET /api/sites/:id': { params: idParams, response: siteViewSchema },
  'POST /api/sites': { body: siteCreateBody, response: siteViewSchema, status: created },
  'PATCH /api/sites/:id': { params: idParams, body: sitePatchBody, response: siteViewSchema },
  'POST /api/sites/:siteId/devices': {
    params: siteDevicesParams,
    body: deviceCreateBody,
    response: deviceCreatedResponse,
    status: created,
  },
  'PATCH /api/sites/:siteId/devices/:deviceId': {
    params: siteDeviceParams,
    body: devicePatchBody,
    response: devicePatchedSchema,
  },
  'POST /api/sites/:siteId/devices/:deviceId/secret': { params: siteDeviceParams, response: secretResponse },
  'GET /api/sites/:siteId/devices/:deviceId/link': { params: siteDeviceParams, response: deviceLinkSchema },
  'GET /api/profiles': { response: z.array(profileSummarySchema) },
  'GET /api/changes': { query: changesFilter, response: z.array(changeResponse), paged: true },
  // Telemetry
  'GET /api/telemetry': { query: telemetryQuery, response: telemetryAnswerSchema },
  'GET /api/charts': { query: chartsQuery, response: chartsAnswerSchema },
  'GET /api/rejections': { query: rejectionsQuery, response: z.array(rejectionSchema), paged: true },
  'GET /api/quarantine': { query: quarantinePageQuery, response: quarantineList, paged: true },
  'POST /api/quarantine/release': { body: releaseBody, response: releaseResponse },
  'POST /api/import': { query: importQuery, response: importSummarySchema },
  'GET /api/events': { response: null },
  // Rules, alerts, inspections, storms, notifications
  'GET /api/rules': { response: rulesResponseSchema },
  'GET /api/alerts': { query: alertsQuery, response: z.array(alertDtoSchema), paged: true },
  'GET /api/alerts/:id': { params: idParams, response: alertDtoSchema },
  'POST /api/alerts/:id/ack': { params: idParams, body: ackBody, response: alertDtoSchema },
  'POST /api/alerts/:id/resolve': { params: idParams, body: resolveBody, response: alertDtoSchema },
  'POST /api/alerts/:id/extend': { params: idParams, body: extendBody, response: alertDtoSchema },
  'POST /api/inspections': { body: inspectionBody, response: inspectionRecordedSchema, status: [200, 201] },
  'GET /api/inspections': { query: inspectionsQuery, response: z.array(inspectionDtoSchema), paged: true },
  'GET /api/inspections/:id': { params: idParams, response: inspectionDtoSchema },
  'GET /api/storms': { query: rangeQuery, response: z.array(stormDtoSchema), paged: true },
  'GET /api/extensions': { query: rangeQuery, response: z.array(extensionDtoSchema), paged: true },
  'GET /api/notifications': {
    query: notificationsQuery,
    response: z.array(deliveryViewSchema),
    paged: true,
  },
  'POST /api/notifications/retry': { response: retriedSchema },
  'GET /api/influx/dead-letters': { response: z.array(deadLetterSchema) },
  // Photos
  'POST /api/photos': { query: photoUploadQuery, response: photoStoredSchema },
  'GET /api/photos/:sha256': { params: photoParams, response: null },
  // Enforcement: milestone notices, notices of violation, stop-work orders, the agenda
  'POST /api/notices': { body: noticeBody, response: noticeFiledSchema, status: created },
  'GET /api/notices': { query: noticesQuery, response: z.array(noticeDtoSchema), paged: true },
  'POST /api/violations': { body: violationBody, response: violationIssuedSchema, status: created },
  'GET /api/violations': {
    query: violationsPageQuery,
    response: z.array(violationDtoSchema),
    paged: true,
  },
  'GET /api/violations/:id': { params: idParams, response: violationDtoSchema },
  'POST /api/violations/:id/appeal': { params: idParams, body: appealBody, response: violationDtoSchema },
  'POST /api/violations/:id/corrected': {
    params: idParams,
    body: correctedBody,
    response: violationDtoSchema,
  },
  'POST /api/violations/:id/approve': { params: idParams, body: approveBody, response: violationDtoSchema },
  'POST /api/violations/:id/service': { params: idParams, body: serviceBody, response: violationDtoSchema },
  'POST /api/violations/:id/hearing': { params: idParams, body: hearingBody, response: violationDtoSchema },
  'POST /api/stop-work/:id/service': { params: idParams, body: serviceBody, response: stopWorkDtoSchema },
  'GET /api/violations/:id/document': { params: idParams, query: violationDocumentQuery, response: null },
  'GET /api/stop-work/:id/document': { params: idParams, query: violationDocumentQuery, response: null },
  'POST /api/sites/:id/stop-work': {
    params: idParams,
    body: stopWorkBody,
    response: stopWorkDtoSchema,
    status: created,
  },
  'POST /api/sites/:id/stop-work/lift': {
    params: idParams,
    body: stopWorkLiftBody,
    response: stopWorkDtoSchema,
  },
  'GET /api/sites/:id/stop-work': { params: idParams, response: z.array(stopWorkDtoSchema) },
  'POST /api/sites/:id/records': {
    params: idParams,
    body: siteRecordBody,
    response: siteRecordDtoSchema,
    status: created,
  },
  'GET /api/sites/:id/records': { params: idParams, response: z.array(siteRecordDtoSchema) },
  'GET /api/sites/:id/records/standing': { params: idParams, response: siteRecordStandingSchema },
  'GET /api/agenda': { query: agendaQuery, response: agendaSchema },
  // Reports and the evidence log
  'GET /api/reports/compliance': { query: reportQuery, response: complianceReportSchema },
  'POST /api/reports/compliance/certify': {
    body: certifyBody,
    response: certificationSchema,
    status: created,
  },
  'GET /api/evidence': { response: evidenceSummarySchema },
  'GET /api/evidence/key': { response: evidenceKeySchema },
  'GET /api/evidence/checkpoint': { query: checkpointQuery, response: checkpointViewSchema },
  'GET /api/evidence/consistency': { query: consistencyQuery, response: consistencyProofSchema },
  'GET /api/evidence/inclusion': { query: inclusionQuery, response: inclusionProofSchema },
  'GET /api/evidence/entries': { query: entriesQuery, response: z.array(logEntrySchema), paged: true },
  // Fleet
  'GET /api/fleet': { response: fleetViewSchema },
} satisfies Record<string, RouteSchemas>;

/** The routes, each with its schemas. */
export type Routes = typeof ROUTES;
/** A route: `METHOD /path`. */
export type RouteKey = keyof Routes;
