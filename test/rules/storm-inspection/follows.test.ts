/**
 * The storm's inspection follows the storm (001, Maintenance during construction, A(2): "within 24
 * hours of any storm event producing 0.5 inch of precipitation or more"): an inspection made while it
 * still rains is shown with the storm and meets nothing; the one after the last tip meets the duty once
 * the storm has ended (dry for `interEventHours`); one at the due time is on time (the due time is the
 * last instant on time, as the engine counts every alert's), one a millisecond after is late. Rain reported per interval (`rainIn`) sums exactly: 0.25 + 0.245 in is 0.495 in.
 */
import { describe, expect, it } from 'vitest';
import { stormEvaluator } from '../../../gateway/src/rules/storm-inspection/evaluator.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { ctxOf, HOUR, MIN, reading, run, type SiteContext, T0, tick } from '../helpers.ts';

function gaugeCtx(inchesPerTip = 0.01): SiteContext {
  return ctxOf({ kind: 'construction', devices: [{ id: 'rg', kind: 'rain-gauge', inchesPerTip }] });
}

const inspection = (at: number, id: string, inspector = 'D. Veloper'): RuleInput => ({
  type: 'inspection',
  siteId: 's1',
  at,
  kind: 'storm',
  inspector,
  id,
});

/** A counter gauge: a baseline an hour before T0, then `n` tips one a minute from T0 (tip k at T0 + k min). */
function tips(n: number, from = 0): RuleInput[] {
  const out: RuleInput[] = from === 0 ? [reading('rg', T0 - HOUR, { rainTips: 0 })] : [];
  for (let k = from; k < from + n; k++) out.push(reading('rg', T0 + k * MIN, { rainTips: k + 1 }));
  return out;
}

function feed(inputs: RuleInput[], ctx = gaugeCtx()) {
  const { sink } = run(stormEvaluator, ctx, inputs, { deviceId: 'rg', json: true, checkPurity: true });
  const alerts = [...sink.alerts.values()];
  return { sink, alerts, alert: alerts[0] };
}

describe('storm-inspection: an inspection meets the duty only after the storm', () => {
  // Crosses 0.5 in at the 50th tip; 0.65 in after the 65th; two more inches after that.
  const storm = tips(265);
  const lastTip = T0 + 264 * MIN;
  const midStorm = T0 + 64 * MIN + 30_000; // after the 65th tip: 0.65 in so far
  const ended = tick(lastTip + 6 * HOUR);

  it('mid-storm: an inspection at 0.65 in, then 2 more inches: the duty stays open, due 24 h after the end', () => {
    const before = storm.slice(0, 66);
    const { alert } = feed([...before, inspection(midStorm, 'mid'), ...storm.slice(66), ended]);
    expect(alert).toBeDefined();
    expect(alert!.status).toBe('open');
    expect(alert!.dueAt).toBe(lastTip + 24 * HOUR);
    expect(alert!.message).toContain('Inspected during the storm, at 0.65 in');
    expect(alert!.message).toContain('an inspection after the rain ends is still due');
    expect(alert!.evidence.inspectedDuring).toEqual([
      { inspectionId: 'mid', inspectedAt: new Date(midStorm).toISOString(), inches: 0.65 },
    ]);
    // The same when the inspection is recorded afterwards, dated mid-storm.
    const later = feed([...storm, ended, inspection(midStorm, 'mid')]).alert!;
    expect(later.status).toBe('open');
    expect(later.message).toContain('Inspected during the storm, at 0.65 in');
  });

  it('an inspection at the instant of the last tip was made while it rained', () => {
    const { alert } = feed([...storm, inspection(lastTip, 'at-last-tip'), ended]);
    expect(alert!.status).toBe('open');
    expect(alert!.evidence.inspectedDuring).toHaveLength(1);
  });

  it('after the end: the first inspection after the last tip meets it, on time, once the storm has ended', () => {
    const after = lastTip + 2 * HOUR;
    const waiting = feed([...storm, inspection(midStorm, 'mid'), inspection(after, 'after')]).alert!;
    // Two hours dry is not yet the 6 h that ends a storm: it waits.
    expect(waiting.status).toBe('open');
    expect(waiting.message).toContain(
      'after the last tip: it meets the duty once no rain has fallen for 6 h',
    );
    const { alert } = feed([...storm, inspection(midStorm, 'mid'), inspection(after, 'after'), ended]);
    expect(alert).toMatchObject({ status: 'resolved', resolvedAt: after });
    expect(alert!.resolution).toMatchObject({ inspectionId: 'after', onTime: true });
  });

  it('rain that comes back within the dry period makes an inspection after the last tip a mid-storm one', () => {
    const after = lastTip + 2 * HOUR;
    const more = [reading('rg', lastTip + 3 * HOUR, { rainTips: 266 })];
    const { alert } = feed([...storm, inspection(after, 'early'), ...more, tick(lastTip + 10 * HOUR)]);
    expect(alert!.status).toBe('open');
    expect(alert!.dueAt).toBe(lastTip + 3 * HOUR + 24 * HOUR);
    expect(alert!.evidence.inspectedDuring).toEqual([
      { inspectionId: 'early', inspectedAt: new Date(after).toISOString(), inches: 2.65 },
    ]);
  });

  it('at exactly the due time the inspection is on time (the last instant on time); a millisecond after is late', () => {
    const due = lastTip + 24 * HOUR;
    const atDue = feed([...storm, ended, inspection(due, 'at-due')]).alert!;
    expect(atDue.status).toBe('resolved');
    expect(atDue.resolution).toMatchObject({ inspectionId: 'at-due', onTime: true });
    const justAfter = feed([...storm, ended, inspection(due + 1, 'after-due')]).alert!;
    expect(justAfter.resolution).toMatchObject({ inspectionId: 'after-due', onTime: false });
  });

  it('a storm that qualifies through late data takes an inspection on record only when it followed the storm', () => {
    const after = lastTip + HOUR;
    // The inspections come first, the readings (a backlog delivered in order) later.
    const during = feed([inspection(midStorm, 'mid'), ...storm, ended]).alert!;
    expect(during.status).toBe('open');
    const followed = feed([inspection(after, 'after'), ...storm, ended]).alert!;
    expect(followed).toMatchObject({ status: 'resolved', resolvedAt: after });
  });
});

