/**
 * The town's choices where its law leaves one, stated in the configuration and printed where they apply
 * (as the annual inspection's reading of "within 60 days or prior to September 1st" is a site's
 * `annualInspection.rule`, printed on the report). Law 000, Section 5.010 gives the appeal of the
 * Enforcement Officer's action to the Local Board of Health but names no period: the days to appeal an
 * order under it are the town's figure (`wastewaterAppeal`), printed with every appeal sentence of an order
 * with the town's reason (`shared/src/api/enforcementLaws.ts`, `appealChoiceWords`).
 */
import { z } from 'zod';
import { TOWN_APPEAL_DEFAULT } from '../../../shared/src/api/enforcementLaws.ts';

export const enforcementSchema = z
  .strictObject({
    wastewaterAppeal: z
      .strictObject({
        days: z
          .number()
          .int()
          .min(1)
          .max(90)
          .default(TOWN_APPEAL_DEFAULT.days)
          .describe(
            "Days after service to appeal an order under law 000 to the Local Board of Health (Section 5.010 names none: the town's choice).",
          ),
        reason: z
          .string()
          .trim()
          .min(1)
          .max(500)
          .default(TOWN_APPEAL_DEFAULT.reason)
          .describe(
            "The town's reason for its figure, printed with the appeal sentence of every such order.",
          ),
      })
      .prefault({})
      .describe("The appeal of the Enforcement Officer's orders under law 000 (Section 5.010)."),
  })
  .prefault({})
  .describe("Enforcement: the town's choices where its law leaves one, printed where they apply.");
export type EnforcementSettings = z.infer<typeof enforcementSchema>;
