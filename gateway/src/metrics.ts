/** A small Prometheus text-format registry: counters, gauges and histograms with labels. */
import { monitorEventLoopDelay } from 'node:perf_hooks';

type Labels = Record<string, string>;

const labelKey = (l: Labels | undefined) =>
  l
    ? Object.keys(l)
        .sort()
        .map(
          (k) => `${k}="${String(l[k]).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`,
        )
        .join(',')
    : '';

abstract class Metric {
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  abstract render(): string[];
}

export class Counter extends Metric {
  private values = new Map<string, number>();
  inc(labels?: Labels, by = 1): void {
    const k = labelKey(labels);
    this.values.set(k, (this.values.get(k) ?? 0) + by);
  }
  get(labels?: Labels): number {
    return this.values.get(labelKey(labels)) ?? 0;
  }
  /** A handle for one label set, for hot paths: the label key is computed once. */
  bind(labels?: Labels): (by?: number) => void {
    const k = labelKey(labels);
    if (!this.values.has(k)) this.values.set(k, 0);
    return (by = 1) => {
      this.values.set(k, (this.values.get(k) ?? 0) + by);
    };
  }
  render(): string[] {
    const out = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    if (this.values.size === 0) out.push(`${this.name} 0`);
    for (const [k, v] of this.values) out.push(`${this.name}${k ? `{${k}}` : ''} ${v}`);
    return out;
  }
}

export class Gauge extends Metric {
  private values = new Map<string, number>();
  private collectors: Array<(set: (v: number, labels?: Labels) => void) => void> = [];
  set(v: number, labels?: Labels): void {
    this.values.set(labelKey(labels), v);
  }
  /** A value read at scrape time. */
  collect(fn: (set: (v: number, labels?: Labels) => void) => void): void {
    this.collectors.push(fn);
  }
  get(labels?: Labels): number {
    return this.values.get(labelKey(labels)) ?? 0;
  }
  /** Forgets every value (a collector whose label sets come and go clears them before setting). */
  clear(): void {
    this.values.clear();
  }
  render(): string[] {
    for (const c of this.collectors) c((v, l) => this.set(v, l));
    const out = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`];
    for (const [k, v] of this.values) out.push(`${this.name}${k ? `{${k}}` : ''} ${v}`);
    return out;
  }
}

export class Histogram extends Metric {
  private series = new Map<string, { counts: number[]; sum: number; count: number }>();
  constructor(
    name: string,
    help: string,
    readonly buckets: number[] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  ) {
    super(name, help);
  }
  observe(v: number, labels?: Labels): void {
    const k = labelKey(labels);
    let s = this.series.get(k);
    if (!s) {
      s = { counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(k, s);
    }
    for (let i = 0; i < this.buckets.length; i++) if (v <= this.buckets[i]!) s.counts[i]!++;
    s.sum += v;
    s.count++;
  }
  render(): string[] {
    const out = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const [k, s] of this.series) {
      const pre = k ? `${k},` : '';
      for (let i = 0; i < this.buckets.length; i++)
        out.push(`${this.name}_bucket{${pre}le="${this.buckets[i]}"} ${s.counts[i]}`);
      out.push(`${this.name}_bucket{${pre}le="+Inf"} ${s.count}`);
      out.push(`${this.name}_sum${k ? `{${k}}` : ''} ${s.sum}`);
      out.push(`${this.name}_count${k ? `{${k}}` : ''} ${s.count}`);
    }
    return out;
  }
}

export class Registry {
  private metrics = new Map<string, Metric>();
  private add<M extends Metric>(m: M): M {
    const existing = this.metrics.get(m.name);
    if (existing) return existing as M;
    this.metrics.set(m.name, m);
    return m;
  }
  counter(name: string, help: string): Counter {
    return this.add(new Counter(name, help));
  }
  gauge(name: string, help: string): Gauge {
    return this.add(new Gauge(name, help));
  }
  histogram(name: string, help: string, buckets?: number[]): Histogram {
    return this.add(new Histogram(name, help, buckets));
  }
  render(): string {
    return `${[...this.metrics.values()].flatMap((m) => m.render()).join('\n')}\n`;
  }
}

/** The process's own gauges: resident memory, the V8 heap by kind, and the event loop's delay. */
export function processMetrics(metrics: Registry): Registry {
  // Sampled every 10 ms; each scrape reads the delays since the one before and starts afresh.
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  metrics
    .gauge(
      'nodejs_eventloop_delay_seconds',
      'How late the event loop ran its timers since the last scrape, by percentile (p50, p99, and max: the longest)',
    )
    .collect((set) => {
      if (delay.count > 0) {
        set(delay.percentile(50) / 1e9, { percentile: 'p50' });
        set(delay.percentile(99) / 1e9, { percentile: 'p99' });
        set(delay.max / 1e9, { percentile: 'max' });
      }
      delay.reset();
    });
  metrics
    .gauge('process_resident_memory_bytes', 'Resident memory of the gateway process')
    .collect((set) => set(process.memoryUsage.rss()));
  metrics
    .gauge('nodejs_memory_bytes', 'Node.js memory by kind (heapUsed, heapTotal, external, arrayBuffers)')
    .collect((set) => {
      const m = process.memoryUsage();
      for (const kind of ['heapUsed', 'heapTotal', 'external', 'arrayBuffers'] as const)
        set(m[kind], { kind });
    });
  return metrics;
}
