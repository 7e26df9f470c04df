import type { FastifyPluginAsync } from 'fastify';
import { CHART_RANGE_MS, MAX_CHART_SPAN_MS } from '../../../../shared/src/api/chartRanges.ts';
import { chartsQuery } from '../../../../shared/src/api/requests.ts';
import { chartMarkingRules } from '../../rules/index.ts';
import { mustSee } from '../auth.ts';
import { buildCharts } from '../charts/build.ts';
import type { ApiContext } from '../context.ts';
import { deviceServices } from '../deviceService.ts';
import { ApiError } from '../errors.ts';
import { parseWith } from '../query.ts';
import { route } from '../routes.ts';

/** What the charts use. */
export type ChartsServices = Pick<
  ApiContext,
  'auth' | 'catalogue' | 'compliance' | 'config' | 'now' | 'readings'
>;

/**
 * GET /api/charts: a site's charts (or one device's) over a day to a year, at most 1,000 buckets a series,
 * with the lines, bands and markers that show the law on them.
 */
export const chartsPlugin: FastifyPluginAsync<ChartsServices> = async (app, ctx) => {
  app.route(
    route(
      'GET /api/charts',
      {
        schema: {
          tags: ['telemetry'],
          summary:
            "A site's charts over a range (range=day|week|month|quarter|year, or from/to up to a year): readings in at most 1,000 buckets a series, with the legal lines, storms, alarm episodes, gaps and markers",
        },
      },
      async (req) => {
        const caller = ctx.auth.readPublic(req);
        const q = parseWith(chartsQuery, req.query);
        mustSee(caller, q.siteId);
        const site = ctx.catalogue.site(q.siteId);
        if (!site) throw new ApiError('NOT_FOUND', `no site ${q.siteId}`);
        if (q.deviceId && !site.devices.some((d) => d.id === q.deviceId))
          throw new ApiError('NOT_FOUND', `no device ${q.deviceId} at ${q.siteId}`);
        const now = ctx.now();
        const to =
          q.to ?? (q.range || q.from === undefined ? now : Math.min(now, q.from + CHART_RANGE_MS.week));
        const from = q.range ? to - CHART_RANGE_MS[q.range] : (q.from ?? to - CHART_RANGE_MS.week);
        if (from >= to) throw new ApiError('BAD_REQUEST', 'from is not before to');
        if (to - from > MAX_CHART_SPAN_MS) throw new ApiError('BAD_REQUEST', 'a chart spans a year at most');
        const services = deviceServices(ctx, site.id);
        // A device retired within the range keeps its charts up to then.
        const retired = q.deviceId
          ? []
          : ctx.catalogue
              .retiredConfigs(site.id)
              .filter((d) => (services.get(d.id)?.retiredAt ?? Number.NEGATIVE_INFINITY) > from);
        const storms = ctx.compliance.listStorms({ siteId: site.id, from, to });
        const alerts = chartMarkingRules().flatMap((rule) =>
          ctx.compliance.listAlerts({ siteId: site.id, rule, status: 'resolved', to }),
        );
        return buildCharts(
          {
            site: retired.length ? { ...site, devices: [...site.devices, ...retired] } : site,
            timezone: site.timezone ?? ctx.config.timezone,
            from,
            to,
            range: q.range ?? null,
            now,
            ...(q.deviceId ? { deviceId: q.deviceId } : {}),
          },
          {
            readings: (a, b) => ctx.readings.iterate({ siteId: site.id, from: a, to: b }),
            storms,
            alerts,
            inspections: ctx.compliance.listInspections({ siteId: site.id, from, to }),
            services,
          },
        );
      },
    ),
  );
};
