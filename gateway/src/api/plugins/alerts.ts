import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { AlertDto } from '../../../../shared/src/api/alerts.ts';
import { inspectionBody, practicesInForce } from '../../../../shared/src/api/findings.ts';
import {
  ackBody,
  alertsQuery,
  extendBody,
  idParams,
  inspectionsQuery,
  notificationsQuery,
  rangeQuery,
  resolveBody,
} from '../../../../shared/src/api/requests.ts';
import { evidenceText, RULE_IDS } from '../../rules/index.ts';
import { type Caller, maySee, mustSee } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { checkFindings, inspectionSide } from '../findings.ts';
import { pageOf, sendPage } from '../paging.ts';
import { publicAlert } from '../publicView.ts';
import { parseWith } from '../query.ts';
import { withDeliveries } from '../reportDeliveries.ts';
import { type RouteDoc, route } from '../routes.ts';
import { checkWastewater, inspectionDetails } from '../wastewater.ts';

const doc = (tags: string, summary: string, extra: Partial<RouteDoc> = {}) => ({
  schema: { tags: [tags], summary, ...extra },
});
/** The rule ids the gateway runs: a list filtered by another is refused in words. */
const knownRules = { query: alertsQuery.extend({ rule: z.enum(RULE_IDS).optional() }) };
const secured = { security: [{ bearer: [] }] };

/** What the alert, inspection, storm and notification routes use. */
export type AlertsServices = Pick<
  ApiContext,
  | 'auth'
  | 'catalogue'
  | 'compliance'
  | 'config'
  | 'deadLetters'
  | 'devices'
  | 'notifications'
  | 'now'
  | 'photos'
>;

