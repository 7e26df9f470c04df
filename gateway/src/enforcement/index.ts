/**
 * Enforcement (town law 001; town law 000 for wastewater systems): milestone notices, notices of violation
 * with their steps, and stop-work orders, with their stores, on the alert engine's unit of work through a small port (`port.ts`). Built
 * once in `main.ts` and handed to the API, the fleet view and the reports.
 */
import type { TownAppeal } from '../../../shared/src/api/enforcementLaws.ts';
import { LoggedRows } from '../alerts/stores/logged.ts';
import type { Db } from '../store/types.ts';
import { Notices } from './notices.ts';
import type { EnforcementPort } from './port.ts';
import { SiteRecords } from './siteRecords.ts';
import { ENFORCEMENT_LOGGED } from './stores/logged.ts';
import { NoticeStore } from './stores/notices.ts';
import { SiteRecordStore } from './stores/siteRecords.ts';
import { ViolationStore } from './stores/violations.ts';
import { Violations } from './violations.ts';

export { enginePort } from './port.ts';
export {
  CORRECTION_PHOTOS,
  STOP_WORK_READINGS,
  VIOLATION_READINGS,
} from './stores/violations.ts';

export interface Enforcement {
  /** Milestone notices (law 001, A(1)). */
  notices: Notices;
  /** Notices of violation and stop-work orders (law 001, Enforcement). */
  violations: Violations;
  /** The developer's records of a site: certifications, the SWPPP, milestones, acceptance (law 001). */
  records: SiteRecords;
}

/**
 * Enforcement over the store `db` (its tables, the notification outbox) and the engine's port; `tzOf`
 * gives a site's time zone (an appeal window counts its local days; UTC when not given).
 */
export function openEnforcement(
  db: Db,
  port: EnforcementPort,
  tzOf: (siteId: string) => string = () => 'UTC',
  /** The town's choice of the days to appeal where the law names none (law 000); 15 unless given. */
  appeal?: TownAppeal,
): Enforcement {
  const logged = new LoggedRows(db, { append: port.appendEvidence }, ENFORCEMENT_LOGGED);
  return {
    notices: new Notices(new NoticeStore(db, logged), port),
    violations: new Violations(new ViolationStore(db, logged), port, db, tzOf, appeal),
    records: new SiteRecords(new SiteRecordStore(db, logged), port),
  };
}
