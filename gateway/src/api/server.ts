import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import { AlertError } from '../alerts/errors.ts';
import { JobQueue } from '../jobs/queue.ts';
import { DASHBOARD_DIR, VERSION } from '../paths.ts';
import { SESSION_COOKIE } from '../people/sessions.ts';
import { boundBodies } from './bodyLimits.ts';
import type { ApiContext } from './context.ts';
import { dashboardBundlePlugin } from './dashboardBundle.ts';
import { API_ERRORS, ApiError, errorBody } from './errors.ts';
import { pdfErrorPage, wantsPdfErrorPage } from './pdfErrorPage.ts';
import { adminPlugin } from './plugins/admin.ts';
import { agendaPlugin } from './plugins/agenda.ts';
import { alertsPlugin } from './plugins/alerts.ts';
import { authPlugin, cookieOptions } from './plugins/auth.ts';
import { chartsPlugin } from './plugins/charts.ts';
import { deviceLinksPlugin } from './plugins/deviceLinks.ts';
import { eventsPlugin } from './plugins/events.ts';
import { evidencePlugin } from './plugins/evidence.ts';
import { fleetPlugin } from './plugins/fleet.ts';
import { healthPlugin } from './plugins/health.ts';
import { importsPlugin } from './plugins/imports.ts';
import { noticesPlugin } from './plugins/notices.ts';
import { peoplePlugin } from './plugins/people.ts';
import { photosPlugin } from './plugins/photos.ts';
import { quarantinePlugin } from './plugins/quarantine.ts';
import { rejectionsPlugin } from './plugins/rejections.ts';
import { reportsPlugin } from './plugins/reports.ts';
import { rulesPlugin } from './plugins/rules.ts';
import { siteRecordsPlugin } from './plugins/siteRecords.ts';
import { sitesPlugin } from './plugins/sites.ts';
import { stopWorkPlugin } from './plugins/stopWork.ts';
import { telemetryPlugin } from './plugins/telemetry.ts';
import { verifyPagePlugin } from './plugins/verifyPage.ts';
import { violationDocumentPlugin } from './plugins/violationDocument.ts';
import { violationServicePlugin } from './plugins/violationService.ts';
import { violationsPlugin } from './plugins/violations.ts';
import { documentErrors, validateResponses } from './responses.ts';

