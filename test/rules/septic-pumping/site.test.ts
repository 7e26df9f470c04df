/**
 * The pumping duty of a site with no tank device (law 000, appendix VII: the owner's, whatever sensors
 * exist): bound once to every septic and alternative-system site, it asks for the last pump-out at once,
 * reminds at 2 years and is due at 3; a tank device added later takes the open duties over, and the site
 * resumes the duty when the device is retired.
 */
import { describe, expect, it } from 'vitest';
import { evaluatorsFor } from '../../../gateway/src/rules/binding.ts';
import { pumpingClock } from '../../../gateway/src/rules/septic-pumping/clock.ts';
import { septicEvaluator } from '../../../gateway/src/rules/septic-pumping/evaluator.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { ctxOf, DAY, run, type SiteContext, site, T0, tick } from '../helpers.ts';

const iso = (t: number) => new Date(t).toISOString();
const bare = (extra: Record<string, unknown> = {}): SiteContext =>
  ctxOf({ kind: 'septic', name: 'Pine Road', devices: [], ...extra });
const withTank = (extra: Record<string, unknown> = {}): SiteContext =>
  ctxOf({ kind: 'septic', name: 'Pine Road', devices: [{ id: 'tank', kind: 'septic-tank' }], ...extra });
/** The site's own binding: no device. */
const feed = (c: SiteContext, inputs: RuleInput[], state?: ReturnType<typeof septicEvaluator.init>) =>
  run(septicEvaluator, c, inputs, { checkPurity: true, ...(state ? { state } : {}) });
const pumpOut = (at: number, id = 'p1', receivedAt = at): RuleInput => ({
  type: 'inspection',
  siteId: 's1',
  at,
  receivedAt,
  kind: 'cleanout',
  inspector: 'Pat Pumper',
  id,
  details: { hauler: { name: 'Valley Septic', permit: '3-4444-00001' } },
});
const pumping = (kind: string, devices: Array<{ id: string; kind: string }>) =>
  evaluatorsFor(site({ kind, devices }))
    .filter((b) => b.name === 'septic-pumping')
    .map((b) => b.deviceId ?? '-')
    .sort();

