import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { UserRole } from '../../../../shared/src/admin.ts';
import { ENFORCEMENT_LAWS, lawOfNotice } from '../../../../shared/src/api/enforcementLaws.ts';
import { isClosed } from '../../../../shared/src/api/enforcementWords.ts';
import { idParams, violationsPageQuery } from '../../../../shared/src/api/requests.ts';
import { endOfDay } from '../../../../shared/src/api/serviceWords.ts';
import {
  appealBody,
  approveBody,
  correctedBody,
  type ViolationDto,
  violationBody,
} from '../../../../shared/src/api/violations.ts';
import { meets } from '../../../../shared/src/days.ts';
import type { SiteConfig } from '../../config/schema.ts';
import { type ApprovalDetail, lawIdOf } from '../../enforcement/dto.ts';
import type { ViolationStep } from '../../enforcement/violations.ts';
import { approvalDetail } from '../approval.ts';
import { type Caller, maySee, mustSee } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { pageOf, sendPage } from '../paging.ts';
import { uncitable } from '../photoAccess.ts';
import { parseWith } from '../query.ts';
import { route } from '../routes.ts';

/** What the notices-of-violation routes use. */
export type ViolationsServices = Pick<
  ApiContext,
  'auth' | 'catalogue' | 'compliance' | 'enforcement' | 'now' | 'photos'
>;

/**
 * The officer's roles (town law 001: the Stormwater Management Officer; town law 000: the Enforcement
 * Officer, the same person), and those who answer for a site.
 */
export const OFFICER_ROLES: readonly UserRole[] = ['inspector', 'admin'];
export const SITE_PARTY_ROLES: readonly UserRole[] = ['owner', 'contractor', 'admin'];

/** The caller, if their role is one of `roles`; a refusal in words otherwise. */
export function requireOneOf(
  ctx: Pick<ApiContext, 'auth'>,
  req: FastifyRequest,
  roles: readonly UserRole[],
  what: string,
): Caller {
  const c = ctx.auth.require(req, 'viewer');
  if (!roles.includes(c.role)) throw new ApiError('FORBIDDEN', `Your role may not ${what}.`);
  return c;
}

/** The site, when the caller may see it: a site of any kind, each enforced under its own law. */
export function enforcedSite(
  ctx: Pick<ApiContext, 'catalogue'>,
  caller: Caller | undefined,
  siteId: string,
): SiteConfig {
  mustSee(caller, siteId);
  const site = ctx.catalogue.site(siteId);
  if (!site) throw new ApiError('NOT_FOUND', `no site ${siteId}`);
  return site;
}

/**
 * Notices of violation under the law of the site (`ENFORCEMENT_LAWS`, by the site's kind: a construction
 * site's under town law 001, Enforcement, A; a wastewater system's orders to correct or to cease use under
 * town law 000, Section 5.100 B): issued by the officer (inspector or admin) to the parties on file,
 * served on them (`violationService.ts`), appealed within the law's days of service by the site's owner or
 * contractor, corrected by them, approved by the officer, which closes the notice and its remedy duty.
 */
/** How far ahead a notice's remedial measures may be due: two years. */
const REMEDY_MAX_AHEAD_MS = 731 * 86_400_000;

