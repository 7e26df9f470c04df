/**
 * Builds a WHERE clause from optional filters: each condition whose value is defined is kept, with its
 * parameters. `where([['site_id = ?', siteId], ['at >= ?', from]])` -> { sql: 'WHERE site_id = ?', params }.
 */
export function where(conditions: Array<[sql: string, value: unknown]>): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  for (const [sql, value] of conditions) {
    if (value === undefined) continue;
    parts.push(sql);
    if (Array.isArray(value)) params.push(...value);
    else params.push(value);
  }
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}
