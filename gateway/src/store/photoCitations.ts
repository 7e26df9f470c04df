/**
 * The records that cite photos, each as a query of the sites whose records cite the photo whose hash is
 * the SQL expression `sha` (a parameter such as `@sha`, or `OLD.sha256` in a trigger). The site's people
 * may see the photo, and a cited photo is never removed (schema/guards.ts). A new kind of record citing
 * photos adds its query here, and its photo lists to `CITED_HASHES`.
 */
export function citingSitesOf(sha: string): string {
  return [
    // An inspection's findings: cheap text match first, then the findings' photo lists.
    `SELECT i.site_id AS siteId FROM inspections i, json_each(i.findings) f, json_each(f.value, '$.photos') p
       WHERE i.findings != '[]' AND instr(i.findings, ${sha}) > 0 AND p.value = ${sha}`,
    // A developer's report that a notice's violation was corrected.
    `SELECT v.site_id AS siteId FROM violation_events e JOIN violations v ON v.id = e.violation_id,
         json_each(e.photos) p
       WHERE instr(e.photos, ${sha}) > 0 AND p.value = ${sha}`,
  ].join(' UNION ');
}

/** Every hash some record cites (the housekeeping keeps these photos). */
export const CITED_HASHES = `
  SELECT p.value AS sha256 FROM inspections i, json_each(i.findings) f, json_each(f.value, '$.photos') p
    WHERE i.findings != '[]'
  UNION
  SELECT p.value AS sha256 FROM violation_events e, json_each(e.photos) p WHERE e.photos != '[]'`;
