/**
 * When a device is expected to report, the one answer its charts, the report's gap count and this rule's
 * alerts share: from when it was added to its site (or from its first reading, when that is earlier: a
 * device that sent readings was in place) until it was retired. Only a silence within that time is a gap
 * in the evidence, and only the part of it within that time counts: a device added on Tuesday has no gap
 * on Monday, and a retired one none after it was retired.
 *
 * The site being inactive changes nothing: the rule watches every device in service whatever the work at
 * its site (the evaluator does not read `active`), so a silence then is still a gap. Pure.
 */

/** A stretch of time, epoch ms, `from` included, `to` not. */
export interface Span {
  from: number;
  to: number;
}

/** What the store knows of a device's time in service. */
export interface DeviceService {
  /** When it was added to its site (its catalogue row); null: not known, expected all along. */
  addedAt: number | null;
  /** When it was retired; null: in service. */
  retiredAt: number | null;
  /** Its first reading on record (source time); null: none. */
  firstReadingAt: number | null;
}

/** Why a device was not expected to report in a stretch of the range. */
export type OutOfService = Span & { why: 'not-installed' | 'retired' };

/** When it was expected to report, unbounded: from its start (or all along) until retired (or for ever). */
export function serviceSpan(s: DeviceService): Span {
  const start =
    s.addedAt === null
      ? Number.NEGATIVE_INFINITY
      : Math.min(s.addedAt, s.firstReadingAt ?? Number.POSITIVE_INFINITY);
  return { from: start, to: s.retiredAt ?? Number.POSITIVE_INFINITY };
}

function clip(a: Span, b: Span): Span | undefined {
  const from = Math.max(a.from, b.from);
  const to = Math.min(a.to, b.to);
  return from < to ? { from, to } : undefined;
}

/** The intervals of `range` in which the device was expected to report (none, or one). */
export function expectedSpans(s: DeviceService, range: Span): Span[] {
  const c = clip(serviceSpan(s), range);
  return c ? [c] : [];
}

/** The stretches of `range` in which it was not: before it was added, after it was retired. */
export function outOfService(s: DeviceService, range: Span): OutOfService[] {
  const { from, to } = serviceSpan(s);
  const out: OutOfService[] = [];
  const before = clip({ from: Number.NEGATIVE_INFINITY, to: from }, range);
  if (before) out.push({ ...before, why: 'not-installed' });
  const after = clip({ from: to, to: Number.POSITIVE_INFINITY }, range);
  if (after) out.push({ ...after, why: 'retired' });
  return out;
}

/**
 * The gaps among silences (the spans between readings, the first from -Infinity when nothing came
 * before it): the part of each silence in the device's time in service, when that part lasts
 * `thresholdMs` or more (as the rule counts a silence), shown within `range`. A device never heard
 * from since it was added has one gap, from when it was added.
 */
export function gapsIn(
  silences: readonly Span[],
  s: DeviceService,
  range: Span,
  thresholdMs: number,
): Span[] {
  const service = serviceSpan(s);
  const out: Span[] = [];
  for (const silence of silences) {
    const c = clip(silence, service);
    if (!c || c.to - c.from < thresholdMs) continue;
    const shown = clip(c, range);
    if (shown) out.push(shown);
  }
  return out;
}

/** Whether a gap on record (from `from` to `to`) falls in the device's expected time within `range`. */
export function gapExpected(gap: Span, s: DeviceService, range: Span): boolean {
  return expectedSpans(s, range).some((e) => clip(e, gap) !== undefined);
}