export interface ApiOptions {
  /** Every service the routes use; each plugin is given only the few it needs. */
  services: ApiContext;
  https?: { cert: Buffer; key: Buffer };
  logger?: boolean;
  /** Parse every JSON 2xx answer with its route's zod schema; a mismatch is a 500 (tests, not service). */
  validateResponses?: boolean;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Security headers on every answer: a Content-Security-Policy that lets the dashboard and /docs load their
 * own scripts, styles and data only (no inline script, no framing; images also from `blob:`: the
 * previews of the photos an inspection form has taken), X-Frame-Options DENY, nosniff, no referrer;
 * HSTS only over HTTPS, where it means something.
 */
function securityHeaders(https: boolean) {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        connectSrc: ["'self'"],
        fontSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(https ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    frameguard: { action: 'deny' as const },
    referrerPolicy: { policy: 'no-referrer' as const },
    strictTransportSecurity: https ? { maxAge: 15_552_000 } : false,
    crossOriginEmbedderPolicy: false,
  };
}

/** The host (and port) of an Origin header, or undefined when it is not a URL. */
function originHost(origin: string): string | undefined {
  return URL.canParse(origin) ? new URL(origin).host : undefined;
}

/** Builds the HTTP API: one plugin per resource, an error catalogue, OpenAPI at /docs, the dashboard at /. */
export async function buildApi(o: ApiOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: o.logger ?? false,
    ...(o.https ? { https: o.https } : {}),
    bodyLimit: 256 * 1024,
    // The dashboard is bundled as the server starts; on a slow or busy machine that takes more than
    // fastify's 10 s for one plugin, and a gateway must not fail to start for it.
    pluginTimeout: 120_000,
  }) as unknown as FastifyInstance;
  // Route schemas document the API; values are parsed with zod in the handlers, so errors name their paths.
  app.setValidatorCompiler(() => (data) => ({ value: data }));
  // Response schemas are the contract's zod schemas, documented (responses.ts): answers are sent as
  // JSON.stringify writes them, never cut down to the schema's fields.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  documentErrors(app);
  boundBodies(app);
  if (o.validateResponses) validateResponses(app);
  await app.register(helmet, securityHeaders(o.https !== undefined));
  // While the store is read-only (a full disk) nothing can be saved: writes are refused, reads go on.
  app.addHook('onRequest', async (req) => {
    if (READS.has(req.method)) return;
    const readOnly = o.services.storeReadOnly();
    if (readOnly !== undefined) throw new ApiError('READ_ONLY', `the store is read-only: ${readOnly}`);
  });
  await app.register(cookie);
  await app.register(csrf, { cookieOpts: cookieOptions(o.https !== undefined) });
  // An Authorization header is a working bearer token or the request is refused (401) here, before any
  // handler: never a fall-through to the session cookie, so the CSRF check below skips bearer writes only.
  app.addHook('onRequest', async (req) => {
    if (req.headers.authorization !== undefined) o.services.auth.caller(req);
  });
  // A write made with the session cookie (not a bearer token) must come from the gateway's own pages:
  // the same origin, and the CSRF token the sign-in answered (x-csrf-token).
  app.addHook('onRequest', (req, reply, done) => {
    if (READS.has(req.method) || req.headers.authorization || !req.cookies[SESSION_COOKIE]) return done();
    const origin = req.headers.origin;
    if (origin !== undefined && originHost(origin) !== req.headers.host)
      return done(new ApiError('CSRF', 'a write from another site is refused'));
    app.csrfProtection(req, reply, () => done());
  });
  // The first admin's form (/setup) posts as a plain HTML form.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  app.setErrorHandler((err, req, reply) => {
    if (err instanceof ApiError) {
      if (err.retryAfterSec !== undefined) reply.header('retry-after', String(err.retryAfterSec));
      if (wantsPdfErrorPage(err.code, req))
        return reply.code(err.status).type('text/html; charset=utf-8').send(pdfErrorPage(err.code, req.url));
      return reply.code(err.status).send(errorBody(err.code, err.message, err.field));
    }
    if (err instanceof AlertError) return reply.code(err.httpStatus).send(errorBody(err.code, err.message));
    // A full or failing disk: the store turns read-only and the write is refused as while it is.
    if (o.services.storeFault?.(err))
      return reply.code(503).send(errorBody('READ_ONLY', API_ERRORS.READ_ONLY.message));
    const e = err as Error & { statusCode?: number; code?: string };
    if (e.code?.startsWith('FST_CSRF'))
      return reply.code(403).send(errorBody('CSRF', API_ERRORS.CSRF.message));
    if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE' && req.routeOptions.bodyLimit !== undefined)
      return reply.code(413).send(
        errorBody(
          'TOO_LARGE',
          // A route that takes a file says why in its own words (photos, logger files); fastify's
          // own sentence is replaced with the route's bound.
          e.message === 'Request body is too large'
            ? `the request is larger than this form takes: at most ${Math.round(req.routeOptions.bodyLimit / 1024)} KB. Shorten the text or split it`
            : e.message,
        ),
      );
    const status = e.statusCode && e.statusCode >= 400 && e.statusCode < 500 ? e.statusCode : 500;
    if (status === 500) reply.log.error(err);
    const code =
      status === 404
        ? 'NOT_FOUND'
        : status === 413
          ? 'TOO_LARGE'
          : status === 500
            ? 'INTERNAL'
            : 'BAD_REQUEST';
    return reply.code(status).send(errorBody(code, status === 500 ? 'internal error' : e.message));
  });
  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send(errorBody('NOT_FOUND', `${API_ERRORS.NOT_FOUND.message}: ${req.method} ${req.url}`)),
  );
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Compliance monitoring gateway API',
        version: VERSION,
        description:
          'Telemetry, sites, alerts with deadlines, inspections, storms and compliance reports. Times are ISO 8601 UTC. ' +
          'Writes need `Authorization: Bearer <token>` with a role: viewer < inspector < engineer < admin.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // The API explorer sets inline styles as it renders: allowed on /docs alone; scripts stay 'self'.
    transformStaticCSP: (csp) => csp.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'"),
  });
  await registerPlugins(app, o.services);
  await app.register(dashboardBundlePlugin);
  await app.register(verifyPagePlugin);
  await app.register(fastifyStatic, {
    root: DASHBOARD_DIR,
    prefix: '/',
    index: 'index.html',
    wildcard: false,
    // The dashboard's sources are served bundled, as /app.js (dashboardBundle.ts); their stylesheets
    // (the charts') as they are.
    allowedPath: (path) => !path.startsWith('/src/') || path.endsWith('.css'),
  });
  return app;
}

