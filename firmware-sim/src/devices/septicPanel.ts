import { ALARM_NAMES, type AlarmName } from '../../../shared/src/telemetry.ts';
import { type CommonOptions, diurnalFactor, type Readings, round, SimDevice } from './base.ts';

export type PanelEvent =
  | { at: number; type: 'alarm'; alarm: AlarmName; action: 'on' | 'off' }
  /** The input chatters for `seconds` (a float in turbulence, a loose contact) and ends normal. */
  | { at: number; type: 'alarm'; alarm: AlarmName; action: 'bounce'; seconds: number }
  /** The pump stops working: its alarm comes on and the dosing tank fills until the high-water float trips. */
  | { at: number; type: 'pump-fault' }
  | { at: number; type: 'pump-repair' }
  | { at: number; type: 'blower-fault' }
  | { at: number; type: 'blower-repair' }
  /** The septic tank is pumped: sludge and scum drop to a residue. */
  | { at: number; type: 'pump-out' };

export interface SepticOptions extends Omit<CommonOptions, 'kind'> {
  kind: 'septic-panel' | 'septic-tank';
  liquidDepthIn: number;
  /** Dosing (pump) tank: the level rises with household use and falls in pump cycles. Septic tanks sit at the outlet. */
  dosing?: {
    pumpOnIn: number;
    pumpOffIn: number;
    highWaterIn: number;
    /** Inches of rise a day from household use. */
    usageInPerDay: number;
    /** Inches a minute the pump removes while it runs. */
    pumpInPerMin: number;
    startLevelIn?: number;
  };
  /** Sludge and scum accumulation (reported when given). */
  solids?: {
    sludgeIn: number;
    scumIn: number;
    sludgeInPerDay: number;
    scumInPerDay: number;
    noiseIn?: number;
  };
  events?: PanelEvent[];
  /** While an alarm is active the panel reports this often, for the first 10 minutes after a change. */
  alarmReportMs?: number;
}

const TICK_MS = 60_000;
const FAST_REPORT_WINDOW_MS = 600_000;

/**
 * An alternative system's control panel (or a septic tank's sensor head): tank level, sludge and scum,
 * and the alarm inputs. Reports on every alarm edge, every `alarmReportMs` while an alarm is fresh,
 * and on its heartbeat.
 */
export class SepticPanel extends SimDevice {
  private readonly o: SepticOptions;
  private readonly events: PanelEvent[];
  /** Pending input edges (bounces), in time order. */
  private edges: { at: number; alarm: AlarmName; value: boolean }[] = [];
  private forced: Record<AlarmName, boolean> = {
    highWater: false,
    pump: false,
    blower: false,
    panel: false,
    field: false,
  };
  private floatHigh = false;
  private alarms: Record<AlarmName, boolean> = { ...this.forced };
  private nextTick: number;
  private level: number;
  private pumping = false;
  private pumpOk = true;
  private sludge: number;
  private scum: number;
  private lastAlarmChange = Number.NEGATIVE_INFINITY;
  private nextAlarmReport = Number.POSITIVE_INFINITY;
  private lastTick: number;

  constructor(opts: SepticOptions) {
    super(opts);
    this.o = opts;
    this.events = [...(opts.events ?? [])].sort((a, b) => a.at - b.at);
    this.nextTick = opts.start + TICK_MS;
    this.lastTick = opts.start;
    this.level = opts.dosing
      ? (opts.dosing.startLevelIn ?? opts.dosing.pumpOffIn + 2)
      : opts.liquidDepthIn - 1;
    this.sludge = opts.solids?.sludgeIn ?? 0;
    this.scum = opts.solids?.scumIn ?? 0;
  }

  get alarmState(): Readonly<Record<AlarmName, boolean>> {
    return this.alarms;
  }

  protected modelNextAt(): number {
    return Math.min(
      this.nextTick,
      this.events[0]?.at ?? Number.POSITIVE_INFINITY,
      this.edges[0]?.at ?? Number.POSITIVE_INFINITY,
      this.nextAlarmReport,
    );
  }

