/**
 * Sites, devices and recipients changed live (admin): POST /api/sites, PATCH /api/sites/{id},
 * POST /api/sites/{siteId}/devices (answers the device's MQTT credentials once), PATCH a device (edit,
 * calibration from `effectiveAt`, retire), POST its /secret (rotate: the new password once, the old one
 * refused at once); GET /api/changes, the change records with their evidence log entries.
 */
import type { FastifyPluginAsync } from 'fastify';
import {
  deviceCreateBody,
  devicePatchBody,
  siteCreateBody,
  sitePatchBody,
} from '../../../../shared/src/admin.ts';
import {
  changesFilter,
  idParams,
  siteDeviceParams,
  siteDevicesParams,
} from '../../../../shared/src/api/requests.ts';
import { CatalogueError } from '../../admin/catalogue.ts';
import { maySee, mustSee } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { pageOf, sendPage } from '../paging.ts';
import { parseWith } from '../query.ts';
import { route } from '../routes.ts';
import { siteSummary } from './sites.ts';

/** What a site's or a device's body may be at most (their rule parameters vary by rule). */
export const RULE_PARAMS_BODY_LIMIT = 64 * 1024;
const secured = { security: [{ bearer: [] }] };

/** The catalogue's refusals as the API's errors. */
function checked<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof CatalogueError) throw new ApiError(e.code, e.message);
    throw e;
  }
}

/** What the admin routes (sites, devices, recipients, the change log) use. */
export type AdminServices = Pick<ApiContext, 'auth' | 'catalogue' | 'changes' | 'config' | 'devices'>;

export const adminPlugin: FastifyPluginAsync<AdminServices> = async (app, ctx) => {
  const cat = ctx.catalogue;
  const doc = (summary: string, extra: Record<string, unknown>) => ({
    schema: { tags: ['admin'], summary, ...extra, ...secured },
  });
  /**
   * A site's or a device's body carries the rules' parameters as further keys (each bounded, at most
   * MAX.params of them): their worst case, every word and table at its most, is far beyond any real
   * site, so these administrator's forms read at most RULE_PARAMS_BODY_LIMIT.
   */
  const withParams = (summary: string, extra: Record<string, unknown>) => ({
    ...doc(summary, extra),
    bodyLimit: RULE_PARAMS_BODY_LIMIT,
  });

  app.route(
    route('POST /api/sites', withParams('Add a site (admin)', {}), async (req, reply) => {
      const caller = ctx.auth.require(req, 'admin');
      const b = parseWith(siteCreateBody, req.body);
      const site = checked(() => cat.addSite(b, caller.actor));
      reply.code(201);
      return siteSummary(ctx, site, false);
    }),
  );

  app.route(
    route(
      'PATCH /api/sites/:id',
      withParams('Edit a site (admin): name, kind, time zone, rule parameters, recipients', {}),
      async (req) => {
        const caller = ctx.auth.require(req, 'admin');
        const { id } = parseWith(idParams, req.params);
        const b = parseWith(sitePatchBody, req.body);
        return siteSummary(
          ctx,
          checked(() => cat.editSite(id, b, caller.actor)),
          false,
        );
      },
    ),
  );

  app.route(
    route(
      'POST /api/sites/:siteId/devices',
      withParams('Add a device (admin): answers its MQTT username and password, shown this once', {}),
      async (req, reply) => {
        const caller = ctx.auth.require(req, 'admin');
        const { siteId } = parseWith(siteDevicesParams, req.params);
        const b = parseWith(deviceCreateBody, req.body);
        const creds = checked(() => cat.addDevice(siteId, b, caller.actor));
        reply.code(201);
        return creds;
      },
    ),
  );

  app.route(
    route(
      'PATCH /api/sites/:siteId/devices/:deviceId',
      withParams('Edit a device (admin): parameters, a calibration from effectiveAt, or retire it', {}),
      async (req) => {
        const caller = ctx.auth.require(req, 'admin');
        const { siteId, deviceId } = parseWith(siteDeviceParams, req.params);
        const { effectiveAt, ...b } = parseWith(devicePatchBody, req.body);
        const d = checked(() =>
          cat.editDevice(
            siteId,
            deviceId,
            { ...b, ...(effectiveAt !== undefined ? { effectiveAt: Date.parse(effectiveAt) } : {}) },
            caller.actor,
          ),
        );
        if (!d) return { siteId, deviceId, retired: true };
        const site = siteSummary(ctx, cat.site(siteId)!, false);
        return site.devices.find((x) => x.id === deviceId);
      },
    ),
  );

  app.route(
    route(
      'POST /api/sites/:siteId/devices/:deviceId/secret',
      doc(
        "Rotate a device's MQTT secret (admin): the new password, shown this once; the old one stops at once",
        {},
      ),
      async (req) => {
        const caller = ctx.auth.require(req, 'admin');
        const { siteId, deviceId } = parseWith(siteDeviceParams, req.params);
        return { password: checked(() => cat.rotateSecret(siteId, deviceId, caller.actor)) };
      },
    ),
  );

  app.route(
    route(
      'GET /api/changes',
      {
        schema: {
          tags: ['admin'],
          summary:
            'Change records (who, when, old and new value, effective time) with their log index and leaf hash',
        },
      },
      async (req, reply) => {
        const caller = ctx.auth.requireRead(req);
        const q = parseWith(changesFilter, req.query);
        if (q.siteId !== undefined) mustSee(caller, q.siteId);
        const page = pageOf(q);
        const list = ctx.changes.list({
          ...(q.siteId !== undefined ? { siteId: q.siteId } : {}),
          ...(caller?.sites ? { sites: caller.sites } : {}),
          ...(q.from !== undefined ? { from: q.from } : {}),
          ...(q.to !== undefined ? { to: q.to } : {}),
          page,
        });
        // Accounts and tokens are the admins' to see; a site's changes are its people's.
        return sendPage(
          req,
          reply,
          list,
          page,
          (c) => [Date.parse(c.effectiveAt), c.id],
          (c) => (c.siteId === null ? caller?.role === 'admin' : maySee(caller, c.siteId)),
        );
      },
    ),
  );
};
