import type { FastifyPluginAsync } from 'fastify';
import { idParams, violationDocumentQuery } from '../../../../shared/src/api/requests.ts';
import { type JobQueue, JobsBusy } from '../../jobs/queue.ts';
import { findChromium, htmlToPdf, PdfFailed } from '../../reports/pdf.ts';
import { stopWorkDocumentName, stopWorkToHtml } from '../../reports/stopWorkDoc.ts';
import { REPORT_CSS_TAG } from '../../reports/style.ts';
import { violationToHtml } from '../../reports/violationDoc.ts';
import { maySee } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { API_ERRORS, ApiError } from '../errors.ts';
import { parseWith } from '../query.ts';
import { route } from '../routes.ts';

/** What the documents of a notice and of an order use. */
export type ViolationDocumentServices = Pick<
  ApiContext,
  'auth' | 'catalogue' | 'compliance' | 'enforcement' | 'config'
> & {
  jobs: JobQueue;
};

const PDF_TIMEOUT_MS = 60_000;

/**
 * A page as a PDF printed by Chromium in a place of the jobs queue (a notice's and an order's are both
 * `notice-pdf` jobs), its failures as the API's errors.
 */
async function printed(
  ctx: ViolationDocumentServices,
  chromium: string,
  html: string,
  what: { log: string; fields: Record<string, string> },
  log: { error(o: object, m: string): void },
): Promise<Buffer> {
  return ctx.jobs
    .run('notice-pdf', () => htmlToPdf(html, { chromium, timeoutMs: PDF_TIMEOUT_MS }))
    .catch((e: unknown) => {
      if (e instanceof JobsBusy) throw new ApiError('REPORTS_BUSY', e.message, e.retryAfterSec);
      if (!(e instanceof PdfFailed)) throw e;
      log.error({ err: e, ...what.fields }, what.log);
      throw new ApiError('PDF_FAILED', `${API_ERRORS.PDF_FAILED.message} (${e.message})`);
    });
}

/** Chromium for a PDF asked for (501 PDF_UNAVAILABLE without it); undefined for a page. */
function chromiumFor(ctx: ViolationDocumentServices, format: 'html' | 'pdf'): string | undefined {
  if (format !== 'pdf') return undefined;
  const chromium = findChromium(ctx.config.reports.chromium);
  if (chromium === undefined) throw new ApiError('PDF_UNAVAILABLE');
  return chromium;
}

const STYLESHEET = { href: `/report.css?v=${REPORT_CSS_TAG}` };

/**
 * GET /api/violations/{id}/document and GET /api/stop-work/{id}/document: the notice of violation or the
 * stop-work order as served, a printable page (the report's stylesheet) or that page printed to PDF by
 * Chromium (501 PDF_UNAVAILABLE without it), in a place of the gateway's one queue of heavy jobs (503
 * REPORTS_BUSY with Retry-After when its wait list is full).
 */
export const violationDocumentPlugin: FastifyPluginAsync<ViolationDocumentServices> = async (app, ctx) => {
  app.route(
    route(
      'GET /api/violations/:id/document',
      {
        // The document's footer (its own title) is its own small style rule, allowed by a nonce.
        helmet: { enableCSPNonces: true },
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
        const chromium = chromiumFor(ctx, q.format);
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
          const pdf = await printed(
            ctx,
            chromium,
            violationToHtml(v, { ...options, style: { inline: true } }),
            {
              log: 'the notice of violation could not be printed to PDF',
              fields: { violationId: id },
            },
            req.log,
          );
          reply.type('application/pdf').header('content-disposition', `inline; filename="${name}.pdf"`);
          return pdf;
        }
        reply.type('text/html; charset=utf-8');
        return violationToHtml(v, { ...options, style: { ...STYLESHEET, nonce: reply.cspNonce.style } });
      },
    ),
  );

  app.route(
    route(
      'GET /api/stop-work/:id/document',
      {
        // The document's footer (its own title) is its own small style rule, allowed by a nonce.
        helmet: { enableCSPNonces: true },
        schema: {
          tags: ['violations'],
          summary:
            "The stop-work order as served: the law's words, the parties on file, why, its services and lifting, as a printable page or a PDF",
          media: {
            description: 'The order as a printable page or a PDF',
            content: { 'text/html': 'text', 'application/pdf': 'text' },
          },
        },
      },
      async (req, reply) => {
        const caller = ctx.auth.requireRead(req);
        const { id } = parseWith(idParams, req.params);
        const q = parseWith(violationDocumentQuery, req.query);
        const e = ctx.enforcement.violations;
        const o = e.order(id);
        if (!o || !maySee(caller, o.siteId)) throw new ApiError('NOT_FOUND', `no stop-work order ${id}`);
        const site = ctx.catalogue.site(o.siteId);
        const chromium = chromiumFor(ctx, q.format);
        const options = {
          siteName: site?.name ?? o.siteId,
          tz: site?.timezone ?? ctx.config.timezone,
          // The parties on file now (the order's e-mail carries them as they were when it was served).
          parties: {
            ...(site?.landowner ? { landowner: site.landowner } : {}),
            ...(site?.developer ? { developer: site.developer } : {}),
            ...(site?.address ? { siteAddress: site.address } : {}),
          },
          notices: o.violationIds.flatMap((v) => e.get(v) ?? []),
        };
        const name = stopWorkDocumentName(o);
        if (chromium !== undefined) {
          const pdf = await printed(
            ctx,
            chromium,
            stopWorkToHtml(o, { ...options, style: { inline: true } }),
            {
              log: 'the stop-work order could not be printed to PDF',
              fields: { orderId: id },
            },
            req.log,
          );
          reply.type('application/pdf').header('content-disposition', `inline; filename="${name}.pdf"`);
          return pdf;
        }
        reply.type('text/html; charset=utf-8');
        return stopWorkToHtml(o, { ...options, style: { ...STYLESHEET, nonce: reply.cspNonce.style } });
      },
    ),
  );
};
