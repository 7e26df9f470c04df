/**
 * The law drawn on a chart, in uPlot's hooks: the bands (storms, alarm episodes, gaps in the evidence,
 * the times a device was not in service)
 * under the grid and the series (`drawClear`), the legal lines with their words and the markers over
 * them (`draw`). Each drawing records where it went, computed with the plot's own valToPos, on the
 * chart's element (`data-guides`, canvas pixels), so what is drawn can be checked against the scales.
 */
import type uPlot from 'uplot';
import type { ChartPanel } from '../../../shared/src/api/charts.ts';
import type { Theme } from './theme.js';

/** Where the guides went, in canvas pixels. */
export interface DrawnGuides {
  lines: Array<{ label: string; value: number; y: number; x0: number; x1: number; color: string }>;
  bands: Array<{ kind: string; x0: number; x1: number }>;
  markers: Array<{ label: string; x: number }>;
  /** The plotting area (canvas pixels) and the scales' ranges it was drawn with. */
  bbox: { left: number; top: number; width: number; height: number };
  scales: Record<string, { min: number | null; max: number | null }>;
}

/** The scale a measure's series is read on ('y' or 'y2'); undefined when no series shows it. */
export function scaleOf(p: ChartPanel, measure: string): string | undefined {
  const s = p.series.find((x) => x.measure === measure);
  return s === undefined ? undefined : s.axis === 1 ? 'y2' : 'y';
}

const BAND_COLOR = { storm: 'storm', alarm: 'alarm', gap: 'gap', absent: 'absent' } as const;

export function guideHooks(p: ChartPanel, theme: () => Theme, record: (g: DrawnGuides) => void) {
  const empty = (u: uPlot): DrawnGuides => ({
    lines: [],
    bands: [],
    markers: [],
    bbox: { ...u.bbox },
    scales: Object.fromEntries(
      Object.entries(u.scales).map(([k, v]) => [k, { min: v.min ?? null, max: v.max ?? null }]),
    ),
  });
  let drawn: DrawnGuides | undefined;
  const bands = p.bands.map((b) => ({ ...b, a: Date.parse(b.from), z: Date.parse(b.to) }));
  const markers = p.markers.map((m) => ({ ...m, at: Date.parse(m.at) }));

  const drawBands = (u: uPlot) => {
    const t = theme();
    const { ctx, bbox } = u;
    const d = empty(u);
    drawn = d;
    ctx.save();
    ctx.beginPath();
    ctx.rect(bbox.left, bbox.top, bbox.width, bbox.height);
    ctx.clip();
    // The times out of service and the gaps first: a storm or an alarm over them still shows.
    for (const kind of ['absent', 'gap', 'storm', 'alarm'] as const)
      for (const b of bands.filter((x) => x.kind === kind)) {
        const x0 = u.valToPos(b.a, 'x', true);
        const x1 = Math.max(u.valToPos(b.z, 'x', true), x0 + 2 * devicePixelRatio);
        if (x1 < bbox.left || x0 > bbox.left + bbox.width) continue;
        ctx.fillStyle = t[BAND_COLOR[kind]];
        ctx.fillRect(x0, bbox.top, x1 - x0, bbox.height);
        d.bands.push({ kind, x0: Math.round(x0), x1: Math.round(x1) });
      }
    ctx.restore();
  };

  const drawLines = (u: uPlot) => {
    const t = theme();
    const { ctx, bbox } = u;
    const px = devicePixelRatio;
    const d = drawn ?? empty(u);
    drawn = undefined;
    ctx.save();
    ctx.beginPath();
    ctx.rect(bbox.left, bbox.top, bbox.width, bbox.height);
    ctx.clip();
    for (const m of markers) {
      const x = Math.round(u.valToPos(m.at, 'x', true));
      if (x < bbox.left || x > bbox.left + bbox.width) continue;
      ctx.strokeStyle = t.marker;
      ctx.lineWidth = 1.5 * px;
      ctx.setLineDash([4 * px, 3 * px]);
      ctx.beginPath();
      ctx.moveTo(x, bbox.top);
      ctx.lineTo(x, bbox.top + bbox.height);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = t.marker;
      ctx.beginPath();
      ctx.moveTo(x - 5 * px, bbox.top);
      ctx.lineTo(x + 5 * px, bbox.top);
      ctx.lineTo(x, bbox.top + 7 * px);
      ctx.closePath();
      ctx.fill();
      d.markers.push({ label: m.label, x });
    }
    ctx.font = t.font.replace(/^(\d+)px/, (_, n: string) => `${Number(n) * px}px`);
    ctx.textAlign = 'right';
    ctx.textBaseline = 'bottom';
    for (const l of p.lines) {
      const scale = scaleOf(p, l.measure);
      if (!scale) continue;
      const y = Math.round(u.valToPos(l.value, scale, true));
      if (y < bbox.top || y > bbox.top + bbox.height) continue;
      ctx.strokeStyle = t.line;
      ctx.lineWidth = 2 * px;
      ctx.beginPath();
      ctx.moveTo(bbox.left, y);
      ctx.lineTo(bbox.left + bbox.width, y);
      ctx.stroke();
      ctx.fillStyle = t.line;
      // Its words above it, or under it when it runs along the top.
      const above = y - 16 * px > bbox.top;
      ctx.textBaseline = above ? 'bottom' : 'top';
      ctx.fillText(l.label, bbox.left + bbox.width - 4 * px, above ? y - 3 * px : y + 3 * px);
      d.lines.push({
        label: l.label,
        value: l.value,
        y,
        x0: Math.round(bbox.left),
        x1: Math.round(bbox.left + bbox.width),
        color: t.line,
      });
    }
    ctx.restore();
    record(d);
  };

  return { drawClear: [drawBands], draw: [drawLines] };
}
