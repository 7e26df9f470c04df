/**
 * A chart of one panel of GET /api/charts, drawn by uPlot: a figure with its title, the plot (time in the
 * site's zone, drag to zoom, double-click to see the whole range again), a key to its guides, a summary
 * in words and its data behind a <details>. The legal lines, bands and markers come with the panel
 * (guides.ts draws them); the colours are the stylesheet's (theme.ts). `mountChart` returns a handle to
 * destroy it.
 */
import uPlot from 'uplot';
import type { ChartPanel, ChartSeries } from '../../../shared/src/api/charts.ts';
import { formatMeasure } from '../../../shared/src/api/measures.ts';
import { localParts } from '../../../shared/src/time.ts';
import { h } from '../ui/dom.js';
import { alignedData } from './data.js';
import { type DrawnGuides, guideHooks } from './guides.js';
import { onSchemeChange, readTheme, type Theme } from './theme.js';
import { clock, dataTable, day, summary, when } from './words.js';

/** What a chart needs to know of its site. */
export interface ChartFacts {
  /** The site's IANA time zone: every time on the chart is read in it. */
  timezone: string;
  /** The plot's height in CSS pixels (default 220, 180 on a narrow screen). */
  height?: number;
}

export interface ChartHandle {
  readonly element: HTMLElement;
  readonly plot: uPlot;
  destroy(): void;
}

/** A Date whose local fields are the wall clock of `tz` at `ts`, as uPlot's time axis reads them. */
export function zonedDate(ts: number, tz: string): Date {
  const p = localParts(ts, tz);
  return new Date(p.year, p.month - 1, p.day, p.hour, p.minute, p.second, ((ts % 1000) + 1000) % 1000);
}

let counter = 0;
const DAY = 86_400_000;

/**
 * The time axis' words in the site's zone: "Dec 1" for ticks a day or more apart, else "9 PM" or
 * "9:30 PM", with the date under the first tick of each day.
 */
function timeTicks(tz: string): uPlot.Axis.DynamicValues {
  return (_u, splits, _i, _space, incr) => {
    let lastDay = '';
    return splits.map((t) => {
      const d = day(t, tz);
      if (incr >= DAY) return d;
      const c = clock(t, tz).replace(':00 ', ' ');
      const first = d !== lastDay;
      lastDay = d;
      return first ? `${c}\n${d}` : c;
    });
  };
}

