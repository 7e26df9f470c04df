/**
 * Recorded facts in words, for people: a key as a label ("crossingReceivedAt" -> "Crossing received"), a
 * value with the unit its key names ("thresholdIn" 0.5 -> "0.5 in"), times in a zone, nothing as "none on
 * record". The API's evidence sentences fall back on it for the keys a rule does not describe, and the
 * dashboard shows history details and change records with it; a rule's own words come first.
 */
import type { FactLine } from './api/alerts.ts';
import { formatLong } from './time.ts';
import { TRANSPORT_WORDS } from './transportWords.ts';

/** One labelled sentence: "Storm" / "0.62 in from Nov 30, 2026, 6:53 AM EST to …". */
export type { FactLine };

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** Units named by a key's last word: the label drops the word, the value carries the unit. */
const UNITS: Array<[RegExp, string]> = [
  [/Ntu$/, 'NTU'],
  [/In$/, 'in'],
  [/Mm$/, 'mm'],
  [/Volts?$|V$/, 'V'],
  [/Dbm$/, 'dBm'],
];
/** Durations named by a key's last word: the label keeps the rest, the value reads "6 h". */
const DURATIONS: Array<[RegExp, string, string]> = [
  [/Seconds$/, 's', 's'],
  [/Minutes$/, 'min', 'min'],
  [/Hours$/, 'h', 'h'],
  [/Days$/, 'day', 'days'],
  [/Years$/, 'year', 'years'],
];

/** Words of a few keys that their camel case alone would not give. */
const KEY_WORDS: Record<string, string> = {
  id: 'ID',
  tz: 'Time zone',
  timezone: 'Time zone',
  inchesPerTip: 'Rain per tip',
  rssi: 'Signal',
  seq: 'Sequence number',
  transport: 'How it connects',
  profile: 'Sensor profile',
  devEui: 'DevEUI',
  mountHeightIn: 'Mounting height',
  modbus: 'Modbus RTU',
  sdi12: 'SDI-12',
  unitId: 'Unit',
  port: 'Adapter',
  pollSeconds: 'Poll interval',
};
/** Labels that keep their capitals inside a sentence (names of things, not words). */
const PROPER_LABELS = new Set(['DevEUI', 'Modbus RTU', 'SDI-12']);

/** A label inside a sentence: lower case, but for the names of things ("DevEUI", "SDI-12"). */
export function labelInSentence(label: string): string {
  return PROPER_LABELS.has(label) ? label : label.toLowerCase();
}
/** Units of those keys. */
const KEY_UNITS: Record<string, string> = { inchesPerTip: 'in', rssi: 'dBm' };

const split = (key: string) =>
  key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase()
    .replace(/\bid\b/g, 'ID')
    .trim();

const capital = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

/**
 * The stem of a key without the word that names its unit, its duration or marks it a time ("dueAt" ->
 * "due"), when the value is of that kind (or not given).
 */
function stem(key: string, v?: unknown): string {
  const num = v === undefined || typeof v === 'number';
  if (num) {
    for (const [re] of UNITS) if (re.test(key) && key.replace(re, '')) return key.replace(re, '');
    for (const [re] of DURATIONS) if (re.test(key) && key.replace(re, '')) return key.replace(re, '');
  }
  if (/.At$/.test(key) && (v === undefined || v === null || typeof v === 'string')) return key.slice(0, -2);
  return key;
}

/**
 * A key as a label: "crossingReceivedAt" -> "Crossing received", "thresholdIn" -> "Threshold",
 * "holdSeconds" -> "Hold" (its value says "60 s").
 * @param [v] the value it labels, when the label is for one
 */
export function keyLabel(key: string, v?: unknown): string {
  const own = KEY_WORDS[key];
  if (own) return own;
  return capital(split(stem(key, v)));
}

/** The unit a key names ("in", "NTU"), if any. */
function unitOf(key: string): string | undefined {
  if (KEY_UNITS[key]) return KEY_UNITS[key];
  for (const [re, unit] of UNITS) if (re.test(key) && key.replace(re, '')) return unit;
  return undefined;
}

/** A number for people: at most three decimals, no trailing zeros. */
export function numberText(n: number): string {
  if (!Number.isFinite(n)) return 'not a number';
  return String(Math.round(n * 1000) / 1000);
}

/** A time in a zone, e.g. "Nov 30, 2026, 6:53 AM EST"; a string that is no time stays as it is. */
export function timeText(v: string | number, tz: string): string {
  const ms = typeof v === 'number' ? v : Date.parse(v);
  return Number.isFinite(ms) ? formatLong(ms, tz) : String(v);
}

/**
 * A value in words: times in `tz`, numbers with the unit the key names, yes and no, nothing as "none on
 * record", a list joined, an object as its keys' words.
 */
export function valueText(key: string, v: unknown, tz: string): string {
  if (v === null || v === undefined || v === '') return 'none on record';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (key === 'transport' && typeof v === 'string' && v in TRANSPORT_WORDS)
    return TRANSPORT_WORDS[v as keyof typeof TRANSPORT_WORDS];
  if (typeof v === 'string') return ISO.test(v) ? timeText(v, tz) : v;
  if (typeof v === 'number') {
    if (/Fraction$|^fraction$/.test(key)) return `${numberText(v * 100)}%`;
    const unit = unitOf(key);
    if (unit) return `${numberText(v)} ${unit}`;
    for (const [re, one, many] of DURATIONS)
      if (re.test(key)) return `${numberText(v)} ${v === 1 ? one : many}`;
    return numberText(v);
  }
  if (Array.isArray(v)) return v.length ? v.map((x) => valueText(key, x, tz)).join(', ') : 'none';
  if (typeof v === 'object') {
    const parts = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => `${keyLabel(k, x).toLowerCase()} ${valueText(k, x, tz)}`);
    return parts.length ? parts.join('; ') : 'none on record';
  }
  return String(v);
}

/** Each key of a record as a labelled line, but those in `skip` (already told in a rule's own words). */
export function factLines(
  facts: Readonly<Record<string, unknown>>,
  tz: string,
  skip: Iterable<string> = [],
): FactLine[] {
  const told = new Set(skip);
  return Object.entries(facts)
    .filter(([k, v]) => !told.has(k) && v !== undefined)
    .map(([k, v]) => ({ label: keyLabel(k, v), text: valueText(k, v, tz) }));
}