/** Alerts (list, ack, resolve, extend), inspections, storms, extensions, and notifications. */
export const alertsPlugin: FastifyPluginAsync<AlertsServices> = async (app, ctx) => {
  const c = ctx.compliance;
  const knownSite = (siteId: string | undefined, caller: Caller | undefined) => {
    if (siteId === undefined) return;
    mustSee(caller, siteId);
    if (!ctx.catalogue.site(siteId)) throw new ApiError('NOT_FOUND', `no site ${siteId}`);
  };
  /** An alert the caller may see (another site's is answered as not found). */
  const visibleAlert = (id: string, caller: Caller | undefined) => {
    const a = c.getAlert(id);
    if (!a || !maySee(caller, a.siteId)) throw new ApiError('NOT_FOUND', `no alert ${id}`);
    return a;
  };
  /**
   * An alarm alert names its input (`evidence.input`): whether the device's newest reading of it still
   * reports the alarm.
   */
  const alarmOf = (a: AlertDto): AlertDto['alarm'] => {
    const input = a.evidence.input;
    if (typeof input !== 'string' || a.deviceId === undefined) return undefined;
    const active = ctx.devices.deviceState(a.siteId, a.deviceId)?.latest[`alarms.${input}`]?.value === true;
    return { input, active: a.status !== 'resolved' && active };
  };
  /** An alert as its routes answer it: with its evidence in the rule's words, and its alarm's state. */
  const shown = (a: AlertDto): AlertDto => {
    // Set on the DTO itself (built for this answer): its history stays read only when it is sent.
    const tz = ctx.catalogue.site(a.siteId)?.timezone ?? ctx.config.timezone;
    a.evidenceText = evidenceText(a.rule, a.evidence, tz);
    const alarm = alarmOf(a);
    if (alarm) a.alarm = alarm;
    return a;
  };
  /** The sites a caller sees, as a list's filter (none for a caller who sees every site). */
  const theirs = (caller: Caller | undefined) =>
    caller?.sites === undefined ? {} : { siteIds: caller.sites };
  /** A range list's query: its filters, the caller's sites, and the page. */
  const ranged = (q: z.infer<typeof rangeQuery>, caller: Caller | undefined) => {
    const page = pageOf(q);
    const filter = {
      ...(q.siteId !== undefined ? { siteId: q.siteId } : {}),
      ...(q.from !== undefined ? { from: q.from } : {}),
      ...(q.to !== undefined ? { to: q.to } : {}),
      ...theirs(caller),
      page,
    };
    return { page, filter };
  };

  app.route(
    route(
      'GET /api/alerts',
      doc('alerts', 'Alerts, filtered by site, status and rule; newest first, a page at a time', {
        narrow: knownRules,
      }),
      async (req, reply) => {
        const caller = ctx.auth.readPublic(req);
        const q = parseWith(knownRules.query, req.query);
        knownSite(q.siteId, caller);
        const page = pageOf(q);
        const rows = c.listAlerts({
          ...(q.siteId ? { siteId: q.siteId } : {}),
          ...(q.status && q.status !== 'overdue' ? { status: q.status } : {}),
          ...(q.status === 'overdue' ? { overdue: true } : {}),
          ...(q.rule ? { rule: q.rule } : {}),
          ...(q.overdue ? { overdue: q.overdue === 'true' } : {}),
          ...(q.from !== undefined ? { from: q.from } : {}),
          ...(q.to !== undefined ? { to: q.to } : {}),
          ...theirs(caller),
          page,
        });
        const view = caller ? shown : (a: AlertDto) => publicAlert(shown(a));
        return sendPage(req, reply, rows, page, (a) => [Date.parse(a.raisedAt), a.id]).map(view);
      },
    ),
  );

  app.route(
    route('GET /api/alerts/:id', doc('alerts', 'One alert with its full history', {}), async (req) => {
      const caller = ctx.auth.readPublic(req);
      const { id } = parseWith(idParams, req.params);
      const a = shown(visibleAlert(id, caller));
      return caller ? a : publicAlert(a);
    }),
  );

  app.route(
    route(
      'POST /api/alerts/:id/ack',
      doc('alerts', 'Acknowledge an alert (inspector or above)', {
        ...secured,
      }),
      async (req) => {
        const caller = ctx.auth.require(req, 'inspector');
        const { id } = parseWith(idParams, req.params);
        const body = parseWith(ackBody, req.body);
        visibleAlert(id, caller);
        return shown(c.acknowledge(id, caller.actor, body.note));
      },
    ),
  );

  app.route(
    route(
      'POST /api/alerts/:id/resolve',
      doc('alerts', 'Resolve an alert with a note (inspector or above)', {
        ...secured,
      }),
      async (req) => {
        const caller = ctx.auth.require(req, 'inspector');
        const { id } = parseWith(idParams, req.params);
        const body = parseWith(resolveBody, req.body);
        const a = visibleAlert(id, caller);
        const alarm = alarmOf(a);
        const active = alarm?.active === true;
        if (active && body.confirmActive !== true)
          throw new ApiError(
            'STILL_ACTIVE',
            `${a.deviceId} still reports ${alarm.input} as active: resolve with confirmActive: true`,
          );
        return shown(c.resolve(id, caller.actor, body.note ?? '', active));
      },
    ),
  );

  app.route(
    route(
      'POST /api/alerts/:id/extend',
      doc(
        'alerts',
        "Extend the due time by an engineer's letter (engineer or above); the old due time stays in the history. Only a rule the law lets a letter extend (the remedy rules) takes one: others answer BAD_EXTENSION",
        {
          ...secured,
        },
      ),
      async (req) => {
        const caller = ctx.auth.require(req, 'engineer');
        const { id } = parseWith(idParams, req.params);
        const b = parseWith(extendBody, req.body);
        visibleAlert(id, caller);
        return shown(
          c.extend(id, caller.actor, {
            newDueAt: Date.parse(b.newDueAt),
            engineer: b.engineer,
            letterRef: b.letterRef,
            ...(b.note ? { note: b.note } : {}),
          }),
        );
      },
    ),
  );

  app.route(
    route(
      'POST /api/inspections',
      doc(
        'inspections',
        "Record an inspection, with its findings at a construction site's practices, and whose it is (side: the developer's or the town's); closes the open alerts whose duty it meets (storm inspections before it) and restarts the 7-day clock. The developer's storm and routine duties are met only by the developer's side with a finding for every practice; a partial inspection is recorded as partial. An owner's or contractor's account records the developer's side; a town account records it only when the site lists it among its inspectors acting for the developer (developerInspectors: its e-mail, or a configured token's name), and is refused (FORBIDDEN) otherwise. An inspection with nothing in it is refused (EMPTY_INSPECTION). The same clientId sent again answers the first inspection (200) and records nothing",
        {
          ...secured,
        },
      ),
      async (req, reply) => {
        const caller = ctx.auth.require(req, 'inspector');
        const b = parseWith(inspectionBody, req.body);
        knownSite(b.siteId, caller);
        const at = Date.parse(b.at);
        if (at > ctx.now() + 5 * 60_000)
          throw new ApiError('BAD_REQUEST', 'an inspection cannot be in the future');
        if (b.findings && b.findings.length > 0) checkFindings(ctx, caller, b.siteId, b.findings, at);
        checkWastewater(ctx, b);
        const details = inspectionDetails(b);
        const site = ctx.catalogue.site(b.siteId);
        const side = inspectionSide(caller, b.side, site ?? { id: b.siteId });
        // The practices in force when it was made: one retired by then is not counted in "every practice".
        const practices =
          site?.kind === 'construction' ? practicesInForce(site.practices, at).map((p) => p.id) : [];
        const { replayed, ...res } = c.recordInspection(
          {
            siteId: b.siteId,
            at,
            inspector: b.inspector,
            kind: b.kind,
            ...(b.notes ? { notes: b.notes } : {}),
            ...(b.findings ? { findings: b.findings } : {}),
            ...(b.clientId ? { clientId: b.clientId } : {}),
            ...(details ? { details } : {}),
            ...(b.signature ? { signature: b.signature } : {}),
            side,
            practices,
          },
          caller.actor,
        );
        reply.code(replayed ? 200 : 201);
        return res;
      },
    ),
  );

  app.route(
    route(
      'GET /api/inspections',
      doc(
        'inspections',
        "Inspections of a site in a time range, of one kind and whose (the developer's or the town's); newest first, a page at a time",
        {},
      ),
      async (req, reply) => {
        const caller = ctx.auth.requireRead(req);
        const q = parseWith(inspectionsQuery, req.query);
        knownSite(q.siteId, caller);
        const { page, filter } = ranged(q, caller);
        const list = c.listInspections({
          ...filter,
          ...(q.kind ? { kind: q.kind } : {}),
          ...(q.side ? { side: q.side } : {}),
        });
        const delivered = list.map((i) => withDeliveries(i, (q) => ctx.notifications.list(q)));
        return sendPage(req, reply, delivered, page, (i) => [Date.parse(i.at), i.id]);
      },
    ),
  );

  app.route(
    route(
      'GET /api/inspections/:id',
      doc(
        'inspections',
        'One inspection: its findings with their photos, who recorded it, when, its log entry',
        {},
      ),
      async (req) => {
        const caller = ctx.auth.requireRead(req);
        const { id } = parseWith(idParams, req.params);
        const i = c.getInspection(id);
        if (!i || !maySee(caller, i.siteId)) throw new ApiError('NOT_FOUND', `no inspection ${id}`);
        return withDeliveries(i, (q) => ctx.notifications.list(q));
      },
    ),
  );

  app.route(
    route(
      'GET /api/storms',
      doc(
        'storms',
        'Storm events with totals, qualification, due time and inspection status; newest first, a page at a time',
        {},
      ),
      async (req, reply) => {
        const caller = ctx.auth.readPublic(req);
        const q = parseWith(rangeQuery, req.query);
        knownSite(q.siteId, caller);
        const { page, filter } = ranged(q, caller);
        return sendPage(req, reply, c.listStorms(filter), page, (s) => [Date.parse(s.start), s.id]);
      },
    ),
  );

  app.route(
    route(
      'GET /api/extensions',
      doc('alerts', "Engineers' extensions; newest first, a page at a time", {}),
      async (req, reply) => {
        const caller = ctx.auth.requireRead(req);
        const q = parseWith(rangeQuery, req.query);
        knownSite(q.siteId, caller);
        const { page, filter } = ranged(q, caller);
        return sendPage(req, reply, c.listExtensions(filter), page, (x) => [Date.parse(x.at), x.seq]);
      },
    ),
  );

  app.route(
    route(
      'GET /api/notifications',
      doc(
        'alerts',
        'Notification deliveries (MQTT, webhook, e-mail) and their state; newest first, a page at a time',
        {},
      ),
      async (req, reply) => {
        const caller = ctx.auth.requireRead(req);
        const q = parseWith(notificationsQuery, req.query);
        knownSite(q.siteId, caller);
        const page = pageOf(q);
        const rows = ctx.notifications.list({
          ...(q.status ? { status: q.status } : {}),
          ...(q.siteId ? { siteId: q.siteId } : {}),
          ...theirs(caller),
          page,
        });
        return sendPage(req, reply, rows, page, (d) => [d.id, d.id]);
      },
    ),
  );

  app.route(
    route(
      'POST /api/notifications/retry',
      doc('alerts', 'Retry every failed delivery (admin)', {
        ...secured,
      }),
      async (req) => {
        ctx.auth.require(req, 'admin');
        return { retried: ctx.notifications.retryFailed() };
      },
    ),
  );

  app.route(
    route(
      'GET /api/influx/dead-letters',
      doc('health', 'Points InfluxDB refused for good, with the reason', {}),
      async (req) => {
        ctx.auth.requireRead(req);
        return ctx.deadLetters(100);
      },
    ),
  );
};
