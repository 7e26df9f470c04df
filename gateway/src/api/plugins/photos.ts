import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  PHOTO_MAX_BYTES,
  PHOTO_TYPES,
  photoHashSchema,
  photoStoredSchema,
} from '../../../../shared/src/api/findings.ts';
import { type PhotoType, photoTypeOf } from '../../store/photos.ts';
import type { Caller } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { maySeePhoto } from '../photoAccess.ts';
import { openapi, parseWith } from '../query.ts';
import { answers } from '../responses.ts';

const photoParams = z.strictObject({ sha256: photoHashSchema });

/** Words for each type, as refusals name them. */
const TYPE_WORDS: Record<PhotoType, string> = {
  'image/jpeg': 'a JPEG photo',
  'image/png': 'a PNG image',
  'image/webp': 'a WebP image',
};
const MAX_MB = PHOTO_MAX_BYTES / 1024 / 1024;

/** What the photo routes use. */
export type PhotosServices = Pick<ApiContext, 'auth' | 'metrics' | 'now' | 'photos'>;

/**
 * Photos of inspections: POST /api/photos stores the bytes under their SHA-256 (the same photo again is
 * the same answer), GET /api/photos/{sha256} serves them to the people who may see a site whose records
 * cite the photo, and to the person who stored it until one does (`photoAccess.ts`).
 */
export const photosPlugin: FastifyPluginAsync<PhotosServices> = async (app, ctx) => {
  const refused = ctx.metrics.counter(
    'gateway_photos_refused_total',
    'Photos refused, by reason (type, mismatch, too_large, empty)',
  );
  const stored = ctx.metrics.counter('gateway_photos_stored_total', 'Photos stored (new ones only)');
  const refuse = (reason: string, e: ApiError): never => {
    refused.inc({ reason });
    throw e;
  };

  // Within this plugin only: any body is read as bytes, so that a type not accepted is refused in words.
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: PHOTO_MAX_BYTES }, (_req, body, done) =>
    done(null, body),
  );
  app.addHook('onError', async (_req, _reply, err) => {
    // Fastify refuses an oversized body before the handler runs; say what to do about it.
    if ((err as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      refused.inc({ reason: 'too_large' });
      err.message = `The photo is larger than ${MAX_MB} MB: send a smaller one (a lower resolution).`;
    }
  });

  /** Someone who may record an inspection at some site (an owner or contractor of a site, or above). */
  const uploader = (req: FastifyRequest): Caller => {
    const caller = ctx.auth.require(req, 'inspector');
    if (caller.sites !== undefined && caller.sites.length === 0)
      throw new ApiError('FORBIDDEN', 'this needs a site of your own to inspect; you have none');
    return caller;
  };

  app.post(
    '/api/photos',
    {
      bodyLimit: PHOTO_MAX_BYTES,
      // Who is asking is checked before the body is read.
      onRequest: async (req) => {
        uploader(req);
      },
      schema: {
        tags: ['inspections'],
        summary: `Store a photo for an inspection's findings (the body is the image: ${PHOTO_TYPES.join(', ')}, at most ${MAX_MB} MB); answered by its SHA-256, the same for the same photo`,
        response: answers({ 200: photoStoredSchema }),
        security: [{ bearer: [] }],
      },
    },
    async (req) => {
      const caller = uploader(req);
      const declared = String(req.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim()
        .toLowerCase();
      if (!(PHOTO_TYPES as readonly string[]).includes(declared))
        refuse(
          'type',
          new ApiError(
            'PHOTO_TYPE',
            'Only JPEG, PNG and WebP photos can be kept: send the photo as one of these images.',
          ),
        );
      const bytes = req.body;
      if (!Buffer.isBuffer(bytes) || bytes.length === 0)
        refuse('empty', new ApiError('BAD_REQUEST', 'Send the photo itself as the body of the request.'));
      const type = declared as PhotoType;
      const actual = photoTypeOf(bytes as Buffer);
      if (actual !== type)
        refuse(
          'mismatch',
          new ApiError(
            'PHOTO_MISMATCH',
            actual
              ? `The file is declared as ${TYPE_WORDS[type]} but it is ${TYPE_WORDS[actual]}: send it again as what it is.`
              : `The file is declared as ${TYPE_WORDS[type]} but it is not an image: send a JPEG, PNG or WebP photo.`,
          ),
        );
      const { photo, created } = ctx.photos.store(bytes as Buffer, type, caller.actor, ctx.now());
      if (created) stored.inc();
      return photo;
    },
  );

  app.get(
    '/api/photos/:sha256',
    {
      schema: {
        tags: ['inspections'],
        summary:
          'A photo, to the people who may see a site whose inspection cites it (and to the person who stored it until then)',
        params: openapi(photoParams),
        response: answers({
          200: {
            description: 'The photo',
            content: Object.fromEntries(PHOTO_TYPES.map((t) => [t, 'text' as const])),
          },
        }),
      },
    },
    async (req, reply) => {
      const caller = ctx.auth.requireRead(req);
      const { sha256 } = parseWith(photoParams, req.params);
      const photo = ctx.photos.get(sha256);
      if (!photo || !maySeePhoto(caller, photo, ctx.photos.citingSites(sha256)))
        throw new ApiError('NOT_FOUND', 'no such photo');
      const bytes = await ctx.photos.read(sha256);
      reply
        .type(photo.type)
        .header('cache-control', 'private, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff');
      return reply.send(bytes);
    },
  );
};