describe('storm-inspection: interval rain (rainIn) sums exactly', () => {
  const interval = (...inches: number[]) =>
    inches.map((v, k) => reading('rg', T0 + k * 10 * MIN, { rainIn: v }));

  it('0.25 + 0.245 in is 0.495 in: under 0.5 in, no duty (rounded to tips it was 50 tips, a storm)', () => {
    const { sink } = feed(interval(0.25, 0.245));
    expect(sink.alerts.size).toBe(0);
    expect(sink.liveStorms()[0]).toMatchObject({ inches: 0.495, qualified: false });
  });

  it('0.25 + 0.25 in is a storm, crossing at the second report', () => {
    const { sink, alert } = feed(interval(0.25, 0.25));
    expect(sink.liveStorms()[0]).toMatchObject({ inches: 0.5, qualified: true, thresholdAt: T0 + 10 * MIN });
    expect(alert).toMatchObject({ status: 'open', at: T0 + 10 * MIN });
  });

  it('many small reports add up exactly, whatever the tip: 99 x 0.005 in is 0.495 in, 100 x 0.005 in is 0.5 in', () => {
    for (const ipt of [0.01, 0.007874]) {
      const small = (n: number) => interval(...Array.from({ length: n }, () => 0.005));
      const under = feed(small(99), gaugeCtx(ipt)).sink;
      expect(under.alerts.size, `${ipt} in a tip`).toBe(0);
      expect(under.liveStorms()[0]!.inches).toBe(0.495);
      const over = feed(small(100), gaugeCtx(ipt)).sink;
      expect(over.alerts.size, `${ipt} in a tip`).toBe(1);
      expect(over.liveStorms()[0]!.inches).toBe(0.5);
    }
  });

  it('a report under half a tip is rain: it extends the storm and its depth counts', () => {
    const { sink } = feed(interval(0.3, 0.004, 0.196));
    expect(sink.liveStorms()).toHaveLength(1);
    expect(sink.liveStorms()[0]).toMatchObject({ inches: 0.5, qualified: true });
  });
});
