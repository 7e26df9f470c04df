/**
 * A storm's rain chart (reports/stormChart.ts) is an SVG string drawn on the server: its threshold line
 * sits at the site's threshold on the inch axis (where that axis's own gridline for the value is), the
 * crossing is marked where the curve meets it, the curve ends at the storm's total, times are in the
 * site's zone, every text is escaped, and no `style` attribute is used (the CSP would block it).
 */
import { describe, expect, it } from 'vitest';
import type { RainSeries } from '../../gateway/src/reports/rainSeries.ts';
import { CHART, inchAxis, stormChart, timeTicks, yOfInches } from '../../gateway/src/reports/stormChart.ts';

const H = 3_600_000;
const start = Date.parse('2026-11-20T15:00:00Z');
/** 0.62 in over three hours, a tip every three minutes after the first. */
const series: RainSeries = {
  points: [
    [start, 0],
    ...Array.from({ length: 62 }, (_, i) => [start + (i + 1) * 180_000, (i + 1) * 0.01] as [number, number]),
  ],
  bars: [
    { from: start, inches: 0.2 },
    { from: start + H, inches: 0.2 },
    { from: start + 2 * H, inches: 0.2 },
    { from: start + 3 * H, inches: 0.02 },
  ],
  barMs: H,
};
const end = series.points.at(-1)![0];
const base = {
  id: 'st-1',
  start,
  end,
  inches: 0.62,
  thresholdAt: start + 50 * 180_000,
  gauge: 'North gauge',
  thresholdIn: 0.5,
  timezone: 'America/New_York',
  series,
};

/** The attributes of the first element of a kind with a class. */
function element(svg: string, tag: string, cls: string): Record<string, string> {
  const m = new RegExp(`<${tag} class="${cls}"([^>]*)>`).exec(svg);
  if (!m) throw new Error(`no <${tag} class="${cls}">`);
  return Object.fromEntries([...m[1]!.matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1]!, a[2]!]));
}

describe('the storm chart', () => {
  it('draws the threshold line at the threshold on the inch axis, labelled with its value', () => {
    const svg = stormChart(base);
    const line = element(svg, 'line', 'threshold');
    expect(line.y1).toBe(line.y2);
    const axis = inchAxis(0.62);
    expect(Number(line.y1)).toBe(yOfInches(0.5, axis.max));
    // Where the inch axis's own labels (4 below their gridline) put 0.5 in (between its 0.4 and 0.6 gridlines): the line is there.
    const tick = (v: string) =>
      Number(
        new RegExp(`<text x="[\\d.]+" y="([\\d.]+)" text-anchor="end" data-inches="${v}">`).exec(svg)![1],
      ) - 4;
    const [y4, y6] = [tick('0.4'), tick('0.6')];
    expect(Number(line.y1)).toBeCloseTo(y4 + ((y6 - y4) * (0.5 - 0.4)) / (0.6 - 0.4), 1);
    expect(svg).toContain('>0.5 in threshold</text>');
    expect(svg).toMatch(/data-threshold-in="0.5"/);
    // Above the plot's bottom (0 in) and below its top.
    expect(Number(line.y1)).toBeLessThan(CHART.height - CHART.bottom);
    expect(Number(line.y1)).toBeGreaterThan(CHART.top);
  });

  it("uses the site's own threshold, written as a person writes it", () => {
    const svg = stormChart({ ...base, thresholdIn: 0.3937 });
    expect(svg).toContain('>0.394 in threshold</text>');
    const axis = inchAxis(0.62);
    expect(Number(element(svg, 'line', 'threshold').y1)).toBe(yOfInches(0.3937, axis.max));
  });

  it('marks the crossing on the threshold line, between the storm start and end', () => {
    const svg = stormChart(base);
    const line = element(svg, 'line', 'threshold');
    const dot = element(svg, 'circle', 'crossing');
    expect(dot.cy).toBe(line.y1);
    const curve = element(svg, 'polyline', 'rain')
      .points!.split(' ')
      .map((p) => p.split(',').map(Number) as [number, number]);
    expect(Number(dot.cx)).toBeGreaterThan(curve[0]![0]);
    expect(Number(dot.cx)).toBeLessThan(curve.at(-1)![0]);
    // The curve meets the threshold at the crossing: the 50th tip (0.50 in) is drawn at the marker.
    const at = curve.find(([x]) => x === Number(dot.cx));
    expect(at?.[1]).toBe(Number(dot.cy));
    expect(svg).toContain('reached Nov 20, 12:30 PM');
  });

  it('draws no crossing for a storm that stayed below the threshold', () => {
    const svg = stormChart({ ...base, thresholdAt: undefined, inches: 0.3 });
    expect(svg).not.toContain('class="crossing"');
    expect(svg).toContain('not reached');
  });

  it("ends the curve at the storm's total, and draws a bar per hour", () => {
    const svg = stormChart(base);
    const curve = element(svg, 'polyline', 'rain').points!.split(' ');
    const axis = inchAxis(0.62);
    expect(Number(curve.at(-1)!.split(',')[1])).toBe(yOfInches(0.62, axis.max));
    expect(svg.match(/<rect class="bar"/g)).toHaveLength(4);
    expect(svg).toContain('Rain per hour');
  });

  it("labels times in the site's zone", () => {
    const ny = stormChart(base);
    expect(ny).toContain('Time (EST)');
    expect(ny).toMatch(/>10 AM<\/text>/);
    expect(ny).toMatch(/>Nov 20<\/text>/);
    const utc = stormChart({ ...base, timezone: 'UTC' });
    expect(utc).toContain('Time (UTC)');
    expect(utc).toMatch(/>3 PM<\/text>/);
  });

  it('puts ticks on local hours, also across a change of daylight saving time', () => {
    // Nov 1, 2026: New York goes from EDT to EST at 2 AM local (6 AM UTC).
    const from = Date.parse('2026-11-01T03:00:00Z');
    const { step, ticks } = timeTicks(from, from + 6 * H, 'America/New_York');
    expect(step).toBe(H);
    const hours = ticks.map((t) =>
      new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: 'numeric' }).format(t),
    );
    expect(hours).toEqual(['11 PM', '12 AM', '1 AM', '1 AM', '2 AM', '3 AM', '4 AM']);
    expect(new Set(ticks).size).toBe(ticks.length);
  });

  it('escapes every text and uses no style attribute', () => {
    const svg = stormChart({ ...base, gauge: '<script>alert("x")</script> & co', id: 'a"b<c' });
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co');
    expect(svg).toContain('id="storm-a_b_c-title"');
    expect(svg).not.toMatch(/\sstyle=/);
    // One element tree: every tag opened is closed.
    const opened = (svg.match(/<(svg|text|title|rect|circle)(\s[^>]*)?(?<!\/)>/g) ?? []).length;
    const closed = (svg.match(/<\/(svg|text|title|rect|circle)>/g) ?? []).length;
    expect(closed).toBe(opened);
  });
});
