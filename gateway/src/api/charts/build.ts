/**
 * A site's charts over a range (GET /api/charts): its readings read once, in time order, from a little
 * before the range (a counter's base, a storm's rain so far), bucketed per device; the storm records, the
 * alerts that mark charts and the inspections of the range beside them.
 */
import type { AlertDto, InspectionDto, StormDto } from '../../../../shared/src/api/alerts.ts';
import type { ChartRange } from '../../../../shared/src/api/chartRanges.ts';
import type { ChartsAnswer } from '../../../../shared/src/api/charts.ts';
import type { SiteConfig } from '../../config/schema.ts';
import { type ChartMark, chartMarksOf, type DeviceService } from '../../rules/index.ts';
import type { StoredReading } from '../../store/readings.ts';
import { gridOf } from './buckets.ts';
import { devicePanels } from './panels.ts';
import { trackDevices } from './tracks.ts';

const DAY = 86_400_000;

export interface ChartQuery {
  site: SiteConfig;
  timezone: string;
  from: number;
  to: number;
  range: ChartRange | null;
  now: number;
  deviceId?: string;
}

/** What the charts are read from. */
export interface ChartSources {
  readings(from: number, to: number): Iterable<StoredReading>;
  storms: readonly StormDto[];
  /** Alerts of the rules that mark charts, of the site. */
  alerts: readonly AlertDto[];
  inspections: readonly InspectionDto[];
  /** Each device's time in service (a device not in it: expected all along). */
  services?: ReadonlyMap<string, DeviceService>;
}

/** How far back readings are read: a day before the range, or the start of a storm still going at its start. */
export function readFrom(from: number, storms: readonly StormDto[]): number {
  return Math.min(from - DAY, ...storms.map((s) => Date.parse(s.start)));
}

export function buildCharts(q: ChartQuery, src: ChartSources): ChartsAnswer {
  const grid = gridOf(q.from, q.to, q.timezone);
  const range = { from: q.from, to: q.to };
  const tracks = trackDevices(
    q.site,
    grid,
    range,
    src.storms,
    src.readings(readFrom(q.from, src.storms), q.to),
    Math.min(q.to, q.now),
    src.services,
  );
  const marks = new Map<string, ChartMark[]>();
  for (const a of src.alerts) {
    if (!a.deviceId) continue;
    const list = marks.get(a.deviceId) ?? [];
    list.push(...chartMarksOf(a));
    marks.set(a.deviceId, list);
  }
  const devices = q.site.devices.filter((d) => q.deviceId === undefined || d.id === q.deviceId);
  return {
    siteId: q.site.id,
    timezone: q.timezone,
    from: new Date(q.from).toISOString(),
    to: new Date(q.to).toISOString(),
    range: q.range,
    bucketMs: grid.bucketMs,
    panels: devices.flatMap((d) =>
      devicePanels(tracks.get(d.id)!, {
        grid,
        from: q.from,
        to: q.to,
        tracks,
        marks: marks.get(d.id) ?? [],
        inspections: src.inspections,
      }),
    ),
  };
}