describe('septic-pumping: a site with no tank device', () => {
  it('is bound once to every septic and alternative-system site, whatever devices it has', () => {
    expect(pumping('septic', [])).toEqual(['-']);
    expect(pumping('alternative-system', [])).toEqual(['-']);
    expect(pumping('septic', [{ id: 'ht', kind: 'holding-tank' }])).toEqual(['-']);
    expect(pumping('septic', [{ id: 'tank', kind: 'septic-tank' }])).toEqual(['-', 'tank']);
    expect(pumping('alternative-system', [{ id: 'p', kind: 'septic-panel' }])).toEqual(['-', 'p']);
    expect(pumping('holding-tank', [])).toEqual([]);
    expect(pumping('construction', [])).toEqual([]);
  });

  it('no pump-out on record: the site is asked at once, one duty, with no device', () => {
    const { sink, state } = feed(bare(), [tick(T0), tick(T0 + DAY), tick(T0 + 400 * DAY)]);
    const alerts = [...sink.alerts.values()];
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ key: `septic-pumping:s1:unknown:${T0}`, at: T0, status: 'open' });
    expect(alerts[0]!.message).toContain('When was the septic tank at Pine Road (s1) last pumped?');
    expect(sink.effects[0]).not.toHaveProperty('deviceId');
    expect(state.deviceId).toBeUndefined();
  });

  it('a pump-out logged at the site answers the question and starts the clock: reminder at 2 years, due at 3', () => {
    const pumped = T0 + 3 * DAY;
    const asked = feed(bare(), [tick(T0), pumpOut(pumped, 'p1', pumped + DAY)]);
    const q = asked.sink.alerts.get(`septic-pumping:s1:unknown:${T0}`)!;
    expect(q).toMatchObject({ status: 'resolved', resolvedAt: pumped + DAY });
    expect(q.resolution).toMatchObject({
      answered: true,
      hauler: 'Valley Septic',
      haulerPermit: '3-4444-00001',
    });
    const clock = pumpingClock(pumped, { maxYears: 3, reminderYears: 2 }, 'America/New_York');
    const before = feed(bare(), [tick(clock.remindAt - 1)], asked.state).sink;
    expect(before.alerts.size).toBe(0);
    const { sink } = feed(bare(), [tick(clock.remindAt)], asked.state);
    expect([...sink.alerts.values()][0]).toMatchObject({
      key: `septic-pumping:s1:time:${pumped}`,
      at: clock.remindAt,
      dueAt: clock.dueAt,
      status: 'open',
    });
    expect([...sink.alerts.values()][0]!.message).toMatch(
      /^The septic tank at Pine Road \(s1\) was last pumped/,
    );
  });

  it("a pump-out in the site's history: nothing before the reminder; pumped on February 29, due on February 28", () => {
    const pumped = Date.parse('2024-02-29T15:00:00Z');
    const c = bare({ history: { lastPumpOut: iso(pumped) } });
    const clock = pumpingClock(pumped, { maxYears: 3, reminderYears: 2 }, 'America/New_York');
    expect(clock.remindAt).toBe(Date.parse('2026-02-28T05:00:00Z'));
    expect(clock.dueAt).toBe(Date.parse('2027-03-01T05:00:00Z') - 1);
    expect(feed(c, [tick(clock.remindAt - 1)]).sink.alerts.size).toBe(0);
    const { sink } = feed(c, [tick(clock.remindAt - 1), tick(clock.remindAt)]);
    expect([...sink.alerts.values()]).toMatchObject([
      { key: `septic-pumping:s1:time:${pumped}`, at: clock.remindAt, dueAt: clock.dueAt, status: 'open' },
    ]);
  });

  it('a tank device added later takes the open duty over; retired, the site resumes from what it recorded', () => {
    const pumped = Date.parse('2023-06-01T16:00:00Z');
    // The site's duty is open (reminded in 2025); a tank device is then added.
    const open = feed(bare(), [tick(T0 - 400 * DAY), pumpOut(pumped), tick(T0)]);
    const time = [...open.sink.alerts.values()].find((a) => a.key.includes(':time:'))!;
    expect(time.status).toBe('open');
    const handed = feed(withTank(), [tick(T0 + DAY), tick(T0 + 2 * DAY)], open.state);
    expect(handed.sink.effects).toHaveLength(1);
    expect(handed.sink.effects[0]).toMatchObject({
      type: 'resolve',
      key: time.key,
      at: time.at,
      evidence: { superseded: true, handedTo: 'tank', lastPumpedAt: iso(pumped) },
    });
    expect(handed.sink.effects[0]!.type === 'resolve' && handed.sink.effects[0]!.message).toContain(
      'tank tank now keeps the pumping duty',
    );
    // While the tank keeps it, the site records pump-outs and opens nothing.
    const later = T0 + 30 * DAY;
    const idle = feed(withTank(), [pumpOut(later, 'p2'), tick(later + 900 * DAY)], handed.state);
    expect(idle.sink.alerts.size).toBe(0);
    expect(idle.state.lastPumpedSeen).toBe(later);
    // The device retired: the site's duty resumes from the last pump-out it recorded, under a new key.
    const clock = pumpingClock(later, { maxYears: 3, reminderYears: 2 }, 'America/New_York');
    const resumed = feed(bare(), [tick(clock.remindAt)], idle.state).sink;
    expect([...resumed.alerts.values()]).toMatchObject([
      { key: `septic-pumping:s1:time:${later}:h1`, at: clock.remindAt, dueAt: clock.dueAt, status: 'open' },
    ]);
  });

  it("a tank device's own duty is as before: the site's binding stays silent beside it", () => {
    const { sink } = feed(withTank(), [tick(T0), tick(T0 + 2000 * DAY)]);
    expect(sink.effects).toEqual([]);
    const tank = run(septicEvaluator, withTank(), [tick(T0)], { deviceId: 'tank', checkPurity: true }).sink;
    expect([...tank.alerts.keys()]).toEqual([`septic-pumping:s1:tank:unknown:${T0}`]);
    expect([...tank.alerts.values()][0]!.message).toContain('When was tank tank last pumped?');
  });
});
