/**
 * What real logger files do besides recording rain, and how the import deals with it.
 *
 * While the rows are read (by each format):
 *  - counter restarts: a HOBO cumulative count that drops was reset; the new value counts as tips since 0
 *    (CumulativeCount);
 *  - the clock set back: rows earlier than the row before are counted, and the tips sorted by time (RowClock);
 *  - mislabelled units: a TOA5 rain column's units row may not match its values; the tip size is taken from
 *    the values (whole multiples of a common tip), the label only breaking ties (decideTipSize).
 *
 * Then the steps on the tips, in this order, each counted (applyQuirks):
 *  1. bounce: a tip less than `bounceMs` (1000) after the last kept tip, from a different row, is one
 *     bounced tip; the first is kept. Only possible when the file logs times to the second or finer.
 *  2. start: tips before `skipBefore` are installation tips; without `skipBefore`, a first tip followed
 *     by more than `installationGapHours` (24) of nothing is flagged as an installation tip (for TOA5
 *     only when the table starts at RECORD 0, i.e. the file begins at the logger's start).
 *  3. download: tips within `downloadWindowMinutes` (10) of a logger event row (HOBO download,
 *     coupler, stop) are a person handling the gauge, not rain.
 */
import { splitLines } from './csv.ts';
import { runSliced, type Stepped, yieldToLoop } from './steps.ts';
import {
  type ParseMeta,
  type ParseOptions,
  type ParseResult,
  type RawParse,
  type ResolvedOptions,
  resolveParseOptions,
  type SkippedRow,
  type Tip,
} from './types.ts';

/** A logger's cumulative event count, row by row, as tips; a count that drops is a counter restart. */
export class CumulativeCount {
  readonly restarts: ParseMeta['counterRestarts'] = [];
  private prev = 0;

  /** The tips the row's count `n` adds: the increase, or `n` itself after a restart. */
  add(line: number, n: number): number {
    let k: number;
    if (n >= this.prev) k = n - this.prev;
    else {
      this.restarts.push({ line, from: this.prev, to: n });
      k = n;
    }
    this.prev = n;
    return k;
  }

  /** Whether the counter restarted on this line. */
  restartedAt(line: number): boolean {
    return this.restarts.at(-1)?.line === line;
  }
}

/** The rows' times: the earliest, and how many rows are earlier than the row before (clock set back). */
export class RowClock {
  firstRowTs: number | undefined;
  outOfOrderRows = 0;
  private last = Number.NEGATIVE_INFINITY;

  see(ts: number): void {
    if (ts < this.last) this.outOfOrderRows++;
    this.last = ts;
    if (this.firstRowTs === undefined || ts < this.firstRowTs) this.firstRowTs = ts;
  }
}

export interface TipSize {
  unit: 'mm' | 'in';
  /** Tip size in the unit of the values. */
  tip: number;
  tipMm: number;
}

/** Whether `v` is a whole number (at least one) of tips of size `tip`. */
export const wholeTips = (v: number, tip: number) =>
  Math.abs(v / tip - Math.round(v / tip)) < 1e-3 && v / tip >= 0.5;

function unitFromLabel(label: string): 'mm' | 'in' | undefined {
  if (/^\s*mm\b|millim/i.test(label)) return 'mm';
  if (/^\s*(in|inch|inches)\b/i.test(label)) return 'in';
  return undefined;
}

/**
 * The tip size of rain-per-row values: the candidate (0.2 mm, 0.01 in, 0.254, 0.1, 0.5 mm, or `tipMm`
 * in mm or inches) of which most values are whole multiples; the units label only orders the
 * candidates, and the note says when the values contradict it.
 */
