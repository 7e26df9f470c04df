/**
 * Milestone notices (town law 001, "Erosion and sediment control inspection", A(1)): "To obtain
 * inspections, the applicant shall notify the Town of Chester enforcement official at least 48 hours
 * before any of the following activities". The milestones are the law's eight, in its words; a notice is
 * late when it was filed less than 48 hours before the milestone's time. Times are ISO 8601 UTC.
 */
import { z } from 'zod';
import { MAX } from '../bounds.ts';
import { MILESTONE_IDS, NOTICE_LEAD_MS } from './milestones.ts';

export { MILESTONE_IDS, MILESTONES, type Milestone, NOTICE_LEAD_MS } from './milestones.ts';

export const milestoneSchema = z.enum(MILESTONE_IDS);

/** POST /api/notices: the applicant tells the town a milestone's time. */
export const noticeBody = z.strictObject({
  siteId: z.string().min(1).max(MAX.id),
  milestone: milestoneSchema,
  /** When the activity will take place (an offset is required). */
  at: z.iso.datetime({ offset: true }).max(MAX.time),
});
export type NoticeBody = z.infer<typeof noticeBody>;

/** POST /api/notices's answer: the notice's id and whether it came less than 48 hours before. */
export const noticeFiledSchema = z.object({ id: z.string(), late: z.boolean() });
export type NoticeFiled = z.infer<typeof noticeFiledSchema>;

/** A notice as GET /api/notices lists it, with where it stands in the evidence log. */
export const noticeDtoSchema = z.object({
  id: z.string(),
  siteId: z.string(),
  milestone: milestoneSchema,
  /** The law's words for the milestone. */
  label: z.string(),
  at: z.iso.datetime(),
  filedAt: z.iso.datetime(),
  filedBy: z.string(),
  late: z.boolean(),
  /** Whole hours between filing and the milestone (negative: filed after it). */
  leadHours: z.number().int(),
  logIndex: z.number().int().optional(),
  leafHash: z.string().optional(),
});
export type NoticeDto = z.infer<typeof noticeDtoSchema>;

/** A notice's standing as a report shows it: "on time", "late (filed 20 h before)". */
export function noticeStanding(n: Pick<NoticeDto, 'late' | 'leadHours'>): string {
  if (!n.late) return 'on time';
  return n.leadHours >= 0 ? `late (filed ${n.leadHours} h before)` : `late (filed ${-n.leadHours} h after)`;
}

/** Whether a notice filed at `filedAt` for a milestone at `at` is late. */
export const noticeLate = (filedAt: number, at: number): boolean => at - filedAt < NOTICE_LEAD_MS;
