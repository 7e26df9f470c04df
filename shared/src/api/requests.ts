/**
 * The path parameters, query strings and bodies of the API's routes that are not a resource's own body
 * (those are beside their answers: admin.ts, findings.ts, violations.ts, …): ids in a path, a list's
 * filters and page, a time in a query. `routes.ts` names each route's.
 */
import { z } from 'zod';
import { changesQuery } from '../admin.ts';
import { idText, MAX } from '../bounds.ts';
import { quarantineQuery } from '../quarantine.ts';
import { READING_NAMES, REJECT_REASONS } from '../telemetry.ts';
import { AGENDA_MAX_DAYS, daySchema } from './agenda.ts';
import { ALERT_STATUSES, INSPECTION_KINDS } from './alerts.ts';
import { CHART_RANGES } from './chartRanges.ts';
import { photoHashSchema } from './findings.ts';
import { INSPECTION_SIDES } from './inspectionWords.ts';
import { violationsQuery } from './violations.ts';

/** A page of a list: PAGE_DEFAULT items unless `limit` asks for fewer or more, PAGE_MAX at most. */
export const PAGE_DEFAULT = 100;
export const PAGE_MAX = 500;

/** The query keys of a paged list. `limit` above PAGE_MAX is taken (older clients ask for more) as PAGE_MAX. */
export const pageShape = {
  cursor: z
    .string()
    .max(MAX.id)
    .optional()
    .describe('The next page: the cursor of the `Link: <…>; rel="next"` header of the page before.'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .optional()
    .describe(`Items a page (default ${PAGE_DEFAULT}, at most ${PAGE_MAX}: more follow by the Link header)`),
};

/** A time in a query string: ISO 8601 or epoch milliseconds. */
export const timeParam = z.union([
  z.coerce.number().int(),
  z.iso
    .datetime({ offset: true })
    .max(MAX.time)
    .transform((s) => Date.parse(s)),
]);

/** A path naming one thing by its id: `/api/alerts/{id}`, `/api/sites/{id}`, `/api/users/{id}`, … */
export const idParams = z.strictObject({ id: idText() });
/** `/api/sites/{siteId}/devices`. */
export const siteDevicesParams = z.strictObject({ siteId: idText() });
/** `/api/sites/{siteId}/devices/{deviceId}`. */
export const siteDeviceParams = z.strictObject({ siteId: idText(), deviceId: idText() });
/** `/api/photos/{sha256}`. */
export const photoParams = z.strictObject({ sha256: photoHashSchema });

/**
 * GET /api/alerts. `rule` is one of the gateway's rule ids (its document lists them); `overdue` is not a
 * status but a flag on open and acknowledged alerts: it is accepted as a status too.
 */
export const alertsQuery = z.strictObject({
  siteId: idText().optional(),
  status: z.enum([...ALERT_STATUSES, 'overdue']).optional(),
  rule: idText().optional(),
  overdue: z.enum(['true', 'false']).optional(),
  from: timeParam.optional(),
  to: timeParam.optional(),
  ...pageShape,
});
/** POST /api/alerts/{id}/ack. */
export const ackBody = z.strictObject({ note: z.string().max(4000).optional() });
/** POST /api/alerts/{id}/resolve. The note is required; the engine refuses a missing or empty one with NOTE_REQUIRED. */
export const resolveBody = z.strictObject({
  note: z
    .string()
    .max(4000)
    .optional()
    .describe('required: what was done, by whom (NOTE_REQUIRED without it)'),
  /** Required (true) when the device still reports the alarm as active: STILL_ACTIVE without it. */
  confirmActive: z.boolean().optional(),
});
/** POST /api/alerts/{id}/extend. */
export const extendBody = z.strictObject({
  newDueAt: z.iso.datetime({ offset: true }).max(MAX.time),
  engineer: z.string().trim().min(1).max(MAX.name),
  letterRef: z.string().trim().min(1).max(MAX.name),
  note: z.string().max(4000).optional(),
});
/** A list of a site (or every site) in a time range, a page at a time: inspections, storms, extensions. */
export const rangeQuery = z.strictObject({
  siteId: idText().optional(),
  from: timeParam.optional(),
  to: timeParam.optional(),
  ...pageShape,
});
/** GET /api/inspections: a range, of one kind, and whose (the developer's or the town's). */
export const inspectionsQuery = rangeQuery.extend({
  kind: z.enum(INSPECTION_KINDS).optional(),
  side: z.enum(INSPECTION_SIDES).optional(),
});
/** GET /api/notifications. */
export const notificationsQuery = z.strictObject({
  status: z.enum(['pending', 'sent', 'failed']).optional(),
  siteId: idText().optional(),
  ...pageShape,
});
/** GET /api/notices: milestone notices whose milestone falls in the range. */
export const noticesQuery = rangeQuery;
/** GET /api/rejections. */
export const rejectionsQuery = z.strictObject({
  reason: z.enum(REJECT_REASONS).optional(),
  siteId: idText().optional(),
  ...pageShape,
});

/** GET /api/agenda. */
export const agendaQuery = z.strictObject({
  from: daySchema.optional().describe('first day (YYYY-MM-DD); default today'),
  to: daySchema
    .optional()
    .describe(`last day (YYYY-MM-DD); default 7 days after from; at most ${AGENDA_MAX_DAYS} days`),
});

/** GET /api/charts. */
export const chartsQuery = z.strictObject({
  siteId: idText(),
  deviceId: idText().optional(),
  /** A range ending at `to` (default now); without it, `from` to `to` (default the last week). */
  range: z.enum(CHART_RANGES).optional(),
  from: timeParam.optional(),
  to: timeParam.optional(),
});

/** GET /api/telemetry. */
export const telemetryQuery = z.strictObject({
  siteId: idText(),
  deviceId: idText().optional(),
  field: z
    .enum([
      ...READING_NAMES,
      'alarms.highWater',
      'alarms.pump',
      'alarms.blower',
      'alarms.panel',
      'alarms.field',
    ])
    .optional(),
  from: timeParam.optional(),
  to: timeParam.optional(),
  /** Above this many points the series is downsampled into time buckets. */
  maxPoints: z.coerce.number().int().min(10).max(20_000).default(1000),
});

/** POST /api/import: the device a logger file is from and how to read its times. */
export const importQuery = z.strictObject({
  siteId: z.string().min(1).max(MAX.id),
  deviceId: z.string().min(1).max(MAX.id),
  name: z.string().max(200).default('upload'),
  format: z.enum(['hobo-csv', 'toa5']).optional(),
  utcOffsetMinutes: z.coerce.number().int().min(-840).max(840).optional(),
  timeZone: z.string().min(1).max(64).optional(),
  skipBefore: z.iso.datetime({ offset: true }).max(MAX.time).optional(),
});
export type ImportQuery = z.infer<typeof importQuery>;

const count = z.coerce.number().int().min(0);
/** GET /api/evidence/checkpoint. */
export const checkpointQuery = z.strictObject({
  size: count.optional(),
  format: z.enum(['json', 'note']).default('json'),
});
/** GET /api/evidence/consistency. */
export const consistencyQuery = z.strictObject({ from: count, to: count.optional() });
/** GET /api/evidence/inclusion. */
export const inclusionQuery = z.strictObject({ index: count, size: count.optional() });
/** GET /api/evidence/entries. */
export const entriesQuery = z.strictObject({ from: count, to: count.optional() });

/** A day (YYYY-MM-DD, in the site's zone), an ISO 8601 time, or epoch ms. */
export const dayParam = z.union([
  z
    .string()
    .max(10)
    .regex(/^\d{4}-\d{2}-\d{2}$/),
  z.iso.datetime({ offset: true }).max(MAX.time),
  z.coerce.number().int(),
]);
/** GET /api/reports/compliance. */
export const reportQuery = z.strictObject({
  siteId: idText(),
  from: dayParam.optional(),
  to: dayParam.optional(),
  format: z.enum(['json', 'csv', 'html', 'pdf']).default('json'),
});
/** POST /api/reports/compliance/certify. */
export const certifyBody = z.strictObject({
  siteId: idText(),
  from: dayParam,
  to: dayParam,
  statement: z
    .string()
    .trim()
    .min(1)
    .max(2000)
    .default('I certify that these records are true and complete.'),
});

/** GET /api/violations/{id}/document and GET /api/stop-work/{id}/document. */
export const violationDocumentQuery = z.strictObject({ format: z.enum(['html', 'pdf']).default('html') });

/** GET /api/changes: a site's change records (or every one the caller sees) in a range, a page at a time. */
export const changesFilter = changesQuery.extend({
  from: timeParam.optional(),
  to: timeParam.optional(),
  ...pageShape,
});
/** GET /api/violations, a page at a time. */
export const violationsPageQuery = violationsQuery.extend(pageShape);
/** GET /api/quarantine: its filters and the page's cursor (its `limit` is its own). */
export const quarantinePageQuery = quarantineQuery.extend({ cursor: pageShape.cursor });
