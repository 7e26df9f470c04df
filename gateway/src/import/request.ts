/** What an import names: the device the file is from and how to read its times (the API's query string). */
import { z } from 'zod';

export const importQuery = z.strictObject({
  siteId: z.string().min(1),
  deviceId: z.string().min(1),
  name: z.string().max(200).default('upload'),
  format: z.enum(['hobo-csv', 'toa5']).optional(),
  utcOffsetMinutes: z.coerce.number().int().min(-840).max(840).optional(),
  timeZone: z.string().min(1).optional(),
  skipBefore: z.iso.datetime({ offset: true }).optional(),
});
export type ImportQuery = z.infer<typeof importQuery>;
