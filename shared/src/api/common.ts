/** Shapes every part of the API uses: the error body and the small acknowledgements of writes. */
import { z } from 'zod';
import { MAX } from '../bounds.ts';

/** ISO 8601 UTC, as every time leaves the gateway. */
export const isoTime = z.iso.datetime({ offset: true }).max(MAX.time);

/**
 * Every refusal and failure: a stable code (the API's error catalogue) and a sentence; `field`, when a
 * refusal is about one part of the body, is its path (`findings[2].practice`).
 */
export const errorBodySchema = z.object({
  error: z.string(),
  message: z.string(),
  field: z.string().optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** POST /api/auth/logout. */
export const okSchema = z.object({ ok: z.literal(true) });

/** POST /api/auth/password. */
export const passwordChangedSchema = z.object({ changed: z.literal(true), otherSessionsEnded: z.number() });

/** POST /api/setup: the first admin. */
export const setupDoneSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  role: z.string(),
});

/** DELETE /api/tokens/{id}. */
export const tokenRevokedSchema = z.object({ revoked: z.string() });

/** POST /api/notifications/retry: how many failed deliveries were queued again. */
export const retriedSchema = z.object({ retried: z.number() });