export const violationsPlugin: FastifyPluginAsync<ViolationsServices> = async (app, ctx) => {
  const e = ctx.enforcement.violations;
  const tzOf = (siteId: string) => ctx.catalogue.site(siteId)?.timezone ?? 'UTC';

  app.route(
    route(
      'POST /api/violations',
      {
        schema: {
          tags: ['violations'],
          summary:
            "Issue a notice of violation (an order, under a wastewater system's law) to the site's parties on file; opens its remedy duty",
          security: [{ bearer: [] }],
        },
      },
      async (req, reply) => {
        const caller = requireOneOf(ctx, req, OFFICER_ROLES, 'issue a notice of violation');
        const b = parseWith(violationBody, req.body);
        const site = enforcedSite(ctx, caller, b.siteId);
        if (!site.landowner && !site.developer) throw new ApiError('NO_PARTIES');
        const lawId = lawIdOf(site);
        const law = ENFORCEMENT_LAWS[lawId];
        const orderKind = b.orderKind ?? law.orderKinds[0].id;
        if (!law.orderKinds.some((k) => k.id === orderKind))
          throw new ApiError(
            'BAD_REQUEST',
            `Under the ${law.title} the officer may order: ${law.orderKinds.map((k) => k.label.toLowerCase()).join(' or ')}.`,
            undefined,
            'orderKind',
          );
        if (b.inspectionId !== undefined) {
          const insp = ctx.compliance.listInspections({}).find((i) => i.id === b.inspectionId);
          if (!insp) throw new ApiError('BAD_REQUEST', 'The inspection named is not on record.');
          if (insp.siteId !== site.id)
            throw new ApiError(
              'BAD_REQUEST',
              `The inspection named is of another site, not of ${site.name}.`,
            );
        }
        const remedyDueAt = Date.parse(b.remedyDueAt);
        if (remedyDueAt <= ctx.now())
          throw new ApiError(
            'BAD_REQUEST',
            'The remedial measures must be due after now: give a later date.',
          );
        // As far ahead as a schedule of remedial measures goes (milestones: a year; inspections: the past).
        const latest = ctx.now() + REMEDY_MAX_AHEAD_MS;
        if (remedyDueAt > latest)
          throw new ApiError(
            'BAD_REQUEST',
            `The remedial measures can be due at most two years ahead, by ${new Date(latest).toISOString().slice(0, 10)}: give an earlier date.`,
            undefined,
            'remedyDueAt',
          );
        const issued = e.issue(
          {
            siteId: site.id,
            law: lawId,
            orderKind,
            inspectionId: b.inspectionId,
            nature: b.nature,
            remedy: b.remedy,
            remedyDueAt,
            penalties: b.penalties ?? law.penalties,
            parties: { landowner: site.landowner, developer: site.developer, siteAddress: site.address },
          },
          caller.actor,
        );
        reply.code(201);
        return issued;
      },
    ),
  );

  app.route(
    route(
      'GET /api/violations',
      {
        schema: {
          tags: ['violations'],
          summary: 'Notices of violation, of one site or every site the caller sees, by status',
        },
      },
      async (req, reply) => {
        const caller = ctx.auth.requireRead(req);
        const q = parseWith(violationsPageQuery, req.query);
        if (q.siteId !== undefined) {
          mustSee(caller, q.siteId);
          if (!ctx.catalogue.site(q.siteId)) throw new ApiError('NOT_FOUND', `no site ${q.siteId}`);
        }
        const page = pageOf(q);
        const rows = e.list({
          siteId: q.siteId,
          ...(caller?.sites === undefined ? {} : { siteIds: caller.sites }),
          status: q.status,
          page,
        });
        return sendPage(req, reply, rows, page, (v) => [Date.parse(v.issuedAt), v.id]);
      },
    ),
  );

  const visible = (id: string, caller: Caller | undefined): ViolationDto => {
    const v = e.get(id);
    if (!v || !maySee(caller, v.siteId)) throw new ApiError('NOT_FOUND', `no notice of violation ${id}`);
    return v;
  };

  app.route(
    route(
      'GET /api/violations/:id',
      {
        schema: {
          tags: ['violations'],
          summary: 'A notice of violation with its appeal, corrections and approval',
        },
      },
      async (req) => {
        const caller = ctx.auth.requireRead(req);
        return visible(parseWith(idParams, req.params).id, caller);
      },
    ),
  );

  /**
   * A step of a notice: checked inside the transaction against the notice as stored; `rests` answers what
   * the step rests on (an approval: its re-inspection), kept with it.
   */
  const step = (
    req: FastifyRequest,
    kind: ViolationStep,
    roles: readonly UserRole[],
    what: string,
    text: string,
    photos: readonly string[],
    rests?: (v: ViolationDto) => ApprovalDetail | undefined,
  ): ViolationDto => {
    const caller = requireOneOf(ctx, req, roles, what);
    const { id } = parseWith(idParams, req.params);
    visible(id, caller);
    const done = e.step(id, kind, { text, photos, by: caller.actor }, (v, now) => {
      if (isClosed(v.status))
        throw new ApiError(
          'VIOLATION_CLOSED',
          v.status === 'reversed' ? 'This notice was reversed on appeal: it is closed.' : undefined,
        );
      if (rests) return rests(v);
      if (kind !== 'appealed') return;
      if (v.events.some((x) => x.kind === 'appealed')) throw new ApiError('ALREADY_APPEALED');
      // The window runs from service: an appeal before any service is within it.
      if (v.appealBy !== undefined && !meets(now, Date.parse(v.appealBy))) {
        const law = lawOfNotice(v);
        throw new ApiError(
          'APPEAL_CLOSED',
          `The ${law.appealDays} days to appeal to ${law.appealTo} ended at ${endOfDay(v.appealBy, tzOf(v.siteId))}: the appeal cannot be recorded.`,
        );
      }
    });
    if (!done) throw new ApiError('NOT_FOUND', `no notice of violation ${id}`);
    return done;
  };

  const stepSchema = (summary: string) => ({
    schema: { tags: ['violations'], summary, security: [{ bearer: [] }] },
  });

  app.route(
    route(
      'POST /api/violations/:id/appeal',
      stepSchema(
        "Appeal a notice of violation, within its law's days of its service (the site's owner or contractor)",
      ),
      async (req) => {
        const b = parseWith(appealBody, req.body);
        return step(req, 'appealed', SITE_PARTY_ROLES, 'appeal a notice of violation', b.reason, []);
      },
    ),
  );

  app.route(
    route(
      'POST /api/violations/:id/corrected',
      stepSchema('Report the remedial measures done, with photos (the site’s owner or contractor)'),
      async (req) => {
        const b = parseWith(correctedBody, req.body);
        const caller = requireOneOf(ctx, req, SITE_PARTY_ROLES, 'report a correction');
        // A photo the caller may not cite is refused in the same words as one not stored.
        const missing = uncitable(ctx.photos, caller, b.photos);
        if (missing.length > 0)
          throw new ApiError(
            'UNKNOWN_PHOTO',
            `${missing.length === 1 ? 'A photo named here is' : `${missing.length} photos named here are`} not stored: upload ${missing.length === 1 ? 'it' : 'them'} first.`,
          );
        return step(req, 'corrected', SITE_PARTY_ROLES, 'report a correction', b.note, b.photos);
      },
    ),
  );

  app.route(
    route(
      'POST /api/violations/:id/approve',
      stepSchema(
        'Approve the reported correction on its re-inspection: closes the notice and its remedy duty (the officer)',
      ),
      async (req) => {
        const b = parseWith(approveBody, req.body);
        return step(req, 'approved', OFFICER_ROLES, 'approve a correction', b.note?.trim() ?? '', [], (v) =>
          approvalDetail(ctx, v, b.inspectionId, tzOf(v.siteId)),
        );
      },
    ),
  );
};
