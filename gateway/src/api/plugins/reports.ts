import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { buildComplianceReport, reportToCsv, reportToHtml } from '../../reports/compliance.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { openapi, parseWith, timeParam } from '../query.ts';

const query = z.strictObject({
  siteId: z.string().min(1),
  from: timeParam.optional(),
  to: timeParam.optional(),
  format: z.enum(['json', 'csv', 'html']).default('json'),
});

/** GET /api/reports/compliance: a site's compliance over a period, as JSON, CSV or a printable page. */
export const reportsPlugin: FastifyPluginAsync<{ ctx: ApiContext }> = async (app, { ctx }) => {
  app.get(
    '/api/reports/compliance',
    {
      schema: {
        tags: ['reports'],
        summary:
          'Compliance report of a site: storms and inspections, cleanouts, remedies, extensions and gaps, each on time or not',
        querystring: openapi(query),
      },
    },
    async (req, reply) => {
      ctx.auth.requireRead(req);
      const q = parseWith(query, req.query);
      const site = ctx.config.sites.find((s) => s.id === q.siteId);
      if (!site) throw new ApiError('NOT_FOUND', `no site ${q.siteId}`);
      const now = ctx.now();
      const to = q.to ?? now;
      const from = q.from ?? to - 30 * 86_400_000;
      if (from > to) throw new ApiError('BAD_REQUEST', 'from is after to');
      const c = ctx.compliance;
      const alerts = c.listAlerts({ siteId: site.id, from, to, limit: 10_000 });
      // The extensions of the period's duties, whenever the letter was recorded.
      const ids = new Set(alerts.map((a) => a.id));
      const extensions = c.listExtensions({ siteId: site.id }).filter((e) => ids.has(e.alertId));
      const report = buildComplianceReport({
        site,
        timezone: site.timezone ?? ctx.config.timezone,
        from,
        to,
        now,
        alerts,
        storms: c.listStorms({ siteId: site.id, from, to }),
        inspections: c.listInspections({ siteId: site.id, from, to }),
        extensions,
        chains: [
          c.verifyChain(undefined, undefined, 'alert_history'),
          c.verifyChain(undefined, undefined, 'inspections'),
          c.verifyChain(undefined, undefined, 'extensions'),
        ],
        audit: ctx.evidence.health(),
        heads: c.chainHeads(),
      });
      const name = `compliance-${site.id}-${new Date(from).toISOString().slice(0, 10)}-${new Date(to).toISOString().slice(0, 10)}`;
      if (q.format === 'csv') {
        reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${name}.csv"`);
        return reportToCsv(report);
      }
      if (q.format === 'html') {
        reply.type('text/html; charset=utf-8');
        return reportToHtml(report);
      }
      return report;
    },
  );
};
