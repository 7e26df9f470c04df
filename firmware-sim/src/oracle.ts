import { withinDays } from '../../shared/src/days.ts';
import type { TelemetryPayload } from '../../shared/src/telemetry.ts';
import type { ApiAlert } from './compare.ts';
import type { DeviceOutput } from './devices/base.ts';
import type { SimDeviceSpec, SimSiteSpec } from './scenario/schema.ts';
import { SIM_TIMEZONE } from './util/time.ts';

const HOUR = 3_600_000;

export interface OracleSettings {
  thresholdIn: number;
  interEventHours: number;
  dueHours: number;
  alarmHoldSeconds: number;
  equipmentRemedyDays: number;
  fieldRemedyDays: number;
  sedimentCleanoutFraction: number;
  septicFraction: number;
}

export const DEFAULT_SETTINGS: OracleSettings = {
  thresholdIn: 0.5,
  interEventHours: 6,
  dueHours: 24,
  alarmHoldSeconds: 60,
  equipmentRemedyDays: 5,
  fieldRemedyDays: 30,
  sedimentCleanoutFraction: 0.5,
  septicFraction: 1 / 3,
};

export interface StormSummary {
  start: number;
  end: number;
  tips: number;
  thresholdAt?: number;
}

const tsOf = (p: TelemetryPayload) => (typeof p.ts === 'number' ? p.ts : Date.parse(p.ts!));

/** Tip times a gauge's readings imply: counter deltas (a drop is a reset) or interval depths. Duplicates (same seq) count once. */
export function tipsFromReadings(payloads: readonly TelemetryPayload[], inchesPerTip: number): number[] {
  const sorted = [...payloads].sort((a, b) => tsOf(a) - tsOf(b));
  const tips: number[] = [];
  let prev: number | undefined;
  const seen = new Set<string>();
  for (const p of sorted) {
    const key = `${p.seq}@${tsOf(p)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    let n = 0;
    if (p.rainTips !== undefined) {
      n = prev === undefined ? 0 : p.rainTips >= prev ? p.rainTips - prev : p.rainTips;
      prev = p.rainTips;
    } else if (p.rainIn !== undefined) n = Math.round(p.rainIn / inchesPerTip);
    for (let i = 0; i < n; i++) tips.push(tsOf(p));
  }
  return tips;
}

/** Splits tips into storm events by dry periods of at least `interEventHours`. */
export function stormEvents(
  tips: readonly number[],
  inchesPerTip: number,
  s = DEFAULT_SETTINGS,
): StormSummary[] {
  const need = Math.ceil(s.thresholdIn / inchesPerTip - 1e-9);
  const events: StormSummary[] = [];
  let cur: StormSummary | undefined;
  for (const t of tips) {
    if (!cur || t - cur.end >= s.interEventHours * HOUR) {
      cur = { start: t, end: t, tips: 0 };
      events.push(cur);
    }
    cur.end = t;
    cur.tips++;
    if (cur.tips === need) cur.thresholdAt = t;
  }
  return events;
}

/**
 * The alerts a gateway that follows the town law and the rules of gateway/src/rules/ should raise from what the devices sent (ordered by
 * source time). Used to check that scenario expectations are consistent with the models.
 */
export function expectedFromOutputs(
  sites: readonly SimSiteSpec[],
  records: readonly { siteId: string; deviceId: string; output: DeviceOutput }[],
  s = DEFAULT_SETTINGS,
): ApiAlert[] {
  const alerts: ApiAlert[] = [];
  const add = (siteId: string, deviceId: string, rule: string, dueAt?: number) =>
    alerts.push({
      id: `oracle-${alerts.length + 1}`,
      rule,
      siteId,
      deviceId,
      status: 'open',
      ...(dueAt !== undefined ? { dueAt: new Date(dueAt).toISOString() } : {}),
    });
  for (const site of sites)
    for (const spec of site.devices) {
      const payloads = records
        .filter((r) => r.siteId === site.id && r.deviceId === spec.id && r.output.type === 'telemetry')
        .map((r) => (r.output as { payload: TelemetryPayload }).payload)
        .sort((a, b) => tsOf(a) - tsOf(b));
      deviceAlerts(site, spec, payloads, s, add);
    }
  return alerts;
}

function deviceAlerts(
  site: SimSiteSpec,
  spec: SimDeviceSpec,
  payloads: TelemetryPayload[],
  s: OracleSettings,
  add: (siteId: string, deviceId: string, rule: string, dueAt?: number) => void,
): void {
  if (spec.model === 'rain-gauge') {
    if (site.kind !== 'construction') return;
    for (const e of stormEvents(tipsFromReadings(payloads, spec.inchesPerTip), spec.inchesPerTip, s))
      if (e.thresholdAt !== undefined) add(site.id, spec.id, 'storm-inspection', e.end + s.dueHours * HOUR);
  } else if (spec.model === 'sediment-trap') {
    let open = false;
    let peak = 0;
    for (const p of payloads) {
      const v = p.sedimentIn ?? 0;
      if (open && peak - v >= 0.25 * spec.designDepthIn) open = false;
      peak = open ? Math.max(peak, v) : v;
      if (!open && v >= s.sedimentCleanoutFraction * spec.designDepthIn) {
        open = true;
        add(site.id, spec.id, 'sediment-cleanout');
      }
    }
  } else if (spec.model === 'septic-panel' || spec.model === 'septic-tank') {
    for (const name of ['highWater', 'pump', 'blower', 'panel', 'field'] as const) {
      let began: number | undefined;
      let counted = false;
      for (const p of payloads) {
        const on = p.alarms?.[name] === true;
        const t = tsOf(p);
        if (!on) {
          began = undefined;
          counted = false;
          continue;
        }
        began ??= t;
        if (!counted && t - began >= s.alarmHoldSeconds * 1000) {
          counted = true;
          // The law's days: the day the alarm began not counted, the last day whole (its last instant).
          const due = (days: number) => withinDays(began!, days, SIM_TIMEZONE) - 1;
          if (name === 'field') add(site.id, spec.id, 'field-remedy', due(s.fieldRemedyDays));
          else if (site.kind === 'alternative-system')
            add(site.id, spec.id, 'equipment-remedy', due(s.equipmentRemedyDays));
        }
      }
    }
    // A tank with no pump-out on record (a scenario's sites have none) is asked for its last one at once.
    add(site.id, spec.id, 'septic-pumping');
    if (payloads.some((p) => (p.sludgeIn ?? 0) + (p.scumIn ?? 0) >= s.septicFraction * spec.liquidDepthIn))
      add(site.id, spec.id, 'septic-pumping');
  } else if (spec.model === 'holding-tank') {
    // One occurrence per filling: it ends with a pump-out (the level falls well below the high level).
    let high = false;
    for (const p of payloads) {
      const level = p.levelIn ?? 0;
      if (!high && (p.alarms?.highWater === true || level >= spec.highLevelIn)) {
        high = true;
        add(site.id, spec.id, 'holding-tank-pumpout');
      } else if (high && level < spec.highLevelIn / 2) high = false;
    }
  }
}