/** The y range: the data and the legal lines, with some room; bars and lines start at 0. */
function yRange(p: ChartPanel, axis: number) {
  const lines = p.lines
    .filter((l) => p.series.some((s) => s.measure === l.measure && s.axis === axis))
    .map((l) => l.value);
  const fromZero = lines.length > 0 || p.series.some((s) => s.style === 'bars' && s.axis === axis);
  return (_u: uPlot, min: number | null, max: number | null): uPlot.Range.MinMax => {
    let lo = min ?? (lines.length ? 0 : 0);
    let hi = max ?? (lines.length ? Math.max(...lines) : 1);
    for (const v of lines) {
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    if (fromZero) lo = Math.min(0, lo);
    if (hi === lo) hi = lo + 1;
    // Room above the highest value and line, for the line's words.
    const pad = (hi - lo) * 0.08;
    return [fromZero && lo >= 0 ? lo : lo - pad, hi + Math.max(pad, lines.length ? (hi - lo) * 0.18 : 0)];
  };
}

function seriesOpts(s: ChartSeries, i: number, theme: () => Theme): uPlot.Series {
  const color = () =>
    s.reference ? theme().reference : s.style === 'bars' ? theme().bars : theme().series[i % 4]!;
  const common: uPlot.Series = {
    label: s.unit ? `${s.label} (${s.unit})` : s.label,
    scale: s.axis === 1 ? 'y2' : 'y',
    spanGaps: false,
    value: (_u, v) => (v === null || v === undefined ? '–' : formatMeasure(s.measure, v)),
  };
  if (s.style === 'bars')
    return {
      ...common,
      stroke: color,
      fill: color,
      width: 0,
      paths: uPlot.paths.bars!({ size: [0.86, Number.POSITIVE_INFINITY, 1], align: 1 }),
      points: { show: false },
    };
  return {
    ...common,
    stroke: color,
    width: s.reference ? 1.5 : 2,
    ...(s.reference ? { dash: [6, 4] } : {}),
    // Dots on a sparse series of readings; a storm's running rain is one line.
    points: {
      show: (u, si) => s.bucket !== 'running' && (u.data[si] ?? []).filter((v) => v != null).length < 60,
    },
  };
}

/** The key to a chart's guides: what the lines, shades and marks mean. */
function key(p: ChartPanel): HTMLElement | null {
  const items: HTMLElement[] = [];
  for (const l of p.lines)
    items.push(h('li', null, h('span', { class: 'chart-swatch swatch-line' }), l.label));
  // One entry a kind; the times a device was not in service one a reason ("Not yet installed", "Retired").
  const kinds = new Map<string, { kind: string; label: string }>();
  for (const b of p.bands) {
    const k = b.kind === 'absent' ? `${b.kind}:${b.label}` : b.kind;
    if (!kinds.has(k)) kinds.set(k, { kind: b.kind, label: b.kind === 'storm' ? 'Storm event' : b.label });
  }
  for (const { kind, label } of kinds.values())
    items.push(h('li', null, h('span', { class: `chart-swatch swatch-${kind}` }), `shaded: ${label}`));
  for (const label of new Set(p.markers.map((m) => m.label)))
    items.push(h('li', null, h('span', { class: 'chart-swatch swatch-marker' }), label));
  return items.length ? h('ul', { class: 'chart-key small' }, items) : null;
}

/** Draws `panel` into `container` (emptied first). */
export function mountChart(container: HTMLElement, panel: ChartPanel, facts: ChartFacts): ChartHandle {
  const id = `chart-${++counter}`;
  const tz = facts.timezone;
  const plotEl = h('div', { class: 'chart-plot', 'aria-hidden': 'true' });
  const text = summary(panel, tz);
  const element = h(
    'figure',
    {
      class: 'chart-panel',
      'data-panel': panel.id,
      'aria-labelledby': `${id}-title`,
      'aria-describedby': `${id}-summary`,
    },
    h('figcaption', { class: 'chart-title', id: `${id}-title` }, panel.title),
    plotEl,
    key(panel),
    h('p', { class: 'chart-summary small', id: `${id}-summary` }, text),
    dataTable(panel, tz),
  );
  container.replaceChildren(element);
  let theme = readTheme(element);
  const record = (g: DrawnGuides) => {
    element.dataset.guides = JSON.stringify(g);
  };
  const hooks = guideHooks(panel, () => theme, record);
  const narrow = () => (container.clientWidth || 600) < 500;
  const width = () => Math.max(260, plotEl.clientWidth || container.clientWidth || 600);
  const height = () => facts.height ?? (narrow() ? 180 : 220);
  const axisFont = () => theme.font;
  const axis = (i: number): uPlot.Axis | undefined => {
    const a = panel.axes[i];
    if (!a) return undefined;
    return {
      scale: i === 0 ? 'y' : 'y2',
      side: i === 0 ? 3 : 1,
      label: a.label,
      labelSize: 20,
      labelGap: 2,
      labelFont: axisFont(),
      font: axisFont(),
      size: (_u, values) => 12 + 7 * Math.max(2, ...(values ?? []).map((v) => String(v).length)),
      stroke: () => theme.fg,
      grid: i === 0 ? { stroke: () => theme.grid, width: 1 } : { show: false },
      ticks: { stroke: () => theme.grid, width: 1, size: 4 },
    };
  };
  const start = Date.parse(panel.start);
  const opts: uPlot.Options = {
    width: width(),
    height: height(),
    ms: 1,
    tzDate: (ts) => zonedDate(ts, tz),
    scales: {
      x: { time: true, range: (_u, lo, hi) => [lo ?? start, hi ?? start + panel.count * panel.bucketMs] },
      y: { range: yRange(panel, 0) },
      y2: { range: yRange(panel, 1) },
    },
    series: [
      { label: 'Time', value: (_u, v) => (v === null ? '–' : when(v, tz)) },
      ...panel.series.map((s, i) => seriesOpts(s, i, () => theme)),
    ],
    axes: [
      {
        font: axisFont(),
        values: timeTicks(tz),
        stroke: () => theme.fg,
        grid: { stroke: () => theme.grid, width: 1 },
        ticks: { stroke: () => theme.grid, width: 1, size: 4 },
      },
      ...[axis(0), axis(1)].filter((a): a is uPlot.Axis => a !== undefined),
    ],
    cursor: { drag: { x: true, y: false, setScale: true }, points: { size: 6 } },
    // The series' key (click one to hide it); the values are in the data table.
    legend: { show: true, live: false },
    hooks: {
      drawClear: hooks.drawClear,
      draw: hooks.draw,
    },
  };
  const data = alignedData(panel) as uPlot.AlignedData;
  const plot = new uPlot(opts, data, plotEl);
  element.dataset.ready = 'true';
  const resize = new ResizeObserver(() => {
    const w = width();
    if (Math.abs(w - plot.width) > 1) plot.setSize({ width: w, height: height() });
  });
  resize.observe(container);
  const stopScheme = onSchemeChange(() => {
    theme = readTheme(element);
    plot.redraw(false);
  });
  return {
    element,
    plot,
    destroy() {
      resize.disconnect();
      stopScheme();
      plot.destroy();
      element.remove();
    },
  };
}
