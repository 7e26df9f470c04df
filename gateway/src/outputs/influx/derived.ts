/**
 * Fields the gateway adds to a reading's `telemetry` line from the device's and the site's configuration,
 * so a dashboard over InfluxDB can draw each site's own legal line next to the value (docs/integrations.md):
 *
 * - rain gauges with `rainTips`: `rainTotalIn`, the counter in inches (tips x the inches per tip in force
 *   at the reading's time), and `thresholdIn`, the site's storm threshold;
 * - sediment traps with `sedimentIn`: `sedimentPct`, the share of the design capacity filled (by volume
 *   when the trap has a stage-storage table), and `cleanoutPct`, the site's cleanout line (50);
 * - tanks with `levelIn` and a high level: `highLevelIn`;
 * - every reading: `receivedAtMs`, when the gateway received it (an integer, epoch ms), so the newest
 *   point of a device tells when it was last heard from whatever it reported.
 *
 * The other fields are floats, like the readings (the same field name always has one type).
 */
import type { Reading } from '../../../../shared/src/telemetry.ts';
import type { DeviceConfig, SiteConfig } from '../../config/schema.ts';
import { fractionFilled } from '../../rules/sediment-cleanout/evaluator.ts';
import { floatField, intField } from './lineProtocol.ts';

/** A device and its site, as the live catalogue holds them. */
export interface DeviceOfReading {
  site: SiteConfig;
  device: DeviceConfig;
}

/** The inches per tip a reading at `ts` was counted at (earlier calibrations, then the current one). */
export function inchesPerTipAt(device: DeviceConfig, ts: number): number | undefined {
  for (const c of device.calibrations ?? []) if (ts < c.until) return c.inchesPerTip;
  return device.inchesPerTip;
}

const round = (v: number) => Math.round(v * 1e6) / 1e6;

/** The derived fields of one reading as `,name=value` pairs. */
export function derivedFields(r: Reading, of: DeviceOfReading | undefined): string {
  const received = intField(r.receivedAt);
  const head = received === undefined ? '' : `,receivedAtMs=${received}`;
  if (!of) return head;
  const { site, device } = of;
  const out: Array<[string, number | undefined]> = [];
  const v = r.values;
  if (v.rainTips !== undefined) {
    const ipt = inchesPerTipAt(device, r.ts);
    if (ipt !== undefined) out.push(['rainTotalIn', round(v.rainTips * ipt)]);
    out.push(['thresholdIn', site.storm.thresholdIn]);
  }
  if (v.sedimentIn !== undefined) {
    const f = fractionFilled(device, v.sedimentIn);
    if (f !== undefined) out.push(['sedimentPct', round(f * 100)]);
    out.push(['cleanoutPct', round(site.sedimentCleanoutFraction * 100)]);
  }
  if (v.levelIn !== undefined && device.highLevelIn !== undefined)
    out.push(['highLevelIn', device.highLevelIn]);
  let fs = head;
  for (const [name, value] of out) {
    const f = value === undefined ? undefined : floatField(value);
    if (f !== undefined) fs += `,${name}=${f}`;
  }
  return fs;
}
