import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { CHART_RANGE_MS, CHART_RANGES, MAX_CHART_SPAN_MS } from '../../../../shared/src/api/chartRanges.ts';
import { chartsAnswerSchema } from '../../../../shared/src/api/charts.ts';
import { idText } from '../../../../shared/src/bounds.ts';
import { chartMarkingRules } from '../../rules/index.ts';
import { mustSee } from '../auth.ts';
import { buildCharts } from '../charts/build.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { openapi, parseWith, timeParam } from '../query.ts';
import { answers } from '../responses.ts';

const chartsQuery = z.strictObject({
  siteId: idText(),
  deviceId: idText().optional(),
  /** A range ending at `to` (default now); without it, `from` to `to` (default the last week). */
  range: z.enum(CHART_RANGES).optional(),
  from: timeParam.optional(),
  to: timeParam.optional(),
});

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
  app.get(
    '/api/charts',
    {
      schema: {
        tags: ['telemetry'],
        summary:
          "A site's charts over a range (range=day|week|month|quarter|year, or from/to up to a year): readings in at most 1,000 buckets a series, with the legal lines, storms, alarm episodes, gaps and markers",
        querystring: openapi(chartsQuery),
        response: answers({ 200: chartsAnswerSchema }),
      },
    },
    async (req) => {
      const caller = ctx.auth.requireRead(req);
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
      const storms = ctx.compliance.listStorms({ siteId: site.id, from, to });
      const alerts = chartMarkingRules().flatMap((rule) =>
        ctx.compliance.listAlerts({ siteId: site.id, rule, status: 'resolved', to }),
      );
      return buildCharts(
        {
          site,
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
        },
      );
    },
  );
};