/** One plugin per resource, each given only the services its routes use. */
async function registerPlugins(app: FastifyInstance, services: ApiContext): Promise<void> {
  const { auth, catalogue, changes, compliance, config, devices, events, evidence, people, readings } =
    services;
  const { enforcement, metrics, now, photos, registry, transaction } = services;
  // The one queue of heavy jobs (jobs/README.md): report builds and every PDF take their turn in it.
  const jobs = new JobQueue(
    { running: config.reports.concurrent, waiting: config.reports.waiting, retryAfterSec: 10 },
    metrics,
  );
  await app.register(healthPlugin, { auth, config, health: services.health, metrics });
  await app.register(authPlugin, { auth, config, events, people, transaction });
  await app.register(peoplePlugin, { auth, catalogue, events, now, people, transaction });
  await app.register(adminPlugin, { auth, catalogue, changes, config, devices });
  await app.register(sitesPlugin, { auth, catalogue, compliance, config, devices, enforcement });
  await app.register(telemetryPlugin, { auth, catalogue, now, readings, registry });
  await app.register(chartsPlugin, { auth, catalogue, compliance, config, now, readings });
  await app.register(rejectionsPlugin, { auth, readings });
  await app.register(rulesPlugin, { auth });
  await app.register(deviceLinksPlugin, {
    auth,
    catalogue,
    links: services.links,
    profiles: services.profiles,
  });
  await app.register(quarantinePlugin, { auth, quarantine: services.quarantine });
  await app.register(eventsPlugin, { auth, config, events, metrics });
  await app.register(alertsPlugin, {
    auth,
    catalogue,
    compliance,
    config,
    deadLetters: services.deadLetters,
    devices,
    notifications: services.notifications,
    now,
    photos,
  });
  await app.register(photosPlugin, { auth, catalogue, config, metrics, now, photos });
  await app.register(noticesPlugin, { auth, catalogue, enforcement, now });
  await app.register(violationsPlugin, {
    auth,
    catalogue,
    compliance,
    enforcement,
    now,
    photos,
  });
  await app.register(violationDocumentPlugin, { auth, catalogue, compliance, config, enforcement, jobs });
  await app.register(stopWorkPlugin, { auth, catalogue, enforcement });
  await app.register(violationServicePlugin, { auth, catalogue, enforcement, now });
  await app.register(siteRecordsPlugin, { auth, catalogue, config, enforcement, now });
  await app.register(agendaPlugin, { auth, catalogue, compliance, config, enforcement, now });
  await app.register(reportsPlugin, {
    auth,
    catalogue,
    certifications: services.certifications,
    certify: services.certify,
    changes,
    citations: services.citations,
    compliance,
    config,
    enforcement,
    evidence,
    jobs,
    now,
    photos,
    readings,
  });
  await app.register(importsPlugin, { auth, importLogger: services.importLogger, registry });
  await app.register(evidencePlugin, { auth, compliance, evidence, log: services.log, readings });
  await app.register(fleetPlugin, { auth, fleet: services.fleet });
}
