import type { FastifyPluginAsync } from 'fastify';
import { idParams } from '../../../../shared/src/api/requests.ts';
import {
  recordTime,
  SITE_RECORD_BY,
  SITE_RECORD_LABELS,
  type SiteRecordBody,
  type SiteRecordDto,
  siteRecordBody,
} from '../../../../shared/src/api/siteRecords.ts';
import { formatLong } from '../../../../shared/src/time.ts';
import { siteRecordStanding } from '../../enforcement/siteRecordStanding.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { parseWith } from '../query.ts';
import { route } from '../routes.ts';
import { enforcedSite, OFFICER_ROLES, requireOneOf, SITE_PARTY_ROLES } from './violations.ts';

/** What the records' routes use. */
export type SiteRecordsServices = Pick<ApiContext, 'auth' | 'catalogue' | 'config' | 'enforcement' | 'now'>;

/** The site, when the caller may see it and it is a construction site: law 001's records are its own. */
function constructionSite(
  ctx: Pick<ApiContext, 'catalogue'>,
  caller: Parameters<typeof enforcedSite>[1],
  siteId: string,
  what: string,
) {
  const site = enforcedSite(ctx, caller, siteId);
  if (site.kind !== 'construction')
    throw new ApiError(
      'NOT_CONSTRUCTION',
      `${site.name} is not a construction site: ${what} are for construction sites only.`,
    );
  return site;
}

/** The earliest time a record may speak of, and how far ahead of now a record may be dated at most. */
const EARLIEST = Date.UTC(2000, 0, 1);
const CLOCK_SLACK_MS = 5 * 60_000;
const MAX_AHEAD_MS = 3 * 366 * 86_400_000;

/**
 * Refuses a record that does not fit the site's records as stored (run inside the transaction): a
 * signature, a SWPPP, an acceptance or an inspection dated in the future; a one-year inspection with no
 * final acceptance before it; a second acceptance while the first one's one-year inspection is not made.
 */
function checkFits(b: SiteRecordBody, existing: readonly SiteRecordDto[], now: number, tz: string): void {
  const at = Date.parse(recordTime(b));
  const what = SITE_RECORD_LABELS[b.kind];
  if (at < EARLIEST) throw new ApiError('BAD_REQUEST', `${what}: a date before 2000 cannot be right.`);
  if (b.kind === 'expected-milestone') {
    if (at > now + MAX_AHEAD_MS)
      throw new ApiError('BAD_REQUEST', 'An expected milestone can be at most three years ahead.');
    return;
  }
  if (at > now + CLOCK_SLACK_MS)
    throw new ApiError(
      'BAD_REQUEST',
      `${what} cannot be dated in the future (${formatLong(at, tz)}): record it once it has happened.`,
    );
  const acceptances = existing.filter((r) => r.kind === 'final-acceptance');
  const last = acceptances[acceptances.length - 1];
  const inspectedAfter = (acc: SiteRecordDto) =>
    existing.some((r) => r.kind === 'one-year-inspection' && r.at >= acc.at);
  if (b.kind === 'one-year-inspection') {
    if (!last || Date.parse(last.at) > at)
      throw new ApiError(
        'RECORD_OUT_OF_ORDER',
        'A one-year inspection follows the final acceptance of the site: record the acceptance first, dated before the inspection.',
      );
  }
  if (b.kind === 'final-stabilization' || b.kind === 'stabilization-confirmation')
    checkStabilization(b, existing, at, tz);
  if (b.kind === 'final-acceptance' && last && !inspectedAfter(last))
    throw new ApiError(
      'RECORD_OUT_OF_ORDER',
      `The site was accepted on ${formatLong(Date.parse(last.at), tz)} and its one-year inspection is not recorded yet: record that inspection first.`,
    );
}

/**
 * A final stabilization is recorded once; the officer's confirmation names it, is dated at or after it and
 * is made once.
 */
