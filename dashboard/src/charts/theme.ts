/**
 * A chart's colours, read from the CSS custom properties of its element (charts.css), so light and dark
 * (prefers-color-scheme) are the stylesheet's to say. A chart reads them again when the scheme changes.
 */

export interface Theme {
  fg: string;
  muted: string;
  grid: string;
  /** The series in order: the first is a device's main measure. */
  series: string[];
  bars: string;
  reference: string;
  /** Legal lines: a threshold, half of the capacity, the high level. */
  line: string;
  storm: string;
  alarm: string;
  gap: string;
  /** A device not yet installed, or retired: no gap. */
  absent: string;
  marker: string;
  font: string;
}

const SERIES = ['--chart-series-1', '--chart-series-2', '--chart-series-3', '--chart-series-4'];

/** The theme in force on `el` now. */
export function readTheme(el: Element): Theme {
  const css = getComputedStyle(el);
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return {
    fg: v('--chart-fg', '#1b1f24'),
    muted: v('--chart-muted', '#56606b'),
    grid: v('--chart-grid', '#dde3e8'),
    series: SERIES.map((s, i) => v(s, ['#1f5fa8', '#8a4b00', '#2d7d46', '#6b3fa0'][i]!)),
    bars: v('--chart-bars', '#4a8fd6'),
    reference: v('--chart-reference', '#8a4b00'),
    line: v('--chart-line', '#c0142b'),
    storm: v('--chart-storm', 'rgba(31, 95, 168, 0.14)'),
    alarm: v('--chart-alarm', 'rgba(192, 20, 43, 0.16)'),
    gap: v('--chart-gap', 'rgba(91, 58, 140, 0.16)'),
    absent: v('--chart-absent', 'rgba(86, 96, 107, 0.12)'),
    marker: v('--chart-marker', '#c0142b'),
    font: `12px ${css.fontFamily || 'system-ui, sans-serif'}`,
  };
}

const DARK = '(prefers-color-scheme: dark)';

/** Calls `fn` whenever the colour scheme changes; returns what stops it. */
export function onSchemeChange(fn: () => void): () => void {
  const mq = window.matchMedia(DARK);
  mq.addEventListener('change', fn);
  return () => mq.removeEventListener('change', fn);
}
