/**
 * The rain charts of a report's storms: one SVG per storm (`stormChart.ts`) from its gauge's readings
 * (`rainSeries.ts`), at the site's threshold and in its zone. A report draws at most `MAX_CHARTS`, the
 * storms that reached the threshold first (they are the ones an inspection answers), then the others in
 * order; the rest stay in the storm table.
 */
import type { StormDto } from '../../../shared/src/api/alerts.ts';
import type { SiteConfig } from '../config/schema.ts';
import { calibrationAt, type RainReadings, rainSeries } from './rainSeries.ts';
import { stormChart } from './stormChart.ts';

export const MAX_CHARTS = 40;

/** A device as people know it: its name, else its id. */
export function deviceNamer(site: SiteConfig): (id: string) => string {
  const names = new Map(site.devices.map((d) => [d.id, d.name ?? d.id]));
  return (id) => names.get(id) ?? id;
}

export async function stormCharts(
  readings: RainReadings,
  site: SiteConfig,
  storms: readonly StormDto[],
  timezone: string,
): Promise<{ charts: Map<string, string>; leftOut: number }> {
  const drawn = [...storms.filter((s) => s.qualified), ...storms.filter((s) => !s.qualified)].slice(
    0,
    MAX_CHARTS,
  );
  const name = deviceNamer(site);
  const charts = new Map<string, string>();
  for (const s of drawn) {
    const gauge = site.devices.find((d) => d.id === s.deviceId);
    const [start, end] = [Date.parse(s.start), Date.parse(s.end)];
    const series = await rainSeries(readings, {
      siteId: s.siteId,
      deviceId: s.deviceId,
      from: start,
      to: end,
      inchesPerTipAt: calibrationAt(gauge?.inchesPerTip, gauge?.calibrations),
      timezone,
    });
    charts.set(
      s.id,
      stormChart({
        id: s.id,
        start,
        end,
        inches: s.inches,
        thresholdAt: s.thresholdAt ? Date.parse(s.thresholdAt) : undefined,
        gauge: name(s.deviceId),
        thresholdIn: site.storm.thresholdIn,
        timezone,
        series,
      }),
    );
  }
  return { charts, leftOut: storms.length - drawn.length };
}
