import type { FastifyPluginAsync } from 'fastify';
import { idParams, violationDocumentQuery } from '../../../../shared/src/api/requests.ts';
import { type JobQueue, JobsBusy } from '../../jobs/queue.ts';
import { findChromium, htmlToPdf, PdfFailed } from '../../reports/pdf.ts';
import { REPORT_CSS_TAG } from '../../reports/style.ts';
import { violationToHtml } from '../../reports/violationDoc.ts';
import { maySee } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { API_ERRORS, ApiError } from '../errors.ts';
import { parseWith } from '../query.ts';
import { route } from '../routes.ts';

/** What the notice's document uses. */
export type ViolationDocumentServices = Pick<
  ApiContext,
  'auth' | 'catalogue' | 'compliance' | 'enforcement' | 'config'
> & {
  jobs: JobQueue;
};

const PDF_TIMEOUT_MS = 60_000;

/**
 * GET /api/violations/{id}/document: the notice of violation as served, a printable page (the report's
 * stylesheet) or that page printed to PDF by Chromium (501 PDF_UNAVAILABLE without it), in a place of the
 * gateway's one queue of heavy jobs (503 REPORTS_BUSY with Retry-After when its wait list is full).
 */
export const violationDocumentPlugin: FastifyPluginAsync<ViolationDocumentServices> = async (app, ctx) => {
  app.route(
    route(
      'GET /api/violations/:id/document',
      {
        schema: {
          tags: ['violations'],
          summary:
            'The notice of violation as served: the six elements of the law, as a printable page or a PDF',
          media: {
            description: 'The notice as a printable page or a PDF',
            content: { 'text/html': 'text', 'application/pdf': 'text' },
          },
        },
      },
      async (req, reply) => {
        const caller = ctx.auth.requireRead(req);
        const { id } = parseWith(idParams, req.params);
        const q = parseWith(violationDocumentQuery, req.query);
        const v = ctx.enforcement.violations.get(id);
        if (!v || !maySee(caller, v.siteId)) throw new ApiError('NOT_FOUND', `no notice of violation ${id}`);
        const site = ctx.catalogue.site(v.siteId);
        const chromium = q.format === 'pdf' ? findChromium(ctx.config.reports.chromium) : undefined;
        if (q.format === 'pdf' && chromium === undefined) throw new ApiError('PDF_UNAVAILABLE');
        const inspection = v.inspectionId
          ? ctx.compliance.listInspections({ siteId: v.siteId }).find((i) => i.id === v.inspectionId)
          : undefined;
        const labels = new Map((site?.practices ?? []).map((p) => [p.id, p.label]));
        const options = {
          siteName: site?.name ?? v.siteId,
          tz: site?.timezone ?? ctx.config.timezone,
          inspection,
          practiceLabel: (p: string) => labels.get(p) ?? p,
        };
        const name = `notice-of-violation-${v.siteId}-${v.issuedAt.slice(0, 10)}`;
        if (chromium !== undefined) {
          const pdf = await ctx.jobs
            .run('notice-pdf', () =>
              htmlToPdf(violationToHtml(v, { ...options, style: { inline: true } }), {
                chromium,
                timeoutMs: PDF_TIMEOUT_MS,
              }),
            )
            .catch((e: unknown) => {
              if (e instanceof JobsBusy) throw new ApiError('REPORTS_BUSY', e.message, e.retryAfterSec);
              if (!(e instanceof PdfFailed)) throw e;
              req.log.error(
                { err: e, violationId: id },
                'the notice of violation could not be printed to PDF',
              );
              throw new ApiError('PDF_FAILED', `${API_ERRORS.PDF_FAILED.message} (${e.message})`);
            });
          reply.type('application/pdf').header('content-disposition', `inline; filename="${name}.pdf"`);
          return pdf;
        }
        reply.type('text/html; charset=utf-8');
        return violationToHtml(v, { ...options, style: { href: `/report.css?v=${REPORT_CSS_TAG}` } });
      },
    ),
  );
};
