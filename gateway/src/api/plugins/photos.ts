import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { PHOTO_MAX_BYTES, PHOTO_TYPES, photoUploadQuery } from '../../../../shared/src/api/findings.ts';
import { photoParams } from '../../../../shared/src/api/requests.ts';
import type { PhotoType } from '../../store/photos.ts';
import { type Caller, mustSee } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { accountOf, maySeePhoto } from '../photoAccess.ts';
import { PhotoIntake, PhotoRefused, tooLarge } from '../photoUpload.ts';
import { parseWith } from '../query.ts';
import { route } from '../routes.ts';

const MAX_MB = PHOTO_MAX_BYTES / 1024 / 1024;

/** What the photo routes use. */
export type PhotosServices = Pick<ApiContext, 'auth' | 'catalogue' | 'config' | 'metrics' | 'now' | 'photos'>;

/**
 * Photos of inspections and correction reports: POST /api/photos?siteId=… stores the bytes under their
 * SHA-256 (the same photo again is the same answer), charged to the site and to the caller's account
 * (`photoUpload.ts`: quotas, free space, a few at a time, streamed); GET /api/photos/{sha256} serves
 * them to the people who may see a site whose records cite the photo, and to the person who stored it
 * until one does (`photoAccess.ts`).
 */
export const photosPlugin: FastifyPluginAsync<PhotosServices> = async (app, ctx) => {
  const refused = ctx.metrics.counter(
    'gateway_photos_refused_total',
    'Photos refused, by reason (type, mismatch, too_large, empty, quota_site, quota_account, no_space, busy, aborted)',
  );
  const stored = ctx.metrics.counter('gateway_photos_stored_total', 'Photos stored (new ones only)');
  const intake = new PhotoIntake({
    photos: ctx.config.photos,
    dataDir: ctx.config.dataDir,
    minFreeBytes: ctx.config.storage.minFreeMb * 1024 * 1024,
    store: ctx.photos,
    now: ctx.now,
    metrics: ctx.metrics,
  });
  const refuse = (e: PhotoRefused): never => {
    refused.inc({ reason: e.reason });
    throw e;
  };

  // Within this plugin only: no body is parsed; the upload's handler reads it as it arrives.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));

  /** Someone who may record an inspection at some site (an owner or contractor of a site, or above). */
  const uploader = (req: FastifyRequest): Caller => {
    const caller = ctx.auth.require(req, 'inspector');
    if (caller.sites !== undefined && caller.sites.length === 0)
      throw new ApiError('FORBIDDEN', 'this needs a site of your own to inspect; you have none');
    return caller;
  };

  app.route(
    route(
      'POST /api/photos',
      {
        // Who is asking is checked before the body is read.
        onRequest: async (req) => {
          uploader(req);
        },
        schema: {
          tags: ['inspections'],
          summary: `Store a photo for an inspection's findings or a correction report at the site named (the body is the image: ${PHOTO_TYPES.join(', ')}, at most ${MAX_MB} MB); answered by its SHA-256, the same for the same photo. Charged to the site's and the caller's photo quotas; 503 with Retry-After while the gateway receives as many as it can at once`,
          security: [{ bearer: [] }],
        },
      },
      async (req) => {
        const caller = uploader(req);
        const { siteId } = parseWith(photoUploadQuery, req.query);
        mustSee(caller, siteId);
        const site = ctx.catalogue.site(siteId);
        if (!site) throw new ApiError('NOT_FOUND', `no site ${siteId}`);
        const declared = String(req.headers['content-type'] ?? '')
          .split(';')[0]!
          .trim()
          .toLowerCase();
        if (!(PHOTO_TYPES as readonly string[]).includes(declared))
          refuse(
            new PhotoRefused(
              'type',
              'PHOTO_TYPE',
              'Only JPEG, PNG and WebP photos can be kept: send the photo as one of these images.',
            ),
          );
        const length = req.headers['content-length'];
        const size = length === undefined ? undefined : Number(length);
        if (size !== undefined && size > PHOTO_MAX_BYTES) refuse(tooLarge());
        if (size === 0)
          refuse(
            new PhotoRefused('empty', 'BAD_REQUEST', 'Send the photo itself as the body of the request.'),
          );
        try {
          const { photo, created } = await intake.receive(req.raw, {
            siteId,
            siteName: site.name ?? site.id,
            account: accountOf(caller),
            by: caller.actor,
            declared: size,
            type: declared as PhotoType,
          });
          if (created) stored.inc();
          return photo;
        } catch (e) {
          if (e instanceof PhotoRefused) refuse(e);
          throw e;
        }
      },
    ),
  );

  app.route(
    route(
      'GET /api/photos/:sha256',
      {
        schema: {
          tags: ['inspections'],
          summary:
            'A photo, to the people who may see a site whose inspection cites it (and to the person who stored it until then)',
          media: {
            description: 'The photo',
            content: Object.fromEntries(PHOTO_TYPES.map((t) => [t, 'text' as const])),
          },
        },
      },
      async (req, reply) => {
        const caller = ctx.auth.requireRead(req);
        const { sha256 } = parseWith(photoParams, req.params);
        const photo = ctx.photos.get(sha256);
        const own =
          caller !== undefined && photo !== undefined && ctx.photos.uploadedBy(sha256, accountOf(caller));
        if (!photo || !maySeePhoto(caller, own, ctx.photos.citingSites(sha256)))
          throw new ApiError('NOT_FOUND', 'no such photo');
        const bytes = await ctx.photos.read(sha256);
        reply
          .type(photo.type)
          .header('cache-control', 'private, max-age=31536000, immutable')
          .header('x-content-type-options', 'nosniff');
        return reply.send(bytes);
      },
    ),
  );
};
