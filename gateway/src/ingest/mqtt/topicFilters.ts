/** MQTT topic filters: the ones the gateway consumes, and how filters with `+` and `#` relate. */

/** Every device's telemetry. */
export const TELEMETRY_FILTER = 'sites/+/devices/+/telemetry';
/** Every device's status (retained, and the last will). */
export const STATUS_FILTER = 'sites/+/devices/+/status';

/** Can some topic match both filters? */
export function filtersIntersect(a: string, b: string): boolean {
  const x = a.split('/');
  const y = b.split('/');
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] === '#' || y[i] === '#') return true;
    if (x[i] === undefined || y[i] === undefined) return false;
    if (x[i] !== '+' && y[i] !== '+' && x[i] !== y[i]) return false;
  }
  return true;
}

/** Is `filter` no wider than `allowed` (every topic it matches is matched by `allowed`)? */
export function filterWithin(allowed: string, filter: string): boolean {
  const a = allowed.split('/');
  const f = filter.split('/');
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '#') return true;
    if (i >= f.length) return false;
    if (a[i] === '+') {
      if (f[i] === '#') return false;
      continue;
    }
    if (a[i] !== f[i]) return false;
  }
  return a.length === f.length;
}

/** Does an MQTT topic filter (with + and #) match a topic (which has no wildcards)? */
export function topicMatches(filter: string, topic: string): boolean {
  return filterWithin(filter, topic);
}
