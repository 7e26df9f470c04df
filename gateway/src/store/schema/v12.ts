/**
 * Version 12: photos under quotas, and removed when never cited. `photo_uploads` records each upload of
 * a photo: by which account (its user id, or a token's name) and for which site (`POST
 * /api/photos?siteId=`), its size and when; the quotas add up its bytes by site and by account, and the
 * person who uploaded a photo may cite it. A photo's row may now be removed, by the housekeeping only and
 * only while no record cites it (guards.ts); its uploads go with it. Every photo stored before gets the
 * upload of the person who stored it, charged to no site.
 */
import type { Db } from '../types.ts';

export function v12(db: Db): void {
  db.exec(`
CREATE TABLE IF NOT EXISTS photo_uploads (
  sha256 TEXT NOT NULL,
  account TEXT NOT NULL,
  stored_by TEXT NOT NULL,
  site_id TEXT,
  bytes INTEGER NOT NULL,
  stored_at INTEGER NOT NULL,
  PRIMARY KEY (sha256, account)
);
CREATE INDEX IF NOT EXISTS photo_uploads_site ON photo_uploads (site_id);
CREATE INDEX IF NOT EXISTS photo_uploads_account ON photo_uploads (account);
INSERT OR IGNORE INTO photo_uploads (sha256, account, stored_by, site_id, bytes, stored_at)
  SELECT sha256, stored_by, stored_by, NULL, bytes, stored_at FROM photos;
DROP TRIGGER IF EXISTS photos_no_delete;
`);
}
