/** What an import names: the device the file is from and how to read its times (the API's query string). */
import { z } from 'zod';
import { MAX } from '../../../shared/src/bounds.ts';

export const importQuery = z.strictObject({
  siteId: z.string().min(1).max(MAX.id),
  deviceId: z.string().min(1).max(MAX.id),
  name: z.string().max(200).default('upload'),
  format: z.enum(['hobo-csv', 'toa5']).optional(),
  utcOffsetMinutes: z.coerce.number().int().min(-840).max(840).optional(),
  timeZone: z.string().min(1).max(64).optional(),
  skipBefore: z.iso.datetime({ offset: true }).max(MAX.time).optional(),
});
export type ImportQuery = z.infer<typeof importQuery>;
