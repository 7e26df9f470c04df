import type { FastifyPluginAsync } from 'fastify';
import { idParams } from '../../../../shared/src/api/requests.ts';
import { stopWorkBody, stopWorkLiftBody } from '../../../../shared/src/api/violations.ts';
import { formatDay, localDay } from '../../../../shared/src/time.ts';
import type { SiteConfig } from '../../config/schema.ts';
import { lawIdOf, type Parties } from '../../enforcement/dto.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { parseWith } from '../query.ts';
import { route } from '../routes.ts';
import { enforcedSite, OFFICER_ROLES, requireOneOf } from './violations.ts';

/** The parties on file of a site, as an order is served on them. */
const partiesOf = (site: Pick<SiteConfig, 'landowner' | 'developer' | 'address'>): Parties => ({
  ...(site.landowner ? { landowner: site.landowner } : {}),
  ...(site.developer ? { developer: site.developer } : {}),
  ...(site.address ? { siteAddress: site.address } : {}),
});

/** What the stop-work routes use. */
export type StopWorkServices = Pick<ApiContext, 'auth' | 'catalogue' | 'enforcement'>;

/**
 * Stop-work orders under the law of the site (town law 001, Enforcement, B: "in effect until the Town
 * confirms that the land development activity is in compliance"; town law 000, Section 5.030 A 7: "order
 * all further work stopped on any wastewater treatment system which is being constructed or installed in
 * violation"): issued by the officer, one in effect per site; lifting is refused while a notice of
 * violation the order names is not approved, unless the officer overrides (recorded). Served as notices
 * are: by e-mail on the parties on file when issued (its lifting told the same way), through the
 * notification outbox, its first delivery to a party its service; by mail or in person as the officer
 * records (`violationService.ts`). Its document: `stopWorkDocument.ts`.
 */
export const stopWorkPlugin: FastifyPluginAsync<StopWorkServices> = async (app, ctx) => {
  const e = ctx.enforcement.violations;

  app.route(
    route(
      'POST /api/sites/:id/stop-work',
      {
        schema: {
          tags: ['violations'],
          summary: 'Issue a stop-work order at a site, under its law (the officer); one in effect per site',
          security: [{ bearer: [] }],
        },
      },
      async (req, reply) => {
        const caller = requireOneOf(ctx, req, OFFICER_ROLES, 'issue a stop-work order');
        const { id } = parseWith(idParams, req.params);
        const b = parseWith(stopWorkBody, req.body);
        const site = enforcedSite(ctx, caller, id);
        if (b.violationId !== undefined) {
          const v = e.get(b.violationId);
          if (!v || v.siteId !== site.id)
            throw new ApiError('BAD_REQUEST', `The notice of violation named is not one of ${site.name}.`);
        }
        const order = e.stopWork(
          site.id,
          {
            reason: b.reason,
            violationIds: b.violationId ? [b.violationId] : [],
            by: caller.actor,
            law: lawIdOf(site),
            parties: partiesOf(site),
          },
          (inEffect) => {
            if (inEffect)
              throw new ApiError(
                'STOP_WORK_IN_EFFECT',
                `A stop-work order is already in effect at ${site.name}, since ${inEffect.since.slice(0, 10)}: lift it before issuing another.`,
              );
          },
        );
        reply.code(201);
        return order;
      },
    ),
  );

  app.route(
    route(
      'POST /api/sites/:id/stop-work/lift',
      {
        schema: {
          tags: ['violations'],
          summary:
            'Lift the stop-work order in effect (the officer); refused while a notice it names is not approved, unless overridden',
          security: [{ bearer: [] }],
        },
      },
      async (req) => {
        const caller = requireOneOf(ctx, req, OFFICER_ROLES, 'lift a stop-work order');
        const { id } = parseWith(idParams, req.params);
        const b = parseWith(stopWorkLiftBody, req.body);
        const site = enforcedSite(ctx, caller, id);
        const override = b.override === true;
        const lifting = { note: b.note, override, by: caller.actor, parties: partiesOf(site) };
        return e.lift(site.id, lifting, (inEffect) => {
          if (!inEffect)
            throw new ApiError('NO_STOP_WORK', `No stop-work order is in effect at ${site.name}.`);
          if (override) return;
          const open = inEffect.violationIds
            .map((v) => e.get(v))
            .filter((v) => v !== undefined && v.status !== 'approved');
          if (open.length > 0)
            throw new ApiError(
              'NOTICES_OPEN',
              `The order stays in effect: the correction of ${open
                .map(
                  (v) =>
                    `the notice of violation of ${formatDay(localDay(Date.parse(v!.issuedAt), site.timezone ?? 'UTC'))} (${v!.nature.slice(0, 80)})`,
                )
                .join(', ')} is not approved yet. Approve it first, or lift the order with an override.`,
            );
        });
      },
    ),
  );

  app.route(
    route(
      'GET /api/sites/:id/stop-work',
      {
        schema: {
          tags: ['violations'],
          summary: "A site's stop-work orders, in effect and lifted",
        },
      },
      async (req) => {
        const caller = ctx.auth.requireRead(req);
        const { id } = parseWith(idParams, req.params);
        enforcedSite(ctx, caller, id);
        return e.orders({ siteId: id });
      },
    ),
  );
};
