/**
 * The measures people read: every reading a device may send, the alarm inputs, and the measures the
 * gateway derives for its charts (rain per bucket in inches, the running rain of a storm, sediment as a
 * share of the trap's capacity), each with its words and unit. The dashboard's tables, its charts and the
 * chart series the API answers (`GET /api/charts`) name a measure by its id and show its label.
 *
 * `bucket` says how a long range is downsampled into time buckets:
 * - `sum`: the rain in the bucket (a tip counter's increases, a drop being a restart, times the inches
 *   per tip in force at each reading; interval rain added up), so the buckets add up to the range's rain;
 * - `running`: the running total at the bucket's last reading (a storm's rain so far);
 * - `last`: the bucket's last reading, with the bucket's smallest and largest value beside it;
 * - `any`: an alarm input: whether it was raised at any time in the bucket (charts show its episodes).
 */
// Types only: the dashboard bundles this file, and the telemetry schemas would bring zod with them.
import type { AlarmName, DeviceKind, ReadingName } from '../telemetry.ts';

export type Bucketing = 'sum' | 'running' | 'last' | 'any';

export interface MeasureInfo {
  /** Its name for people: "Battery". */
  label: string;
  /** Its unit as written after a value: "V" (empty for an alarm). */
  unit: string;
  /** Decimals shown. */
  decimals: number;
  bucket: Bucketing;
  /** A better name on some kinds of device ("Tank level" on a tank, "Water level" in a sediment trap). */
  byKind?: Partial<Record<DeviceKind, string>>;
}

/** An alarm input as a measure id: `alarms.highWater`. */
export type AlarmMeasure = `alarms.${AlarmName}`;
/** The measures derived for charts. */
export const DERIVED_MEASURES = ['rain', 'stormRain', 'sedimentPct'] as const;
export type DerivedMeasure = (typeof DERIVED_MEASURES)[number];
export type MeasureId = ReadingName | AlarmMeasure | DerivedMeasure;

const TANKS = { 'holding-tank': 'Tank level', 'septic-tank': 'Tank level', 'septic-panel': 'Tank level' };

export const MEASURES: Readonly<Record<MeasureId, MeasureInfo>> = {
  rainTips: { label: 'Rain gauge count', unit: 'tips', decimals: 0, bucket: 'last' },
  rainIn: { label: 'Rain', unit: 'in', decimals: 2, bucket: 'sum' },
  levelIn: {
    label: 'Level',
    unit: 'in',
    decimals: 1,
    bucket: 'last',
    byKind: { ...TANKS, 'sediment-trap': 'Water level' },
  },
  sludgeIn: { label: 'Sludge depth', unit: 'in', decimals: 1, bucket: 'last' },
  scumIn: { label: 'Scum depth', unit: 'in', decimals: 1, bucket: 'last' },
  sedimentIn: { label: 'Sediment depth', unit: 'in', decimals: 1, bucket: 'last' },
  turbidityNtu: { label: 'Turbidity', unit: 'NTU', decimals: 0, bucket: 'last' },
  batteryV: { label: 'Battery', unit: 'V', decimals: 2, bucket: 'last' },
  rssi: { label: 'Signal', unit: 'dBm', decimals: 0, bucket: 'last' },
  'alarms.highWater': { label: 'High-water alarm', unit: '', decimals: 0, bucket: 'any' },
  'alarms.pump': { label: 'Pump alarm', unit: '', decimals: 0, bucket: 'any' },
  'alarms.blower': { label: 'Blower or aerator alarm', unit: '', decimals: 0, bucket: 'any' },
  'alarms.panel': { label: 'Control panel alarm', unit: '', decimals: 0, bucket: 'any' },
  'alarms.field': { label: 'Absorption field alarm', unit: '', decimals: 0, bucket: 'any' },
  rain: { label: 'Rain', unit: 'in', decimals: 2, bucket: 'sum' },
  stormRain: { label: 'Storm rain so far', unit: 'in', decimals: 2, bucket: 'running' },
  sedimentPct: { label: 'Sediment', unit: '% of capacity', decimals: 0, bucket: 'last' },
};

export const MEASURE_IDS = Object.keys(MEASURES) as MeasureId[];

/** The alarm inputs as measure ids, in the contract's order (MEASURES names every one). */
export const ALARM_MEASURES = MEASURE_IDS.filter((id): id is AlarmMeasure => id.startsWith('alarms.'));

/** Whether a string names a measure. */
export function isMeasure(id: string): id is MeasureId {
  return Object.hasOwn(MEASURES, id);
}

/** A measure's words; an unknown field is its own label (a newer device's reading still shows). */
export function measureInfo(id: string): MeasureInfo {
  return isMeasure(id) ? MEASURES[id] : { label: id, unit: '', decimals: 2, bucket: 'last' };
}

/** "Tank level" on a holding tank, "Water level" in a sediment trap, "Battery" anywhere. */
export function measureLabel(id: string, kind?: string): string {
  const m = measureInfo(id);
  return (kind !== undefined ? m.byKind?.[kind as DeviceKind] : undefined) ?? m.label;
}

/** "Battery (V)": a measure with its unit, as an axis or a column heading shows it. */
export function measureHeading(id: string, kind?: string): string {
  const m = measureInfo(id);
  const label = measureLabel(id, kind);
  return m.unit ? `${label} (${m.unit})` : label;
}

/** "3.61 V", "0.62 in", "11 in", "-71 dBm", "ALARM" or "normal": a value as people read it. */
export function formatMeasure(id: string, value: number | boolean): string {
  if (typeof value === 'boolean') return value ? 'ALARM' : 'normal';
  const m = measureInfo(id);
  // A whole depth or count reads "11 in"; rain and a battery keep their decimals ("1.00 in").
  const n = Number.isInteger(value) && m.decimals <= 1 ? String(value) : value.toFixed(m.decimals);
  if (!m.unit) return n;
  return m.unit.startsWith('%') ? `${n}${m.unit}` : `${n} ${m.unit}`;
}

/** The kinds of device, as people name them. */
export const DEVICE_KIND_LABELS: Readonly<Record<DeviceKind, string>> = {
  'rain-gauge': 'Rain gauge',
  'sediment-trap': 'Sediment trap',
  turbidity: 'Turbidity sensor',
  'septic-panel': 'Septic control panel',
  'septic-tank': 'Septic tank level sensor',
  'holding-tank': 'Holding tank level sensor',
};
