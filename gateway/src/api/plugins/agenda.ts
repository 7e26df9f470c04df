import type { FastifyPluginAsync } from 'fastify';
import { agendaQuery } from '../../../../shared/src/api/requests.ts';
import { AGENDA_MAX_DAYS } from '../../../../shared/src/api.ts';
import { localDay } from '../../../../shared/src/time.ts';
import { buildAgenda, daysBetween } from '../agenda.ts';
import { maySee } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { parseWith } from '../query.ts';
import { route } from '../routes.ts';

const DAY_MS = 86_400_000;

/** What the agenda route uses. */
export type AgendaServices = Pick<
  ApiContext,
  'auth' | 'catalogue' | 'compliance' | 'enforcement' | 'config' | 'now'
>;

/** The officer's agenda: milestone inspections, duties due, overdue first; sites the caller may see. */
export const agendaPlugin: FastifyPluginAsync<AgendaServices> = async (app, ctx) => {
  app.route(
    route(
      'GET /api/agenda',
      {
        schema: {
          tags: ['agenda'],
          summary:
            "Day by day, in each site's time zone: the milestone inspections notified and the duties due, overdue ones first",
        },
      },
      async (req) => {
        const caller = ctx.auth.requireRead(req);
        const q = parseWith(agendaQuery, req.query);
        const from = q.from ?? localDay(ctx.now(), ctx.config.timezone);
        const to = q.to ?? localDay(Date.parse(`${from}T12:00:00Z`) + 7 * DAY_MS, 'UTC');
        for (const day of [from, to])
          if (localDay(Date.parse(`${day}T12:00:00Z`), 'UTC') !== day)
            throw new ApiError('BAD_REQUEST', `${day} is not a day of the calendar`);
        if (to < from)
          throw new ApiError('BAD_REQUEST', `the last day (${to}) is before the first (${from})`);
        if (daysBetween(from, to, AGENDA_MAX_DAYS + 1).length > AGENDA_MAX_DAYS)
          throw new ApiError('BAD_REQUEST', `an agenda covers at most ${AGENDA_MAX_DAYS} days`);
        const siteOf = (id: string) => {
          const s = maySee(caller, id) ? ctx.catalogue.site(id) : undefined;
          return s ? { name: s.name ?? s.id, timezone: s.timezone ?? ctx.config.timezone } : undefined;
        };
        // A day a little wider than UTC's on each side: every zone's local day falls within it.
        const notices = ctx.enforcement.notices.list({
          from: Date.parse(`${from}T00:00:00Z`) - DAY_MS,
          to: Date.parse(`${to}T00:00:00Z`) + 2 * DAY_MS,
        });
        const duties = ctx.compliance.listAlerts({ status: ['open', 'acknowledged'] });
        // Reports are placed on the day they were recorded; one inspected up to five years before.
        const reports = ctx.compliance
          .listInspections({
            from: Date.parse(`${from}T00:00:00Z`) - 5 * 366 * DAY_MS,
            to: Date.parse(`${to}T00:00:00Z`) + 2 * DAY_MS,
          })
          .filter((i) => {
            const r = Date.parse(i.recordedAt);
            return (
              r >= Date.parse(`${from}T00:00:00Z`) - DAY_MS && r <= Date.parse(`${to}T00:00:00Z`) + 2 * DAY_MS
            );
          });
        return buildAgenda(from, to, siteOf, notices, duties, reports);
      },
    ),
  );
};