  protected modelStep(t: number): boolean {
    let report = false;
    while (this.events.length && this.events[0]!.at <= t) this.apply(this.events.shift()!, t);
    while (this.nextTick <= t) {
      this.physics(this.nextTick);
      this.nextTick += TICK_MS;
    }
    while (this.edges.length && this.edges[0]!.at <= t) {
      const e = this.edges.shift()!;
      if (e.alarm === 'highWater') this.floatHigh = e.value;
      else this.forced[e.alarm] = e.value;
    }
    for (const a of ALARM_NAMES) {
      const v = this.forced[a] || (a === 'highWater' && this.floatHigh);
      if (v !== this.alarms[a]) {
        this.alarms[a] = v;
        this.lastAlarmChange = t;
        report = true;
      }
    }
    if (this.nextAlarmReport <= t) report = true;
    const anyActive = ALARM_NAMES.some((a) => this.alarms[a]);
    const every = this.o.alarmReportMs ?? 60_000;
    this.nextAlarmReport =
      anyActive && t + every <= this.lastAlarmChange + FAST_REPORT_WINDOW_MS
        ? t + every
        : Number.POSITIVE_INFINITY;
    return report;
  }

  private apply(e: PanelEvent, t: number): void {
    switch (e.type) {
      case 'alarm':
        if (e.action === 'bounce') {
          let at = t;
          let v = true;
          const end = t + e.seconds * 1000;
          while (at < end) {
            this.edges.push({ at, alarm: e.alarm, value: v });
            v = !v;
            at += this.rng.int(300, 4000);
          }
          if (!v) this.edges.push({ at: Math.max(at, end), alarm: e.alarm, value: false });
          this.edges.sort((a, b) => a.at - b.at);
        } else if (e.alarm === 'highWater') {
          this.forced.highWater = e.action === 'on';
        } else {
          this.forced[e.alarm] = e.action === 'on';
        }
        break;
      case 'pump-fault':
        this.pumpOk = false;
        this.pumping = false;
        this.forced.pump = true;
        break;
      case 'pump-repair':
        this.pumpOk = true;
        this.forced.pump = false;
        break;
      case 'blower-fault':
        this.forced.blower = true;
        break;
      case 'blower-repair':
        this.forced.blower = false;
        break;
      case 'pump-out':
        this.sludge = Math.min(this.sludge, 0.5);
        this.scum = Math.min(this.scum, 0.2);
        break;
    }
  }

  private physics(t: number): void {
    const dtDays = (t - this.lastTick) / 86_400_000;
    this.lastTick = t;
    const s = this.o.solids;
    if (s) {
      this.sludge += s.sludgeInPerDay * dtDays;
      this.scum += s.scumInPerDay * dtDays;
    }
    const d = this.o.dosing;
    if (!d) return;
    const use = d.usageInPerDay * dtDays * diurnalFactor(t) * this.rng.uniform(0.5, 1.5);
    this.level += use;
    if (this.pumpOk && this.level >= d.pumpOnIn) this.pumping = true;
    if (this.pumping) {
      this.level -= d.pumpInPerMin * (dtDays * 1440);
      if (this.level <= d.pumpOffIn) this.pumping = false;
    }
    this.level = Math.min(this.o.liquidDepthIn, Math.max(0, this.level));
    const high = this.level >= d.highWaterIn;
    const pendingFloat = this.edges.filter((e) => e.alarm === 'highWater');
    const settled = pendingFloat.length ? pendingFloat[pendingFloat.length - 1]!.value : this.floatHigh;
    if (high !== settled) {
      // The float chatters on the waves as the level crosses it, then settles.
      let at = t;
      const n = this.rng.int(1, 3);
      for (let i = 0; i < n; i++) {
        this.edges.push({ at, alarm: 'highWater', value: high });
        this.edges.push({ at: at + this.rng.int(200, 1500), alarm: 'highWater', value: !high });
        at += this.rng.int(2000, 8000);
      }
      this.edges.push({ at, alarm: 'highWater', value: high });
      this.edges.sort((a, b) => a.at - b.at);
    }
  }

  protected readings(): Readings {
    const r: Readings = {};
    const noise = this.o.solids?.noiseIn ?? 0.05;
    if (this.o.dosing) r.levelIn = round(this.level, 2);
    else r.levelIn = round(Math.min(this.o.liquidDepthIn, this.level + this.rng.normal(0, 0.1)), 2);
    if (this.o.solids) {
      r.sludgeIn = round(Math.max(0, this.sludge + this.rng.normal(0, noise)), 2);
      r.scumIn = round(Math.max(0, this.scum + this.rng.normal(0, noise)), 2);
    }
    r.alarms = { ...this.alarms };
    return r;
  }
}