function checkStabilization(b: SiteRecordBody, existing: readonly SiteRecordDto[], at: number, tz: string) {
  const stabilized = existing.find((r) => r.kind === 'final-stabilization');
  if (b.kind === 'final-stabilization' && stabilized)
    throw new ApiError(
      'RECORD_OUT_OF_ORDER',
      `The final stabilization of this site is already recorded (${formatLong(Date.parse(stabilized.at), tz)}): it is recorded once.`,
    );
  if (b.kind !== 'stabilization-confirmation') return;
  if (!stabilized || stabilized.id !== b.confirms)
    throw new ApiError(
      'RECORD_OUT_OF_ORDER',
      "There is no final stabilization on this site's records to confirm: the site's side records it first.",
    );
  if (Date.parse(stabilized.at) > at)
    throw new ApiError(
      'RECORD_OUT_OF_ORDER',
      `The final stabilization is dated ${formatLong(Date.parse(stabilized.at), tz)}: it cannot be confirmed before that.`,
    );
  const confirmed = existing.find(
    (r) => r.body.kind === 'stabilization-confirmation' && r.body.confirms === b.confirms,
  );
  if (confirmed)
    throw new ApiError(
      'RECORD_OUT_OF_ORDER',
      `The final stabilization was confirmed already, on ${formatLong(Date.parse(confirmed.at), tz)}.`,
    );
}

/**
 * The developer's records of a construction site (town law 001): contractors' certifications, the SWPPP
 * kept on site, the expected milestones and the final stabilization, recorded by the site's side (owner,
 * contractor) or an inspector or admin; the final acceptance, the one-year inspection and the confirmation
 * of the final stabilization by the officer (inspector, admin). Where they stand now: `/records/standing`.
 */
export const siteRecordsPlugin: FastifyPluginAsync<SiteRecordsServices> = async (app, ctx) => {
  const records = ctx.enforcement.records;

  app.route(
    route(
      'POST /api/sites/:id/records',
      {
        schema: {
          tags: ['records'],
          summary:
            "Record a contractor's certification, the SWPPP on site or an expected milestone (the site's side), or the final acceptance or one-year inspection (the officer)",
          security: [{ bearer: [] }],
        },
      },
      async (req, reply) => {
        const { id } = parseWith(idParams, req.params);
        const b = parseWith(siteRecordBody, req.body);
        const officers = SITE_RECORD_BY[b.kind] === 'officer';
        const caller = requireOneOf(
          ctx,
          req,
          officers ? OFFICER_ROLES : [...SITE_PARTY_ROLES, ...OFFICER_ROLES],
          `record ${SITE_RECORD_LABELS[b.kind].toLowerCase()}`,
        );
        const site = constructionSite(ctx, caller, id, "the developer's records");
        const now = ctx.now();
        const dto = records.record(site.id, b, caller.actor, (existing) =>
          checkFits(b, existing, now, site.timezone ?? ctx.config.timezone),
        );
        reply.code(201);
        return dto;
      },
    ),
  );

  app.route(
    route(
      'GET /api/sites/:id/records',
      {
        schema: {
          tags: ['records'],
          summary:
            "A construction site's records (certifications, SWPPP, milestones, acceptance), in the order recorded",
        },
      },
      async (req) => {
        const caller = ctx.auth.requireRead(req);
        const { id } = parseWith(idParams, req.params);
        const site = constructionSite(ctx, caller, id, "the developer's records");
        return records.ofSite(site.id);
      },
    ),
  );

  app.route(
    route(
      'GET /api/sites/:id/records/standing',
      {
        schema: {
          tags: ['records'],
          summary:
            "Where a construction site's records stand now: expected milestones and their notices (flagged when passed with none), the one-year inspection's due time, the final stabilization",
        },
      },
      async (req) => {
        const caller = ctx.auth.requireRead(req);
        const { id } = parseWith(idParams, req.params);
        const site = constructionSite(ctx, caller, id, "the developer's records");
        const notices = ctx.enforcement.notices.list({ siteId: site.id });
        return siteRecordStanding(
          records.ofSite(site.id),
          notices,
          ctx.now(),
          site.timezone ?? ctx.config.timezone,
        );
      },
    ),
  );
};
