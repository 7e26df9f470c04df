/**
 * The town law's eight construction milestones (001, "Erosion and sediment control inspection", A(1)) and
 * the notice's lead time, without zod: the dashboard's bundle takes them from here (`notices.ts` holds
 * the schemas).
 */
/** The law's eight activities, (a) to (h), with their words as the law writes them. */
export const MILESTONES = {
  'start-of-construction': 'Start of construction',
  'erosion-controls-installed': 'Installation of sediment and erosion control measures',
  'site-clearing-complete': 'Completion of site clearing',
  'rough-grading-complete': 'Completion of rough grading',
  'final-grading-complete': 'Completion of final grading',
  'construction-season-close': 'Close of the construction season',
  'final-landscaping-complete': 'Completion of final landscaping',
  'public-landscaping-established': 'Successful establishment of landscaping in public areas',
} as const;
export type Milestone = keyof typeof MILESTONES;
export const MILESTONE_IDS = Object.keys(MILESTONES) as [Milestone, ...Milestone[]];

/** How long before a milestone the town must be told. */
export const NOTICE_LEAD_MS = 48 * 3_600_000;
