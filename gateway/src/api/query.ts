import { z } from 'zod';
import { MAX } from '../../../shared/src/bounds.ts';
import { formatIssuePath } from '../config/load.ts';
import { ApiError } from './errors.ts';

/** A time in a query string: ISO 8601 or epoch milliseconds. */
export const timeParam = z.union([
  z.coerce.number().int(),
  z.iso
    .datetime({ offset: true })
    .max(MAX.time)
    .transform((s) => Date.parse(s)),
]);

/** Parses a query or body with zod; every problem is reported with its path. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const r = schema.safeParse(value ?? {});
  if (!r.success)
    throw new ApiError(
      'BAD_REQUEST',
      r.error.issues.map((i) => `${formatIssuePath(i.path)}: ${i.message}`).join('; '),
    );
  return r.data;
}

/** JSON schema of a zod schema, for the OpenAPI document. */
export function openapi(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
}
