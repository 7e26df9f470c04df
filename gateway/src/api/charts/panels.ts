/**
 * A device's tracked readings as the chart panels of the contract (`shared/src/api/charts.ts`): rain
 * (bars per hour at least, the running rain of each storm, the threshold, the storms as bands, the
 * crossings), sediment (a share of the capacity with the cleanout line and the cleanouts), a level (with
 * the high level and the alarm episodes), turbidity (with the background plus the margin), and battery
 * and signal. Every panel carries the device's gaps in the evidence and the times it was not in service. The rules' lines and marks name the
 * measure they belong to; a panel takes those of its series.
 */
import type { InspectionDto, StormDto } from '../../../../shared/src/api/alerts.ts';
import type { ChartBand, ChartMarker, ChartPanel, ChartSeries } from '../../../../shared/src/api/charts.ts';
import {
  ALARM_MEASURES,
  type MeasureId,
  measureHeading,
  measureInfo,
  measureLabel,
} from '../../../../shared/src/api/measures.ts';
import { FIELDS_BY_KIND, type ReadingName } from '../../../../shared/src/telemetry.ts';
import { toIso } from '../../../../shared/src/time.ts';
import { type ChartMark, outOfService } from '../../rules/index.ts';
import { type BucketSeries, type Grid, round } from './buckets.ts';
import { type DeviceTrack, joinSpans } from './tracks.ts';

const HOUR = 3_600_000;

interface PanelDef {
  key: string;
  measures: readonly MeasureId[];
  title(kind: string): string;
}

const PANELS: readonly PanelDef[] = [
  { key: 'rain', measures: ['rain', 'stormRain', 'rainTips', 'rainIn'], title: () => 'Rain' },
  { key: 'sediment', measures: ['sedimentPct', 'sedimentIn'], title: () => 'Sediment' },
  { key: 'level', measures: ['levelIn', 'sludgeIn', 'scumIn'], title: (k) => measureLabel('levelIn', k) },
  { key: 'turbidity', measures: ['turbidityNtu'], title: () => 'Turbidity' },
  { key: 'health', measures: ['batteryV', 'rssi'], title: () => 'Battery and signal' },
];

/** What the panels of a device are built from, besides its track. */
export interface PanelInputs {
  grid: Grid;
  from: number;
  to: number;
  tracks: ReadonlyMap<string, DeviceTrack>;
  /** Marks from the rules' alerts and the inspections, for this device. */
  marks: readonly ChartMark[];
  inspections: readonly InspectionDto[];
}

/** "per hour", "per 3 h", "per day". */
function per(ms: number): string {
  if (ms === HOUR) return 'per hour';
  if (ms === 24 * HOUR) return 'per day';
  return ms < HOUR ? `per ${ms / 60_000} min` : `per ${ms / HOUR} h`;
}

/** The measures a device is charted by, its main one first: its kind's readings, as the rules derive them. */
function expectedMeasures(t: DeviceTrack): MeasureId[] {
  const readings = FIELDS_BY_KIND[t.device.kind].filter((f): f is ReadingName => f !== 'alarms');
  const out = [...new Set(readings.map((r) => t.measureOf(r)))];
  if (out.includes('rain')) out.splice(out.indexOf('rain') + 1, 0, 'stormRain');
  return out;
}

function lastSeries(t: DeviceTrack, s: BucketSeries, measure: MeasureId, axis: number): ChartSeries {
  const downsampled = s.n.some((n) => n > 1);
  const info = measureInfo(measure);
  return {
    measure,
    label: measureLabel(measure, t.device.kind),
    unit: info.unit,
    axis,
    style: 'line',
    bucket: 'last',
    bucketMs: s.grid.bucketMs,
    values: s.values('last'),
    ...(downsampled ? { min: s.values('min'), max: s.values('max') } : {}),
  };
}

/** The running rain of each storm, carried through the storm's buckets without a reading; null outside. */
function stormRainSeries(t: DeviceTrack, grid: Grid): ChartSeries {
  const s = t.series.get('stormRain');
  const values: Array<number | null> = s ? s.values('last') : new Array(grid.count).fill(null);
  for (const st of t.storms) {
    const first = Math.max(0, Math.floor((st.start - grid.start) / grid.bucketMs));
    const last = Math.min(grid.count - 1, Math.floor((st.end - grid.start) / grid.bucketMs));
    let carried: number | null = null;
    for (let i = first; i <= last; i++) {
      if (values[i] === null) values[i] = carried;
      else carried = values[i]!;
    }
  }
  return {
    measure: 'stormRain',
    label: measureLabel('stormRain'),
    unit: 'in',
    axis: 0,
    style: 'line',
    bucket: 'running',
    bucketMs: grid.bucketMs,
    values,
  };
}

function seriesOf(t: DeviceTrack, measure: MeasureId, axis: number, inp: PanelInputs): ChartSeries[] {
  const { grid } = inp;
  if (measure === 'stormRain') return [stormRainSeries(t, grid)];
  const s = t.series.get(measure) ?? t.seriesOf(measure);
  const out: ChartSeries[] = [];
  if (measureInfo(measure).bucket === 'sum') {
    const factor = Math.max(1, Math.round(HOUR / grid.bucketMs));
    const c = s.coarsen(factor);
    out.push({
      measure,
      label: `${measureLabel(measure, t.device.kind)} ${per(c.grid.bucketMs)}`,
      unit: measureInfo(measure).unit,
      axis,
      style: 'bars',
      bucket: 'sum',
      bucketMs: c.grid.bucketMs,
      values: c.values('sum'),
    });
  } else out.push(lastSeries(t, s, measure, axis));
  for (const p of t.parts)
    for (const ref of p.references ?? [])
      if (ref.measure === measure) out.push(referenceSeries(ref, inp, grid, axis));
  return out;
}