export function decideTipSize(
  values: number[],
  label: string,
  tipMm: number | undefined,
): { size: TipSize; note: string } {
  const labelUnit = unitFromLabel(label);
  let candidates: TipSize[];
  if (tipMm !== undefined) {
    const mm: TipSize = { unit: 'mm', tip: tipMm, tipMm };
    const inch: TipSize = { unit: 'in', tip: tipMm / 25.4, tipMm };
    candidates = labelUnit === 'in' ? [inch, mm] : [mm, inch];
  } else {
    const inch: TipSize = { unit: 'in', tip: 0.01, tipMm: 0.254 };
    const mm: TipSize[] = [
      { unit: 'mm', tip: 0.2, tipMm: 0.2 },
      { unit: 'mm', tip: 0.254, tipMm: 0.254 },
      { unit: 'mm', tip: 0.1, tipMm: 0.1 },
      { unit: 'mm', tip: 0.5, tipMm: 0.5 },
    ];
    candidates = labelUnit === 'mm' ? [...mm, inch] : [mm[0]!, inch, ...mm.slice(1)];
  }
  const unitName = (u: 'mm' | 'in') => (u === 'mm' ? 'millimetres' : 'inches');
  const describe = (c: TipSize) => `${Number(c.tip.toPrecision(6))} ${c.unit} per tip`;
  if (values.length === 0) {
    const c = candidates.find((x) => x.unit === labelUnit) ?? candidates[0]!;
    return { size: c, note: `no rain rows; assumed ${describe(c)}` };
  }
  let best = candidates[0]!;
  let bestFit = -1;
  for (const c of candidates) {
    let fit = 0;
    for (const v of values) if (wholeTips(v, c.tip)) fit++;
    if (fit > bestFit) {
      best = c;
      bestFit = fit;
    }
    if (fit === values.length) break;
  }
  const source = tipMm !== undefined ? ' (tipMm option)' : '';
  let note = `values are whole multiples of ${Number(best.tip.toPrecision(6))}: read as ${unitName(best.unit)}, ${describe(best)}${source}`;
  if (bestFit < values.length)
    note = `${values.length - bestFit} of ${values.length} values are not whole tips of ${describe(best)}${source}`;
  if (labelUnit !== undefined && labelUnit !== best.unit)
    note += `; the units row says "${label}", which the values contradict`;
  else if (labelUnit === undefined) note += `; the units row says "${label}"`;
  return { size: best, note };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Removes bounced tips: a tip less than bounceMs after the last kept one, from another row. */
export function removeBounces(
  tips: readonly Tip[],
  bounceMs: number,
): { kept: Tip[]; removed: SkippedRow[] } {
  const kept: Tip[] = [];
  const removed: SkippedRow[] = [];
  let last: Tip | undefined;
  for (const tip of tips) {
    if (last !== undefined && tip.line !== last.line && tip.ts - last.ts < bounceMs) {
      removed.push({
        line: tip.line,
        kind: 'bounce',
        reason: `tip ${tip.ts - last.ts} ms after the tip on line ${last.line}: one bounced tip, the first kept`,
      });
      continue;
    }
    kept.push(tip);
    last = tip;
  }
  return { kept, removed };
}

/** Step 1: bounces, when the file's time resolution allows telling them apart. */
function bounceStep(tips: Tip[], raw: RawParse, o: ResolvedOptions, skipped: SkippedRow[]) {
  if (o.bounceMs === 0) return { tips, bouncesRemoved: 0, bounceCheck: 'off (bounceMs 0)' };
  if (raw.meta.timeResolutionMs > o.bounceMs)
    return {
      tips,
      bouncesRemoved: 0,
      bounceCheck: `not possible: times are logged to ${raw.meta.timeResolutionMs / 1000} s, tips in the same step are kept`,
    };
  const b = removeBounces(tips, o.bounceMs);
  skipped.push(...b.removed);
  return {
    tips: b.kept,
    bouncesRemoved: b.removed.length,
    bounceCheck: `applied: tips less than ${o.bounceMs} ms after the previous one removed`,
  };
}

/** Step 2: tips before `skipBefore`, or else an isolated first tip, are installation tips. */
function startStep(tips: Tip[], raw: RawParse, o: ResolvedOptions, skipped: SkippedRow[]) {
  if (o.skipBefore !== undefined) {
    const cut = typeof o.skipBefore === 'number' ? o.skipBefore : Date.parse(o.skipBefore);
    const keep: Tip[] = [];
    let installationTips = 0;
    for (const t of tips) {
      if (t.ts < cut) {
        installationTips++;
        skipped.push({ line: t.line, kind: 'before-start', reason: `before skipBefore ${iso(cut)}` });
      } else keep.push(t);
    }
    return { tips: keep, installationTips };
  }
  if (o.installationGapHours > 0 && raw.installationCheck && tips.length >= 2) {
    const gap = tips[1]!.ts - tips[0]!.ts;
    if (gap > o.installationGapHours * 3_600_000) {
      skipped.push({
        line: tips[0]!.line,
        kind: 'installation',
        reason: `first tip, followed by ${(gap / 3_600_000).toFixed(1)} h without a tip: installation`,
      });
      return { tips: tips.slice(1), installationTips: 1 };
    }
  }
  return { tips, installationTips: 0 };
}

/** Step 3: tips next to a logger event row are the gauge handled at a download. */
function downloadStep(tips: Tip[], raw: RawParse, o: ResolvedOptions, skipped: SkippedRow[]) {
  const events = [...raw.meta.loggerEvents].sort((a, b) => a.ts - b.ts);
  if (o.downloadWindowMinutes <= 0 || events.length === 0) return { tips, downloadTips: 0 };
  const w = o.downloadWindowMinutes * 60_000;
  const keep: Tip[] = [];
  let downloadTips = 0;
  let j = 0;
  for (const t of tips) {
    while (j < events.length && events[j]!.ts < t.ts - w) j++;
    const ev = events[j];
    if (ev !== undefined && ev.ts <= t.ts + w) {
      downloadTips++;
      skipped.push({
        line: t.line,
        kind: 'download',
        reason: `tip within ${o.downloadWindowMinutes} min of the logger event on line ${ev.line} (${ev.what}): gauge handled at download`,
      });
    } else keep.push(t);
  }
  return { tips: keep, downloadTips };
}

/** The quirk steps on a format's raw tips, in order; the skipped rows end up sorted by line. */
export function applyQuirks(raw: RawParse, o: ResolvedOptions): ParseResult {
  const skipped = raw.skipped;
  const sorted = raw.outOfOrderRows > 0 ? [...raw.tips].sort((a, b) => a.ts - b.ts) : raw.tips;
  const bounce = bounceStep(sorted, raw, o, skipped);
  const start = startStep(bounce.tips, raw, o, skipped);
  const download = downloadStep(start.tips, raw, o, skipped);
  skipped.sort((a, b) => a.line - b.line);
  return {
    tips: download.tips,
    skipped,
    meta: {
      ...raw.meta,
      rawTips: raw.tips.length,
      bouncesRemoved: bounce.bouncesRemoved,
      bounceCheck: bounce.bounceCheck,
      installationTips: start.installationTips,
      downloadTips: download.downloadTips,
      outOfOrderRows: raw.outOfOrderRows,
      ...(raw.firstRowTs !== undefined ? { firstRowTs: raw.firstRowTs } : {}),
    },
  };
}

/** parseWithQuirks with a row reader that pauses, giving the event loop back between slices. */
export async function parseWithQuirksSliced(
  text: string,
  opts: ParseOptions,
  rowSteps: (lines: string[], o: ResolvedOptions) => Stepped<RawParse>,
): Promise<ParseResult> {
  const o = resolveParseOptions(opts);
  const lines = splitLines(text);
  await yieldToLoop();
  const raw = await runSliced(rowSteps(lines, o));
  await yieldToLoop();
  return applyQuirks(raw, o);
}

/** A whole file through one format's row reader, then the quirk steps. */
export function parseWithQuirks(
  text: string,
  opts: ParseOptions,
  readRows: (lines: string[], o: ResolvedOptions) => RawParse,
): ParseResult {
  const o = resolveParseOptions(opts);
  return applyQuirks(readRows(splitLines(text), o), o);
}
