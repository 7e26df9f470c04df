/**
 * The catalogue's refusals (the API answers each with its code) and its parse of a body through the
 * configuration's schema, each issue as "field: words".
 */
import type { z } from 'zod';
import { formatIssuePath } from '../config/load.ts';

export class CatalogueError extends Error {
  constructor(
    readonly code: 'BAD_REQUEST' | 'NOT_FOUND' | 'CONFLICT' | 'PRACTICE_KEPT' | 'NO_MQTT_SECRET',
    message: string,
  ) {
    super(message);
  }
}

/** The device's MQTT credentials, shown once. */
export interface Credentials {
  username: string;
  clientId: string;
  password: string;
}

export function parse<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const r = schema.safeParse(value);
  if (!r.success)
    throw new CatalogueError(
      'BAD_REQUEST',
      r.error.issues.map((i) => `${formatIssuePath(i.path)}: ${i.message}`).join('; '),
    );
  return r.data;
}
