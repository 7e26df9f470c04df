import type { FastifyPluginAsync } from 'fastify';
import { lawOf } from '../../../../shared/src/api/enforcementLaws.ts';
import { isClosed } from '../../../../shared/src/api/enforcementWords.ts';
import { idParams } from '../../../../shared/src/api/requests.ts';
import { hearingBody, serviceBody } from '../../../../shared/src/api/violations.ts';
import { dateInWords, localDateOf } from '../../../../shared/src/days.ts';
import { localDay } from '../../../../shared/src/time.ts';
import { maySee } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { parseWith } from '../query.ts';
import { route } from '../routes.ts';
import { OFFICER_ROLES, requireOneOf } from './violations.ts';

/** What the service and hearing routes use. */
export type ViolationServiceServices = Pick<ApiContext, 'auth' | 'catalogue' | 'enforcement' | 'now'>;

/** A served time ahead of now by more than this is refused (a clock a minute off is not). */
const AHEAD_SLACK_MS = 60_000;

/**
 * Service and hearing (town law 001, Enforcement, A and C; town law 000, Sections 5.100 B and 5.010).
 * Every notice and order is served on the parties on file: the first e-mail delivery to a party is
 * recorded by the gateway itself (`main.ts`), a service by mail or in person by the officer here, with the
 * time it was made (not before the notice, not ahead of now). A notice's appeal window runs from its first
 * service. Under a law whose appeals a board hears (000: the Local Board of Health), the officer records
 * the hearing's date and outcome; a reversal closes the notice and its remedy duty.
 */
export const violationServicePlugin: FastifyPluginAsync<ViolationServiceServices> = async (app, ctx) => {
  const e = ctx.enforcement.violations;
  const tzOf = (siteId: string) => ctx.catalogue.site(siteId)?.timezone ?? 'UTC';

  /** The served time given, checked against the record's issue and now. */
  const servedTime = (iso: string, issuedAt: string, tz: string, what: string): number => {
    const at = Date.parse(iso);
    // Entered to the minute: a service in the minute the notice was issued is not before it.
    if (at < Math.floor(Date.parse(issuedAt) / 60_000) * 60_000)
      throw new ApiError(
        'BAD_REQUEST',
        `The service cannot be before the ${what} was issued (${dateInWords(localDateOf(Date.parse(issuedAt), tz))}): give a later time.`,
        undefined,
        'servedAt',
      );
    if (at > ctx.now() + AHEAD_SLACK_MS)
      throw new ApiError(
        'BAD_REQUEST',
        'The service cannot be in the future: give the time it was made.',
        undefined,
        'servedAt',
      );
    return at;
  };

  app.route(
    route(
      'POST /api/violations/:id/service',
      {
        schema: {
          tags: ['violations'],
          summary:
            'Record a service of a notice of violation by mail or in person (the officer); the appeal window runs from the first service',
          security: [{ bearer: [] }],
        },
      },
      async (req) => {
        const caller = requireOneOf(ctx, req, OFFICER_ROLES, 'record the service of a notice');
        const { id } = parseWith(idParams, req.params);
        const b = parseWith(serviceBody, req.body);
        const v = e.get(id);
        if (!v || !maySee(caller, v.siteId)) throw new ApiError('NOT_FOUND', `no notice of violation ${id}`);
        const servedAt = servedTime(b.servedAt, v.issuedAt, tzOf(v.siteId), 'notice');
        const done = e.serve(
          id,
          { method: b.method, party: b.party, servedAt, by: caller.actor, note: b.note },
          () => {},
        );
        if (!done) throw new ApiError('NOT_FOUND', `no notice of violation ${id}`);
        return done;
      },
    ),
  );

  app.route(
    route(
      'POST /api/violations/:id/hearing',
      {
        schema: {
          tags: ['violations'],
          summary:
            "Record the hearing of a notice's appeal, its date and outcome (the officer), where the law has the appeal heard",
          security: [{ bearer: [] }],
        },
      },
      async (req) => {
        const caller = requireOneOf(ctx, req, OFFICER_ROLES, 'record the hearing of an appeal');
        const { id } = parseWith(idParams, req.params);
        const b = parseWith(hearingBody, req.body);
        const found = e.get(id);
        if (!found || !maySee(caller, found.siteId))
          throw new ApiError('NOT_FOUND', `no notice of violation ${id}`);
        const law = lawOf(found.law);
        if (!law.appealHearing)
          throw new ApiError(
            'NO_HEARING',
            `Under the ${law.title} an appeal goes to ${law.appealTo}, with no hearing recorded here.`,
          );
        const tz = tzOf(found.siteId);
        if (b.heldOn > localDay(ctx.now(), tz))
          throw new ApiError(
            'BAD_REQUEST',
            'The hearing cannot be in the future: record it once held.',
            undefined,
            'heldOn',
          );
        const done = e.hear(
          id,
          { heldOn: b.heldOn, outcome: b.outcome, note: b.note, by: caller.actor },
          (v) => {
            if (isClosed(v.status) && v.status === 'approved') throw new ApiError('VIOLATION_CLOSED');
            if (!v.events.some((x) => x.kind === 'appealed')) throw new ApiError('NOT_APPEALED');
            if (v.events.some((x) => x.kind === 'heard')) throw new ApiError('ALREADY_HEARD');
            const appealed = v.events.find((x) => x.kind === 'appealed')!;
            const appealedOn = localDateOf(Date.parse(appealed.at), tz);
            if (b.heldOn < localDay(Date.parse(appealed.at), tz))
              throw new ApiError(
                'BAD_REQUEST',
                `The hearing cannot be before the appeal was filed (${dateInWords(appealedOn)}).`,
                undefined,
                'heldOn',
              );
          },
        );
        if (!done) throw new ApiError('NOT_FOUND', `no notice of violation ${id}`);
        return done;
      },
    ),
  );

  app.route(
    route(
      'POST /api/stop-work/:id/service',
      {
        schema: {
          tags: ['violations'],
          summary: 'Record a service of a stop-work order by mail or in person (the officer)',
          security: [{ bearer: [] }],
        },
      },
      async (req) => {
        const caller = requireOneOf(ctx, req, OFFICER_ROLES, 'record the service of an order');
        const { id } = parseWith(idParams, req.params);
        const b = parseWith(serviceBody, req.body);
        const o = e.order(id);
        if (!o || !maySee(caller, o.siteId)) throw new ApiError('NOT_FOUND', `no stop-work order ${id}`);
        const servedAt = servedTime(b.servedAt, o.since, tzOf(o.siteId), 'order');
        const done = e.serveOrder(
          id,
          { method: b.method, party: b.party, servedAt, by: caller.actor, note: b.note },
          () => {},
        );
        if (!done) throw new ApiError('NOT_FOUND', `no stop-work order ${id}`);
        return done;
      },
    ),
  );
};
