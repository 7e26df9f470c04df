/**
 * InfluxDB line protocol for the gateway's two measurements.
 *
 * `telemetry`: tags site, device, kind; one float field per reading, one boolean field per alarm
 * input (`alarm_<name>`), `seq` as an integer field; timestamp = the source time in milliseconds
 * (write with precision=ms).
 *
 * Derived fields (rainTotalIn, thresholdIn, sedimentPct, cleanoutPct, highLevelIn): derived.ts; the
 * `storms` measurement: storms.ts.
 *
 * `alerts`: tags site, rule (and device); fields status, action, alert_id (strings), overdue (boolean),
 * due_at (integer, epoch ms), by (string), open_duties and overdue_duties (integers: the site's unresolved
 * duties of the rule after the change, and of those the overdue ones); timestamp = the time of the change in milliseconds.
 *
 * A field name always has one type: readings are always floats (an integral value is written as
 * `12`, which line protocol reads as a float, never `12i`), seq and due_at are always integers.
 */
import type { AlertChangePoint } from '../../../../shared/src/api/alerts.ts';
import type { Reading } from '../../../../shared/src/telemetry.ts';

export const TELEMETRY_MEASUREMENT = 'telemetry';
export const ALERTS_MEASUREMENT = 'alerts';

const MEASUREMENT_SPECIAL = new Set([',', ' ']);
const KEY_SPECIAL = new Set([',', '=', ' ']);
const CONTROL_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Backslash-escapes the special characters. Newlines cannot appear raw in a line, so control
 * characters are written as the two characters `\n`, `\r`, `\t`. A backslash is kept as is, except when it is the
 * last character or comes right before a special character: there it is doubled, so it cannot
 * escape the separator that follows (InfluxDB 1.x then stores two backslashes; ids never contain one).
 */
function escapeWith(value: string, special: ReadonlySet<string>): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    const ctl = CONTROL_ESCAPES[c];
    if (ctl !== undefined) out += ctl;
    else if (special.has(c)) out += `\\${c}`;
    else if (c === '\\') {
      const next = value[i + 1];
      out += next === undefined || special.has(next) ? '\\\\' : '\\';
    } else out += c;
  }
  return out;
}

/** Escapes a measurement name: commas and spaces. */
export function escapeMeasurement(name: string): string {
  return escapeWith(name, MEASUREMENT_SPECIAL);
}

/** Escapes a tag key, tag value or field key: commas, equals signs and spaces. */
export function escapeKey(value: string): string {
  return escapeWith(value, KEY_SPECIAL);
}

/** A string field value: double-quoted, with backslashes and double quotes escaped. */
export function stringField(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** A float field value, or undefined when the number cannot be written (NaN, infinities). */
export function floatField(value: number): string | undefined {
  if (!Number.isFinite(value)) return undefined;
  return String(value);
}

/** An integer field value (`i` suffix), or undefined when the number is not a safe integer. */
export function intField(value: number): string | undefined {
  const v = Math.trunc(value);
  if (!Number.isSafeInteger(v)) return undefined;
  return `${v}i`;
}

export function boolField(value: boolean): string {
  return value ? 'true' : 'false';
}

function timestampMs(ms: number): string {
  return String(Math.trunc(ms));
}

function tagSet(tags: Array<[string, string | undefined]>): string {
  let out = '';
  // Tags are written sorted by key, which is what InfluxDB stores and what it parses fastest.
  const present = tags.filter((t): t is [string, string] => t[1] !== undefined && t[1] !== '');
  present.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  for (const [k, v] of present) out += `,${escapeKey(k)}=${escapeKey(v)}`;
  return out;
}

function fieldSet(fields: Array<[string, string | undefined]>): string {
  return fields
    .filter((f): f is [string, string] => f[1] !== undefined)
    .map(([k, v]) => `${escapeKey(k)}=${v}`)
    .join(',');
}

/** Field keys seen so far, escaped (a small, fixed set in practice: the reading and alarm names). */
const fieldKeyCache = new Map<string, string>();
function fieldKey(name: string): string {
  let k = fieldKeyCache.get(name);
  if (k === undefined) {
    k = escapeKey(name);
    if (fieldKeyCache.size > 10_000) fieldKeyCache.clear();
    fieldKeyCache.set(name, k);
  }
  return k;
}

/**
 * One reading as a line of the `telemetry` measurement. Returns '' when the reading carries no field
 * at all (no values, no alarms, no seq): line protocol has no way to write a point without fields.
 * Built as one string without intermediate arrays: it runs for every reading stored. `extra`: fields
 * derived from the configuration (derived.ts), as `,name=value` pairs, written after the reading's own.
 */
export function readingToLine(r: Reading, extra = ''): string {
  let fs = '';
  const values = r.values as Record<string, number | undefined>;
  for (const name in values) {
    const value = values[name];
    const v = typeof value === 'number' ? floatField(value) : undefined;
    if (v === undefined) continue;
    fs += `${fs === '' ? '' : ','}${fieldKey(name)}=${v}`;
  }
  if (r.alarms) {
    const alarms = r.alarms as Record<string, boolean | undefined>;
    for (const name in alarms) {
      const on = alarms[name];
      if (typeof on === 'boolean')
        fs += `${fs === '' ? '' : ','}${fieldKey(`alarm_${name}`)}=${boolField(on)}`;
    }
  }
  if (r.seq !== undefined) {
    const seq = intField(r.seq);
    if (seq !== undefined) fs += `${fs === '' ? '' : ','}seq=${seq}`;
  }
  if (fs === '') return '';
  return `${telemetrySeries(r)} ${fs}${extra} ${timestampMs(r.ts)}`;
}

/** Measurement and tags of a device's series; the same for every reading of it, so it is computed once. */
const seriesCache = new Map<string, string>();
function telemetrySeries(r: Reading): string {
  const key = `${r.siteId}\u0000${r.deviceId}\u0000${r.deviceKind}`;
  let series = seriesCache.get(key);
  if (series === undefined) {
    const tags = tagSet([
      ['site', r.siteId],
      ['device', r.deviceId],
      ['kind', r.deviceKind],
    ]);
    series = `${escapeMeasurement(TELEMETRY_MEASUREMENT)}${tags}`;
    if (seriesCache.size > 100_000) seriesCache.clear();
    seriesCache.set(key, series);
  }
  return series;
}

/** An alert change as written to InfluxDB: the contract's point (shared/src/api/alerts.ts). */
export type AlertChange = AlertChangePoint;

/** One alert change (raise, ack, extend, overdue, resolve...) as a line of the `alerts` measurement. */
export function alertChangeToLine(change: AlertChange): string {
  const tags = tagSet([
    ['site', change.siteId],
    ['rule', change.rule],
    ['device', change.deviceId],
  ]);
  const fs = fieldSet([
    ['status', stringField(change.status)],
    ['overdue', boolField(change.overdue)],
    ['action', stringField(change.action)],
    ['alert_id', stringField(change.alertId)],
    ['due_at', change.dueAt === undefined ? undefined : intField(change.dueAt)],
    ['by', change.by === undefined ? undefined : stringField(change.by)],
    ['open_duties', change.duties === undefined ? undefined : intField(change.duties.open)],
    ['overdue_duties', change.duties === undefined ? undefined : intField(change.duties.overdue)],
  ]);
  return `${escapeMeasurement(ALERTS_MEASUREMENT)}${tags} ${fs} ${timestampMs(change.at)}`;
}
