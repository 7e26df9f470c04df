/**
 * The words a printed report uses for the contract's codes: a duty's status, a site's kind, an
 * inspection's kind, a person's role, a changed setting. A clerk reads "On time", never `on-time`.
 */
import type { SITE_KINDS, SiteHistory, USER_ROLES } from '../../../shared/src/admin.ts';
import type { INSPECTION_KINDS, STORM_INSPECTION_STATUSES } from '../../../shared/src/api/alerts.ts';
import type { DutyStatus } from './report.ts';

type StormStatus = (typeof STORM_INSPECTION_STATUSES)[number];

export const STATUS_WORDS: Record<DutyStatus | StormStatus, string> = {
  'on-time': 'On time',
  late: 'Late',
  missing: 'Missing',
  overdue: 'Overdue',
  open: 'Open, not yet due',
  resolved: 'Resolved',
  superseded: 'Superseded by the record',
  pending: 'Not yet due',
  'not-required': 'Not required',
};

export const SITE_KIND_WORDS: Record<(typeof SITE_KINDS)[number], string> = {
  construction: 'Construction site',
  'alternative-system': 'Alternative septic system',
  septic: 'Septic system',
  'holding-tank': 'Holding tank',
};

export const INSPECTION_KIND_WORDS: Record<(typeof INSPECTION_KINDS)[number], string> = {
  routine: 'Routine inspection',
  storm: 'Storm inspection',
  annual: 'Annual inspection',
  cleanout: 'Sediment cleanout',
  other: 'Other inspection',
};

/** The events of a site's history on record (its `history` change records' actions). */
export const HISTORY_WORDS: Record<keyof SiteHistory, string> = {
  lastRoutineInspection: 'Last routine inspection',
  lastAnnualInspection: "Last engineer's annual inspection",
  annualLetter: "The town's letter of the year",
  lastPumpOut: 'Last pump-out of the tank',
};

export const ROLE_WORDS: Record<(typeof USER_ROLES)[number], string> = {
  viewer: 'Viewer',
  inspector: 'Inspector',
  engineer: 'Engineer',
  admin: 'Administrator',
  owner: 'Owner',
  contractor: 'Contractor',
};

/** The words of a code from one of the tables above; an unknown code is shown as it is. */
export function wordFor<K extends string>(table: Record<K, string>, code: string): string {
  return (table as Record<string, string>)[code] ?? code;
}
