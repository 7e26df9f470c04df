/**
 * GET /api/reports/compliance: a site's compliance over whole days, as JSON (with the evidence that
 * proves it), CSV, a printable page (styled by GET /report.css, with a rain chart per storm and the
 * inspections' photos carried in it) or that page printed to PDF by Chromium; POST /api/reports/compliance/certify: an inspector or engineer certifies a
 * site's records for a period (a log entry the reports then show).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ChangeResponse } from '../../../../shared/src/admin.ts';
import { certifyBody, reportQuery } from '../../../../shared/src/api/requests.ts';
import type { SiteConfig } from '../../config/schema.ts';
import { type JobQueue, JobsBusy } from '../../jobs/queue.ts';
import { deviceNamer, stormCharts } from '../../reports/charts.ts';
import { buildComplianceReport } from '../../reports/compliance.ts';
import { reportToCsv } from '../../reports/csv.ts';
import { type HtmlOptions, reportToHtml } from '../../reports/html.ts';
import { reportToJson } from '../../reports/json.ts';
import { findChromium, htmlToPdf, PdfFailed } from '../../reports/pdf.ts';
import { type Period, reportPeriod } from '../../reports/period.ts';
import { reportPhotos } from '../../reports/photos.ts';
import type { Certification, ComplianceReport } from '../../reports/report.ts';
import { overrideInEffect } from '../../reports/sections/changes.ts';
import { alertsInService, listedAlerts, openDuring } from '../../reports/sections/duties.ts';
import { ordersInEffect } from '../../reports/sections/stopWork.ts';
import { violationsInForce } from '../../reports/sections/violations.ts';
import { REPORT_CSS, REPORT_CSS_TAG } from '../../reports/style.ts';
import { type Caller, mustSee } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { deviceServices } from '../deviceService.ts';
import { API_ERRORS, ApiError } from '../errors.ts';
import { parseWith } from '../query.ts';
import { route } from '../routes.ts';

/** A day (YYYY-MM-DD, in the site's zone), an ISO 8601 time, or epoch ms. */
/** What a report made without signing in says of who generated it. */
export const PUBLIC_COPY = 'Public copy';
/** How long Chromium may take to print one report. */
const PDF_TIMEOUT_MS = 120_000;

const b64 = (b: Buffer) => b.toString('base64');

/** What compliance reports and certifications use. */
export type ReportsServices = Pick<
  ApiContext,
  | 'auth'
  | 'catalogue'
  | 'certifications'
  | 'certify'
  | 'changes'
  | 'citations'
  | 'compliance'
  | 'config'
  | 'enforcement'
  | 'evidence'
  | 'now'
  | 'photos'
  | 'readings'
> & { jobs: JobQueue };

