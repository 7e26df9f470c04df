import { z } from 'zod';
import { formatIssuePath } from '../config/load.ts';
import { ApiError } from './errors.ts';

const UNITS: Record<string, [string, string]> = {
  string: ['character', 'characters'],
  array: ['item', 'items'],
  set: ['item', 'items'],
  object: ['setting', 'settings'],
};

/** A bound passed, in words ("at most 200 characters: shorten it"); zod's own sentence otherwise. */
function said(i: z.core.$ZodIssue): string {
  if (i.code !== 'too_big' || typeof i.maximum !== 'number') return i.message;
  const unit = UNITS[i.origin];
  if (!unit) return i.message;
  return `at most ${i.maximum.toLocaleString('en-US')} ${unit[i.maximum === 1 ? 0 : 1]}: ${i.origin === 'string' ? 'shorten it' : 'send fewer'}`;
}

/** Parses a query or body with zod; every problem is reported with its path. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const r = schema.safeParse(value ?? {});
  if (!r.success)
    throw new ApiError(
      'BAD_REQUEST',
      r.error.issues.map((i) => `${formatIssuePath(i.path)}: ${said(i)}`).join('; '),
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
