/**
 * One pass over a site's readings in time order, each device's readings into its buckets: the measures
 * the rules derive (rain in inches from a tip counter, a share of a trap's capacity), the others as they
 * are; the running rain of each storm; the alarm inputs' episodes; and the silences longer than the
 * device's gap interval, counted as gaps only while the device was expected to report (its time in
 * service: `expectedSpans` of the device-silent rule). Readings before the range only set a counter's
 * base, a storm's rain so far and the time of the last reading.
 */
import type { StormDto } from '../../../../shared/src/api/alerts.ts';
import type { MeasureId } from '../../../../shared/src/api/measures.ts';
import type { ReadingName } from '../../../../shared/src/telemetry.ts';
import type { DeviceConfig, SiteConfig } from '../../config/schema.ts';
import {
  type ChartDerivation,
  type DeviceCharts,
  type DeviceService,
  deviceCharts,
  gapsIn,
  type Span,
} from '../../rules/index.ts';
import type { StoredReading } from '../../store/readings.ts';
import { BucketSeries, type Grid } from './buckets.ts';

/** Without a rule saying otherwise, a silence of two hours is a gap. */
const DEFAULT_GAP_MS = 2 * 3_600_000;

/** A stretch of time (epoch ms) on a device's chart. */
export type { Span };

/** A storm of the device, with its running rain. */
interface StormTrack {
  storm: StormDto;
  start: number;
  end: number;
  rain: number;
}

export class DeviceTrack {
  readonly parts: DeviceCharts[];
  readonly gapMs: number;
  private readonly derive = new Map<ReadingName, ChartDerivation>();
  readonly series = new Map<MeasureId, BucketSeries>();
  private readonly counts = new Map<ReadingName, number>();
  /** The time of the newest reading so far. */
  private prev: number | undefined;
  /** Silences of the gap interval or longer ending in the range (from -Infinity: none before). */
  private readonly silences: Span[] = [];
  /** The gaps in the evidence within the range, once `finish` has run. */
  gaps: Span[] = [];
  readonly alarms = new Map<MeasureId, Span[]>();
  private readonly alarmSince = new Map<MeasureId, number>();
  readonly storms: StormTrack[];
  private stormAt = 0;

  constructor(
    readonly device: DeviceConfig,
    site: SiteConfig,
    private readonly grid: Grid,
    private readonly range: Span,
    storms: readonly StormDto[],
    /** Its time in service (unknown: expected all along). */
    readonly service: DeviceService = { addedAt: null, retiredAt: null, firstReadingAt: null },
  ) {
    this.parts = deviceCharts(device, site);
    for (const p of this.parts) for (const d of p.derive ?? []) this.derive.set(d.from, d);
    const gaps = this.parts.flatMap((p) => (p.gapMs === undefined ? [] : [p.gapMs]));
    this.gapMs = gaps.length ? Math.min(...gaps) : DEFAULT_GAP_MS;
    this.storms = storms
      .filter((s) => s.deviceId === device.id)
      .map((s) => ({ storm: s, start: Date.parse(s.start), end: Date.parse(s.end), rain: 0 }))
      .sort((a, b) => a.start - b.start);
  }

  /** The measure a reading is charted as: the one a rule derives from it, else itself. */
  measureOf(reading: ReadingName): MeasureId {
    return this.derive.get(reading)?.measure ?? reading;
  }

  seriesOf(measure: MeasureId): BucketSeries {
    let s = this.series.get(measure);
    if (!s) {
      s = new BucketSeries(this.grid);
      this.series.set(measure, s);
    }
    return s;
  }

  add(r: StoredReading): void {
    if (r.ts >= this.range.from) this.silence(r.ts);
    this.prev = this.prev === undefined ? r.ts : Math.max(this.prev, r.ts);
    for (const [name, v] of Object.entries(r.values) as Array<[ReadingName, number]>)
      this.value(name, v, r.ts);
    for (const [name, on] of Object.entries(r.alarms ?? {}))
      this.alarm(`alarms.${name}` as MeasureId, on, r.ts);
  }

  /** The silence before `ts`, kept when it is as long as a gap. */
  private silence(ts: number): void {
    const since = this.prev ?? Number.NEGATIVE_INFINITY;
    if (ts - since >= this.gapMs) this.silences.push({ from: since, to: ts });
  }

  private value(name: ReadingName, v: number, ts: number): void {
    const d = this.derive.get(name);
    if (!d) {
      this.seriesOf(name).add(ts, v);
      return;
    }
    let x = v;
    if (d.counter) {
      const before = this.counts.get(name);
      this.counts.set(name, v);
      if (before === undefined) return;
      x = v >= before ? v - before : v;
    }
    const value = d.value(x, ts);
    if (value === undefined) return;
    this.seriesOf(d.measure).add(ts, value);
    if (d.measure === 'rain') this.stormRain(ts, value);
  }

  /** Rain at `ts` within one of the device's storms adds to its running rain. */
  private stormRain(ts: number, inches: number): void {
    while (this.stormAt < this.storms.length && this.storms[this.stormAt]!.end < ts) this.stormAt++;
    const s = this.storms[this.stormAt];
    if (!s || ts < s.start) return;
    s.rain += inches;
    this.seriesOf('stormRain').add(ts, s.rain);
  }

  private alarm(measure: MeasureId, on: boolean, ts: number): void {
    const since = this.alarmSince.get(measure);
    if (on && since === undefined) this.alarmSince.set(measure, ts);
    if (!on && since !== undefined) {
      this.alarmSince.delete(measure);
      this.episode(measure, since, ts);
    }
  }

  private episode(measure: MeasureId, from: number, to: number): void {
    if (to < this.range.from) return;
    let list = this.alarms.get(measure);
    if (!list) {
      list = [];
      this.alarms.set(measure, list);
    }
    list.push({ from: Math.max(from, this.range.from), to: Math.min(to, this.range.to) });
  }

  /**
   * After the last reading: the silence to the end of the range, the gaps (the silences' parts in the
   * device's time in service), and the alarms still raised.
   */
  finish(end: number): void {
    this.silence(end);
    this.gaps = gapsIn(this.silences, this.service, this.range, this.gapMs);
    for (const [measure, from] of this.alarmSince) this.episode(measure, from, end);
    this.alarmSince.clear();
  }

  /** Whether any reading of the measure fell in the range. */
  hasData(measure: MeasureId): boolean {
    const s = this.series.get(measure);
    return s?.n.some((n) => n > 0) ?? false;
  }
}

/** Every device of the site (or the one asked for, and those its charts compare with), tracked. */
export function trackDevices(
  site: SiteConfig,
  grid: Grid,
  range: Span,
  storms: readonly StormDto[],
  readings: Iterable<StoredReading>,
  end: number,
  services: ReadonlyMap<string, DeviceService> = new Map(),
): Map<string, DeviceTrack> {
  const tracks = new Map(
    site.devices.map(
      (d) => [d.id, new DeviceTrack(d, site, grid, range, storms, services.get(d.id))] as const,
    ),
  );
  for (const r of readings) tracks.get(r.deviceId)?.add(r);
  for (const t of tracks.values()) t.finish(end);
  return tracks;
}

/** Spans closer together than `ms` joined into one (a bouncing float, a device at the gap's edge). */
export function joinSpans(spans: readonly Span[], ms: number): Span[] {
  const out: Span[] = [];
  for (const s of [...spans].sort((a, b) => a.from - b.from)) {
    const last = out[out.length - 1];
    if (last && s.from - last.to < ms) last.to = Math.max(last.to, s.to);
    else out.push({ ...s });
  }
  return out;
}
