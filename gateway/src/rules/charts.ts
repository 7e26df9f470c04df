/**
 * What a rule adds to the charts of a device it watches (`RuleModule.charts`): the measure its law is read
 * in (inches of rain from a tip count, a share of a trap's capacity from a depth), its legal lines, what
 * a reading is compared with (the background plus the margin), how long a silence is a gap, and marks
 * from its own alerts and from the inspections that meet it. The API's chart builder asks every module
 * that applies to the device (`index.ts`: `deviceCharts`), never naming a rule.
 */
import type { AlertDto } from '../../../shared/src/api/alerts.ts';
import type { MeasureId } from '../../../shared/src/api/measures.ts';
import type { ReadingName } from '../../../shared/src/telemetry.ts';
import type { DeviceView, RuleParams, SiteView } from './context.ts';

/** A reading turned into the measure a law is read in. It takes the reading's place on the charts. */
export interface ChartDerivation {
  measure: MeasureId;
  from: ReadingName;
  /**
   * The reading is a counter: `value` is given its increase since the reading before (a drop is a
   * restart: the new count is the increase), never the count itself.
   */
  counter?: boolean;
  /** The value in the measure's unit, of a reading (or increase) `v` at source time `ts`. */
  value(v: number, ts: number): number | undefined;
}

/** A legal line on the series of a measure, in its unit. */
export interface ChartRuleLine {
  measure: MeasureId;
  value: number;
  label: string;
}

/** A series of other devices' readings plus `offset`, shown beside the device's own (a comparison). */
export interface ChartReference {
  measure: MeasureId;
  label: string;
  devices: readonly string[];
  reading: ReadingName;
  offset: number;
}

/** A moment on the series of a measure (epoch ms). */
export interface ChartMark {
  measure: MeasureId;
  at: number;
  label: string;
}

/** One rule's part of a device's charts. */
export interface DeviceCharts {
  derive?: readonly ChartDerivation[];
  lines?: readonly ChartRuleLine[];
  references?: readonly ChartReference[];
  /** A silence longer than this is a gap in the evidence (shown as a gap, never as a dry spell). */
  gapMs?: number;
  /** Inspections of these kinds at the site mark the device's chart ("Cleanout recorded"). */
  inspections?: { kinds: readonly string[]; measure: MeasureId; label: string };
}

export interface RuleCharts<P extends RuleParams = RuleParams> {
  /** Its part of the charts of a device it applies to (undefined: none). */
  device(device: DeviceView<P['device']>, site: SiteView<P>): DeviceCharts | undefined;
  /** Marks from one of its alerts of the device (a cleanout seen in the data closing it). */
  marks?(alert: AlertDto): ChartMark[];
}