export const reportsPlugin: FastifyPluginAsync<ReportsServices> = async (app, ctx) => {
  // The gateway's one queue of heavy jobs (jobs/queue.ts): a report is built, rendered and printed in
  // its place; the rest are told to come back.
  const queue = ctx.jobs;
  const siteOf = (id: string, caller: Caller | undefined) => {
    mustSee(caller, id);
    const site = ctx.catalogue.site(id);
    if (!site) throw new ApiError('NOT_FOUND', `no site ${id}`);
    return { site, tz: site.timezone ?? ctx.config.timezone };
  };
  const certifications = (siteId: string, from: number, to: number): Certification[] =>
    ctx.certifications(siteId, from, to).map((c) => ({
      logIndex: c.logIndex,
      by: c.by,
      role: c.role,
      at: new Date(c.at).toISOString(),
      statement: c.statement,
      period: { from: new Date(c.from).toISOString(), to: new Date(c.to).toISOString() },
      checkpoint: c.checkpoint,
    }));

  const build = async (
    site: SiteConfig,
    tz: string,
    period: Period,
    now: number,
    caller: Caller | undefined,
  ): Promise<ComplianceReport> => {
    const { from, to } = period;
    const c = ctx.compliance;
    // Every duty open at some time in the period, whenever it was raised; a gap only where its device
    // was expected to report in it (not after it was retired).
    const services = deviceServices(ctx, site.id);
    const alerts = alertsInService(
      c.listAlerts({ siteId: site.id, to, limit: 100_000 }).filter((a) => openDuring(a, from, to)),
      { services, period },
    );
    // The extensions of the period's duties, whenever the letter was recorded.
    const ids = new Set(alerts.map((a) => a.id));
    const extensions = c.listExtensions({ siteId: site.id }).filter((e) => ids.has(e.alertId));
    const storms = c.listStorms({ siteId: site.id, from, to: to - 1 });
    const inspections = c.listInspections({ siteId: site.id, from, to: to - 1 });
    const notices = ctx.enforcement.notices.list({ siteId: site.id, from, to: to - 1 });
    // The notices of violation in force and the stop-work orders in effect at some time in the period.
    const violations = violationsInForce({
      violations: ctx.enforcement.violations.list({ siteId: site.id, to: to - 1 }),
      period,
      tz,
      now,
    });
    const stopWork = ordersInEffect({
      stopWork: ctx.enforcement.violations.orders({ siteId: site.id, to: to - 1 }),
      period,
      tz,
    });
    const certs = certifications(site.id, from, to);
    // The developer's records on file at the period's end.
    const records = ctx.enforcement.records.ofSite(site.id).filter((x) => Date.parse(x.recordedAt) < to);
    // The changes made in the period (the configuration the store was seeded with is not one), the
    // site's history on record dated or recorded in it (what the period's clocks start from), and the
    // figures set looser than the law that were in effect when it began.
    const recorded = (x: ChangeResponse) =>
      x.entity === 'history' && Date.parse(x.at) >= from && Date.parse(x.at) < to;
    const all = ctx.changes.list({ siteId: site.id, to });
    const changes = all.filter(
      (x) =>
        (x.action !== 'seed' && (Date.parse(x.effectiveAt) >= from || recorded(x))) ||
        overrideInEffect(x, all, from),
    );
    const cp = ctx.evidence.checkpoint();
    // The duties listed cite their history; a storm's duty is its record's (its readings are cited).
    const cited = await ctx.citations(
      {
        siteId: site.id,
        storms,
        alerts: listedAlerts(alerts),
        inspections,
        notices,
        violations,
        stopWork,
        extensions,
        certifications: certs,
        changes,
        records,
      },
      cp.size,
      ctx.config.reports.maxCitedReadings,
    );
    return buildComplianceReport({
      site,
      timezone: tz,
      period,
      now,
      generatedBy: caller?.actor ?? PUBLIC_COPY,
      alerts,
      storms,
      inspections,
      notices,
      violations,
      stopWork,
      extensions,
      certifications: certs,
      changes,
      records,
      evidence: {
        checkpoint: { origin: cp.origin, size: cp.size, root: b64(cp.root), note: cp.note },
        verifierKey: ctx.evidence.key.verifierKey,
        entries: cited.entries,
        proof: cited.proof,
        longStorms: cited.longStorms,
        audit: ctx.evidence.health(),
      },
      services,
    });
  };

  /**
   * The page's links and look: absolute links (they work on paper and in a PDF), charts, device names,
   * and the inspections' photos carried in the page (`reports/photos.ts`, within its budget).
   */
  const pageOptions = async (
    report: ComplianceReport,
    site: SiteConfig,
    base: string,
    style: HtmlOptions['style'],
  ): Promise<HtmlOptions> => {
    const { charts, leftOut } = await stormCharts(ctx.readings, site, report.storms, report.site.timezone);
    const json = new URLSearchParams({
      siteId: site.id,
      from: report.period.firstDay,
      to: report.period.lastDay,
      format: 'json',
    });
    return {
      style,
      charts,
      chartsLeftOut: leftOut,
      deviceName: deviceNamer(site),
      links: {
        json: `${base}/api/reports/compliance?${json}`,
        verify: `${base}/verify.html`,
        photo: `${base}/api/photos/`,
      },
      photos: await reportPhotos(report, ctx.photos),
    };
  };

  app.get('/report.css', { schema: { hide: true } }, async (req, reply) => {
    const etag = `"${REPORT_CSS_TAG}"`;
    reply.header('cache-control', 'public, max-age=86400').header('etag', etag);
    if (req.headers['if-none-match'] === etag) return reply.code(304).send();
    reply.type('text/css; charset=utf-8');
    return REPORT_CSS;
  });

  app.route(
    route(
      'GET /api/reports/compliance',
      {
        // The page's running header (its site and period) is its own small style rule, allowed by a nonce.
        helmet: { enableCSPNonces: true },
        schema: {
          tags: ['reports'],
          summary:
            'Compliance report of a site over whole days: storms and inspections, cleanouts, remedies, extensions and gaps, each on time or not, with its evidence',
          description:
            'format=html is a printable page (stylesheet /report.css, a rain chart per storm, the certification block); ' +
            'format=pdf is that page printed by Chromium on the gateway (501 PDF_UNAVAILABLE when it has none).',
          media: {
            description: 'The report as JSON (with its evidence), CSV, a printable page or a PDF',
            content: { 'text/csv': 'text', 'text/html': 'text', 'application/pdf': 'text' },
          },
        },
      },
      async (req, reply) => {
        const caller = ctx.auth.requireRead(req);
        const q = parseWith(reportQuery, req.query);
        const { site, tz } = siteOf(q.siteId, caller);
        const chromium = q.format === 'pdf' ? findChromium(ctx.config.reports.chromium) : undefined;
        if (q.format === 'pdf' && chromium === undefined) throw new ApiError('PDF_UNAVAILABLE');
        const now = ctx.now();
        const period = reportPeriod(q, tz, now);
        if (period.from >= period.to) throw new ApiError('BAD_REQUEST', 'from is after to');
        const base = (ctx.config.fleet.url ?? `${req.protocol}://${req.host}`).replace(/\/+$/, '');
        const built = await queue
          .run(q.format === 'pdf' ? 'report-pdf' : 'report', async () => {
            const report = await build(site, tz, period, ctx.now(), caller);
            const name = `compliance-${site.id}-${period.firstDay}-${period.lastDay}`;
            // Rendered inside the queue's place, so that no more than its reports are held at once.
            if (q.format === 'csv')
              return { name, type: 'text/csv; charset=utf-8', body: reportToCsv(report) };
            if (q.format === 'html') {
              const style = { href: `/report.css?v=${REPORT_CSS_TAG}`, nonce: reply.cspNonce.style };
              const html = reportToHtml(report, await pageOptions(report, site, base, style));
              return { name, type: 'text/html; charset=utf-8', body: html };
            }
            if (q.format === 'pdf' && chromium !== undefined) {
              // Printed from a file, with no server to ask: the stylesheet goes inline.
              const html = reportToHtml(report, await pageOptions(report, site, base, { inline: true }));
              const pdf = await htmlToPdf(html, { chromium, timeoutMs: PDF_TIMEOUT_MS });
              return { name, type: 'application/pdf', body: pdf };
            }
            return { name, type: 'application/json; charset=utf-8', body: await reportToJson(report) };
          })
          .catch((e: unknown) => {
            if (e instanceof JobsBusy) throw new ApiError('REPORTS_BUSY', e.message, e.retryAfterSec);
            if (e instanceof PdfFailed) {
              req.log.error({ err: e, siteId: site.id }, 'the report could not be printed to PDF');
              throw new ApiError('PDF_FAILED', `${API_ERRORS.PDF_FAILED.message} (${e.message})`);
            }
            throw e;
          });
        reply.type(built.type);
        if (q.format === 'csv')
          reply.header('content-disposition', `attachment; filename="${built.name}.csv"`);
        if (q.format === 'json' || q.format === 'pdf')
          reply.header('content-disposition', `inline; filename="${built.name}.${q.format}"`);
        return built.body;
      },
    ),
  );

  app.route(
    route(
      'POST /api/reports/compliance/certify',
      {
        schema: {
          tags: ['reports'],
          summary: "Certifies a site's records for a period (inspector or engineer); the statement is logged",
          security: [{ bearer: [] }],
        },
      },
      async (req, reply) => {
        const caller = ctx.auth.require(req, 'inspector');
        const b = parseWith(certifyBody, req.body);
        const { site, tz } = siteOf(b.siteId, caller);
        const now = ctx.now();
        const period = reportPeriod(b, tz, now);
        if (period.from >= period.to) throw new ApiError('BAD_REQUEST', 'from is after to');
        const cp = ctx.evidence.checkpoint();
        const logIndex = ctx.certify({
          siteId: site.id,
          from: period.from,
          to: period.to,
          by: caller.actor,
          role: caller.role,
          statement: b.statement,
          at: now,
          checkpoint: { size: cp.size, root: b64(cp.root) },
        });
        reply.code(201);
        return certifications(site.id, period.from, period.to).find((x) => x.logIndex === logIndex);
      },
    ),
  );
};