/** Other devices' readings, averaged per bucket, plus the offset (the background plus the margin). */
function referenceSeries(
  ref: NonNullable<DeviceTrack['parts'][number]['references']>[number],
  inp: PanelInputs,
  grid: Grid,
  axis: number,
): ChartSeries {
  const sources = ref.devices.flatMap((id) => {
    const s = inp.tracks.get(id)?.series.get(inp.tracks.get(id)!.measureOf(ref.reading));
    return s ? [s] : [];
  });
  const values = Array.from({ length: grid.count }, (_, i) => {
    const vs = sources.filter((s) => s.n[i]! > 0).map((s) => s.last[i]!);
    return vs.length ? round(vs.reduce((a, b) => a + b, 0) / vs.length + ref.offset) : null;
  });
  return {
    measure: ref.measure,
    label: ref.label,
    unit: measureInfo(ref.measure).unit,
    axis,
    style: 'line',
    bucket: 'last',
    bucketMs: grid.bucketMs,
    values,
    reference: true,
  };
}

function band(kind: ChartBand['kind'], from: number, to: number, label: string, detail?: string): ChartBand {
  return { kind, from: toIso(from), to: toIso(to), label, ...(detail ? { detail } : {}) };
}

function stormBands(storms: readonly StormDto[]): ChartBand[] {
  return storms.map((s) =>
    band('storm', Date.parse(s.start), Date.parse(s.end), 'Storm', `${s.inches.toFixed(2)} in`),
  );
}

/** The panels of one device. */
export function devicePanels(t: DeviceTrack, inp: PanelInputs): ChartPanel[] {
  const { grid, from, to } = inp;
  const expected = expectedMeasures(t);
  const main = expected[0];
  const inRange = (at: number) => at >= from && at <= to;
  const gaps = joinSpans(t.gaps, grid.bucketMs).map((g) =>
    band('gap', g.from, g.to, 'No data (no evidence)'),
  );
  // Before it was added and after it was retired it was not expected to report: no gap, said so.
  const absent = outOfService(t.service, { from, to }).map((s) =>
    band('absent', s.from, s.to, s.why === 'retired' ? 'Retired' : 'Not yet installed'),
  );
  const alarms = ALARM_MEASURES.flatMap((m) =>
    joinSpans(t.alarms.get(m) ?? [], grid.bucketMs).map((a) => band('alarm', a.from, a.to, measureLabel(m))),
  );
  const storms = t.storms.map((s) => s.storm);
  const crossings: ChartMarker[] = storms.flatMap((s) =>
    s.thresholdAt && inRange(Date.parse(s.thresholdAt))
      ? [{ measure: 'stormRain', at: s.thresholdAt, label: 'Threshold crossed' }]
      : [],
  );
  const marks: ChartMarker[] = [
    ...crossings,
    ...inp.marks.filter((m) => inRange(m.at)).map((m) => ({ ...m, at: toIso(m.at) })),
    ...t.parts.flatMap((p) =>
      p.inspections
        ? inp.inspections
            .filter((i) => p.inspections!.kinds.includes(i.kind))
            .map((i) => ({ measure: p.inspections!.measure, at: i.at, label: p.inspections!.label }))
        : [],
    ),
  ];
  const out: ChartPanel[] = [];
  let alarmsShown = false;
  const defs = [...PANELS].sort(
    (a, b) => Number(b.measures.includes(main!)) - Number(a.measures.includes(main!)),
  );
  for (const def of defs) {
    const measures = def.measures.filter(
      (m) => t.hasData(m) || m === main || (m === 'stormRain' && expected.includes(m)),
    );
    if (!measures.length) continue;
    const units = [...new Set(measures.map((m) => measureInfo(m).unit))];
    const axisOf = (m: MeasureId) => (units.indexOf(measureInfo(m).unit) > 0 ? 1 : 0);
    const series = measures.flatMap((m) => seriesOf(t, m, axisOf(m), inp));
    const title = def.title(t.device.kind);
    const axes = units.slice(0, 2).map((unit) => {
      const on = measures.filter((m) => measureInfo(m).unit === unit);
      const label = on.length === 1 ? measureHeading(on[0]!, t.device.kind) : `${title} (${unit})`;
      // A long heading does not fit beside a short plot: the unit says it.
      return { unit, label: label.length > 16 ? unit : label };
    });
    const withAlarms: boolean =
      !alarmsShown && (def.key === 'level' || out.length === 0) && alarms.length > 0;
    alarmsShown ||= withAlarms;
    out.push({
      id: `${t.device.id}/${def.key}`,
      deviceId: t.device.id,
      title: `${title} at ${t.device.name ?? t.device.id}`,
      start: toIso(grid.start),
      bucketMs: grid.bucketMs,
      count: grid.count,
      axes,
      series,
      lines: t.parts.flatMap((p) => (p.lines ?? []).filter((l) => measures.includes(l.measure))),
      bands: [
        ...(measures.includes('stormRain') ? stormBands(storms) : []),
        ...(withAlarms ? alarms : []),
        ...absent,
        ...gaps,
      ],
      markers: marks.filter((m) => measures.includes(m.measure as MeasureId)),
    });
  }
  return out;
}
