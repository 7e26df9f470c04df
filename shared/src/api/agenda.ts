/**
 * The officer's agenda (GET /api/agenda): day by day, the milestone inspections the applicants have
 * notified (town law 001, A(1)), the duties due (storm and routine inspections, and every other duty
 * with a due date), the overdue ones first, and the inspection reports delivered to the officer on the
 * day they were recorded (law 001: "The reports shall be delivered to the Stormwater Management Officer"). Each item's day is its time's date in its site's zone.
 */
import { z } from 'zod';

/** A calendar day, YYYY-MM-DD. */
export const daySchema = z
  .string()
  .max(10)
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'a day as YYYY-MM-DD');

export const AGENDA_KINDS = ['milestone', 'duty', 'report'] as const;

export const agendaItemSchema = z.object({
  kind: z.enum(AGENDA_KINDS),
  siteId: z.string(),
  siteName: z.string(),
  /** The milestone's time, the duty's due time, or when the report was recorded (ISO 8601 UTC). */
  at: z.iso.datetime(),
  /** The site's time zone, in which `at` is shown. */
  timezone: z.string(),
  /** The law's words for a milestone, the rule module's label for a duty. */
  label: z.string(),
  /** One sentence for a clerk: where, at what local time, what to do. */
  detail: z.string(),
  /** The notice's, the alert's or the inspection's id. */
  ref: z.string(),
  overdue: z.boolean(),
});
export type AgendaItem = z.infer<typeof agendaItemSchema>;

export const agendaSchema = z.object({
  from: daySchema,
  to: daySchema,
  /** Duties past their due time, whatever day they were due (earliest first). */
  overdue: z.array(agendaItemSchema),
  /** Every day from `from` to `to`, with its items in time order. */
  days: z.array(z.object({ day: daySchema, items: z.array(agendaItemSchema) })),
});
export type Agenda = z.infer<typeof agendaSchema>;

/** The longest agenda, in days. */
export const AGENDA_MAX_DAYS = 92;
