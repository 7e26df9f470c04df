/**
 * The store's protections, applied at every open after the migrations: append-only tables refuse UPDATE
 * (and, where rows are never removed, DELETE). A trigger that someone dropped is back at the next start.
 * Readings may be deleted, by retention only, which logs a `retention` entry first; a photo's row only
 * while no record cites it (the housekeeping removes photos never cited, `store/photos.ts`).
 */
import type { Db } from '../types.ts';

/**
 * The schema's own last guard of a cited photo: the tables whose rows cite photos (an inspection's
 * findings, a correction report), as they are at this schema version. The records' owners register the
 * queries the photo store asks (`PhotoCitation`: `alerts/stores/inspections.ts`,
 * `enforcement/stores/violations.ts`); `test/enforcement/photoCitations.test.ts` checks that this guard
 * keeps every photo they say is cited. A new table citing photos comes with a schema version that adds it here.
 */
const CITING_TABLES = `
  SELECT i.site_id AS siteId FROM inspections i, json_each(i.findings) f, json_each(f.value, '$.photos') p
    WHERE i.findings != '[]' AND instr(i.findings, OLD.sha256) > 0 AND p.value = OLD.sha256
  UNION
  SELECT v.site_id AS siteId FROM violation_events e JOIN violations v ON v.id = e.violation_id,
      json_each(e.photos) p
    WHERE instr(e.photos, OLD.sha256) > 0 AND p.value = OLD.sha256`;

const GUARDS = `
CREATE TRIGGER IF NOT EXISTS readings_no_update BEFORE UPDATE ON readings
  BEGIN SELECT RAISE(ABORT, 'readings are append-only'); END;
CREATE TRIGGER IF NOT EXISTS alert_history_no_update BEFORE UPDATE ON alert_history
  BEGIN SELECT RAISE(ABORT, 'alert_history is append-only'); END;
CREATE TRIGGER IF NOT EXISTS alert_history_no_delete BEFORE DELETE ON alert_history
  BEGIN SELECT RAISE(ABORT, 'alert_history is append-only'); END;
CREATE TRIGGER IF NOT EXISTS inspections_no_update BEFORE UPDATE ON inspections
  BEGIN SELECT RAISE(ABORT, 'inspections are append-only'); END;
CREATE TRIGGER IF NOT EXISTS inspections_no_delete BEFORE DELETE ON inspections
  BEGIN SELECT RAISE(ABORT, 'inspections are append-only'); END;
CREATE TRIGGER IF NOT EXISTS extensions_no_update BEFORE UPDATE ON extensions
  BEGIN SELECT RAISE(ABORT, 'extensions are append-only'); END;
CREATE TRIGGER IF NOT EXISTS extensions_no_delete BEFORE DELETE ON extensions
  BEGIN SELECT RAISE(ABORT, 'extensions are append-only'); END;
CREATE TRIGGER IF NOT EXISTS notices_no_update BEFORE UPDATE ON notices
  BEGIN SELECT RAISE(ABORT, 'notices are append-only'); END;
CREATE TRIGGER IF NOT EXISTS notices_no_delete BEFORE DELETE ON notices
  BEGIN SELECT RAISE(ABORT, 'notices are append-only'); END;
CREATE TRIGGER IF NOT EXISTS photos_no_update BEFORE UPDATE ON photos
  BEGIN SELECT RAISE(ABORT, 'photos are append-only'); END;
CREATE TRIGGER IF NOT EXISTS photos_kept_while_cited BEFORE DELETE ON photos
  WHEN EXISTS (SELECT 1 FROM (${CITING_TABLES}))
  BEGIN SELECT RAISE(ABORT, 'a cited photo is kept: photos are removed only while no record cites them'); END;
CREATE TRIGGER IF NOT EXISTS violations_no_update BEFORE UPDATE ON violations
  BEGIN SELECT RAISE(ABORT, 'notices of violation are append-only'); END;
CREATE TRIGGER IF NOT EXISTS violations_no_delete BEFORE DELETE ON violations
  BEGIN SELECT RAISE(ABORT, 'notices of violation are append-only'); END;
CREATE TRIGGER IF NOT EXISTS violation_events_no_update BEFORE UPDATE ON violation_events
  BEGIN SELECT RAISE(ABORT, 'violation_events is append-only'); END;
CREATE TRIGGER IF NOT EXISTS violation_events_no_delete BEFORE DELETE ON violation_events
  BEGIN SELECT RAISE(ABORT, 'violation_events is append-only'); END;
CREATE TRIGGER IF NOT EXISTS stop_work_no_update BEFORE UPDATE ON stop_work
  BEGIN SELECT RAISE(ABORT, 'stop-work orders are append-only'); END;
CREATE TRIGGER IF NOT EXISTS stop_work_no_delete BEFORE DELETE ON stop_work
  BEGIN SELECT RAISE(ABORT, 'stop-work orders are append-only'); END;
CREATE TRIGGER IF NOT EXISTS stop_work_events_no_update BEFORE UPDATE ON stop_work_events
  BEGIN SELECT RAISE(ABORT, 'stop_work_events is append-only'); END;
CREATE TRIGGER IF NOT EXISTS stop_work_events_no_delete BEFORE DELETE ON stop_work_events
  BEGIN SELECT RAISE(ABORT, 'stop_work_events is append-only'); END;
CREATE TRIGGER IF NOT EXISTS changes_no_update BEFORE UPDATE ON changes
  BEGIN SELECT RAISE(ABORT, 'changes are append-only'); END;
CREATE TRIGGER IF NOT EXISTS changes_no_delete BEFORE DELETE ON changes
  BEGIN SELECT RAISE(ABORT, 'changes are append-only'); END;
CREATE TRIGGER IF NOT EXISTS site_records_no_update BEFORE UPDATE ON site_records
  BEGIN SELECT RAISE(ABORT, 'site records are append-only'); END;
CREATE TRIGGER IF NOT EXISTS site_records_no_delete BEFORE DELETE ON site_records
  BEGIN SELECT RAISE(ABORT, 'site records are append-only'); END;
`;

export function applyGuards(db: Db): void {
  db.exec(GUARDS);
}
