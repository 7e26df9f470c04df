import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alertDtoSchema } from '../../gateway/src/alerts/dto.ts';
import { AlertError } from '../../gateway/src/alerts/errors.ts';
import type { Effect, RuleInput } from '../../gateway/src/rules/types.ts';
import type { Harness } from './support.ts';
import { H, makeEngine, notifications, reading, scripted, T0, tempDir } from './support.ts';

/** A stub evaluator on site-a whose next reading yields exactly the effects queued by the test. */
function driven() {
  const queue: Effect[][] = [];
  const evaluator = scripted(['holding-tank-pumpout', 'storm-inspection'], (input) =>
    input.type === 'reading' ? (queue.shift() ?? []) : [],
  );
  return { evaluator, queue };
}

const open = (key: string, at: number, dueAt: number | undefined, extra: Partial<Effect> = {}): Effect =>
  ({
    type: 'open',
    rule: 'holding-tank-pumpout',
    siteId: 'site-a',
    deviceId: 'panel-1',
    key,
    at,
    ...(dueAt !== undefined ? { dueAt } : {}),
    message: `tank high (${key})`,
    evidence: { levelIn: 70 },
    ...extra,
  }) as Effect;

let tmp: ReturnType<typeof tempDir>;
let h: Harness;
let drv: ReturnType<typeof driven>;

function emit(...effects: Effect[]) {
  drv.queue.push(effects);
  return h.engine.handleReadings([reading('site-a', 'panel-1', h.clock.now, { levelIn: 70 })]);
}

beforeEach(() => {
  tmp = tempDir();
  drv = driven();
  h = makeEngine(join(tmp.dir, 'gw.db'), (site) =>
    site.id === 'site-a' ? [{ evaluator: drv.evaluator }] : [],
  );
});

afterEach(() => {
  h.engine.stop();
  if (h.db.open) h.db.close();
  tmp.cleanup();
});

describe('effects from evaluators', () => {
  it('opens one alert per occurrence key, and a second open updates it', () => {
    emit(open('a', T0, T0 + 24 * H));
    h.clock.now += 60_000;
    emit(open('a', T0 + 60_000, T0 + 24 * H, { message: 'still high' } as Partial<Effect>));
    emit(open('b', T0 + 60_000, T0 + 24 * H));
    const alerts = h.engine.listAlerts({ siteId: 'site-a' });
    expect(alerts).toHaveLength(2);
    const a = alerts.find((x) => x.message === 'still high')!;
    expect(a.history.map((e) => e.action)).toEqual(['raised', 'updated']);
    expect(a.raisedAt).toBe(new Date(T0).toISOString());
    expect(notifications(h.db, 'raise')).toHaveLength(2);
    expect(alertDtoSchema.parse(a)).toEqual(a);
  });

  it('an open that repeats the same content writes nothing new', () => {
    emit(open('a', T0, T0 + 24 * H));
    emit(open('a', T0, T0 + 24 * H));
    emit(open('a', T0, T0 + 24 * H));
    const [a] = h.engine.listAlerts();
    expect(a!.history).toHaveLength(1);
  });

  it('update moves the due time and re-arms the reminders for it', () => {
    emit(open('a', T0, T0 + 48 * H));
    h.clock.now = T0 + H;
    emit({ type: 'update', key: 'a', at: T0 + H, dueAt: T0 + 60 * H, evidence: { tips: 60 } });
    const [a] = h.engine.listAlerts();
    expect(a!.dueAt).toBe(new Date(T0 + 60 * H).toISOString());
    expect(a!.evidence).toEqual({ levelIn: 70, tips: 60 });
    const upd = a!.history.find((e) => e.action === 'updated')!;
    expect(upd.detail.oldDueAt).toBe(new Date(T0 + 48 * H).toISOString());
    expect(upd.sourceAt).toBe(new Date(T0 + H).toISOString());
    // 24 h before the old due: nothing; 24 h before the new due: the reminder; the old due passes quietly.
    expect(h.engine.tick(T0 + 30 * H).reminders).toBe(0);
    expect(h.engine.tick(T0 + 36 * H).reminders).toBe(1);
    expect(h.engine.tick(T0 + 49 * H).overdue).toBe(0);
    expect(h.engine.tick(T0 + 60 * H + 1).overdue).toBe(1);
  });

  it('update for an unknown key is ignored', () => {
    emit({ type: 'update', key: 'nope', at: T0, dueAt: T0 + H });
    expect(h.engine.listAlerts()).toHaveLength(0);
    expect(h.metrics.render()).toMatch(
      /gateway_rule_effects_ignored_total\{reason="unknown_key",type="update"\} 1/,
    );
  });

  it('resolve closes automatically with within_deadline, once; the key never reopens', () => {
    emit(open('a', T0, T0 + 5 * 24 * H), open('late', T0, T0 + H));
    h.clock.now = T0 + 2 * H;
    emit(
      { type: 'resolve', key: 'a', at: T0 + 2 * H, message: 'alarm cleared', evidence: { heldFor: 60 } },
      { type: 'resolve', key: 'late', at: T0 + 2 * H, message: 'alarm cleared', evidence: {} },
    );
    const a = h.engine.listAlerts().find((x) => x.message === 'tank high (a)')!;
    expect(a.status).toBe('resolved');
    expect(a.resolvedAt).toBe(new Date(T0 + 2 * H).toISOString());
    expect(a.withinDeadline).toBe(true);
    expect(a.resolution).toEqual({
      how: 'auto',
      by: 'system',
      message: 'alarm cleared',
      evidence: { heldFor: 60 },
    });
    expect(a.overdue).toBe(false);
    const late = h.engine.listAlerts().find((x) => x.message === 'tank high (late)')!;
    expect(late.withinDeadline).toBe(false);

    emit({ type: 'resolve', key: 'a', at: T0 + 3 * H, message: 'again', evidence: {} });
    emit(open('a', T0 + 3 * H, T0 + 9 * H, { message: 'reopen?' } as Partial<Effect>));
    emit({ type: 'update', key: 'a', at: T0 + 3 * H, dueAt: T0 + 99 * H });
    const again = h.engine.getAlert(a.id)!;
    expect(again.history.map((e) => e.action)).toEqual(['raised', 'resolved']);
    expect(again.message).toBe('tank high (a)');
    expect(notifications(h.db, 'resolve')).toHaveLength(2);
    expect(h.engine.listAlerts()).toHaveLength(2);
  });

  it('stores storm events by id (upsert)', () => {
    const storm = {
      id: 'site-a:rg-1:1',
      siteId: 'site-a',
      deviceId: 'rg-1',
      start: T0,
      end: T0 + H,
      tips: 30,
      inches: 0.3,
      qualified: false,
      closed: false,
    };
    emit({ type: 'storm', event: storm });
    emit({
      type: 'storm',
      event: {
        ...storm,
        end: T0 + 2 * H,
        tips: 55,
        inches: 0.55,
        qualified: true,
        thresholdAt: T0 + 90 * 60_000,
        dueAt: T0 + 26 * H,
      },
    });
    const storms = h.engine.listStorms({ siteId: 'site-a' });
    expect(storms).toHaveLength(1);
    expect(storms[0]).toMatchObject({ tips: 55, qualified: true, end: new Date(T0 + 2 * H).toISOString() });
    expect(h.events.filter((e) => e.type === 'storm')).toHaveLength(2);
  });

  it('an evaluator that throws does not stop the others', () => {
    const bad = scripted('device-silent', () => {
      throw new Error('boom');
    });
    const good = driven();
    const t = tempDir();
    const h2 = makeEngine(join(t.dir, 'gw.db'), () => [{ evaluator: bad }, { evaluator: good.evaluator }]);
    good.queue.push([open('x', T0, T0 + H)]);
    h2.engine.handleReadings([reading('site-a', 'panel-1', T0, { levelIn: 1 })]);
    expect(h2.engine.listAlerts({ siteId: 'site-a' })).toHaveLength(1);
    expect(h2.metrics.render()).toMatch(/gateway_rule_errors_total\{rule="device-silent"\} [1-9]/);
    h2.db.close();
    t.cleanup();
  });

  it('per-device instances see only their device; state is written once per batch', () => {
    const t = tempDir();
    const a = scripted('holding-tank-pumpout', () => []);
    const b = scripted('device-silent', () => []);
    const h2 = makeEngine(join(t.dir, 'gw.db'), (site) =>
      site.id === 'site-a' ? [{ evaluator: a, deviceId: 'panel-1' }, { evaluator: b }] : [],
    );
    const batch = Array.from({ length: 500 }, (_, i) =>
      reading('site-a', i % 2 ? 'panel-1' : 'rg-1', T0 + i * 1000, { levelIn: 1 }),
    );
    h2.engine.handleReadings(batch);
    expect(a.seen).toHaveLength(250);
    expect(b.seen).toHaveLength(500);
    const rows = h2.db.prepare('SELECT rule, device_id, state FROM rule_state ORDER BY rule').all();
    expect(rows).toEqual([
      { rule: 'device-silent', device_id: '', state: '{"n":500}' },
      { rule: 'holding-tank-pumpout', device_id: 'panel-1', state: '{"n":250}' },
    ]);
    h2.db.close();
    t.cleanup();
  });
});

describe('updates within one batch', () => {
  /** One reading per queued effect list, all in one handleReadings call. */
  function batch(...perReading: Effect[][]) {
    for (const effects of perReading) drv.queue.push(effects);
    return h.engine.handleReadings(
      perReading.map((_, i) => reading('site-a', 'panel-1', h.clock.now + i, { levelIn: 70 })),
    );
  }
  const updatedRows = () =>
    h.db.prepare(`SELECT COUNT(*) AS n FROM alert_history WHERE action = 'updated'`).get() as { n: number };

  it('200 updates to one alert in one call write one history row and one event, re-armed for the final due', () => {
    emit(open('a', T0, T0 + 24 * H));
    h.clock.now = T0 + H;
    h.events.length = 0;
    const started = performance.now();
    batch(
      ...Array.from({ length: 200 }, (_, i): Effect[] => [
        {
          type: 'update',
          key: 'a',
          at: T0 + i * 60_000,
          dueAt: T0 + 24 * H + (i + 1) * 60_000,
          message: `tips ${i + 1}`,
          evidence: { tips: i + 1 },
        },
      ]),
    );
    const ms = performance.now() - started;
    const finalDue = T0 + 24 * H + 200 * 60_000;
    expect(updatedRows()).toEqual({ n: 1 });
    const a = h.engine.listAlerts()[0]!;
    expect(a.dueAt).toBe(new Date(finalDue).toISOString());
    expect(a.message).toBe('tips 200');
    expect(a.evidence).toEqual({ levelIn: 70, tips: 200 });
    expect(a.history.map((e) => e.action)).toEqual(['raised', 'updated']);
    expect(a.history[1]).toMatchObject({
      sourceAt: new Date(T0 + 199 * 60_000).toISOString(),
      detail: {
        oldDueAt: new Date(T0 + 24 * H).toISOString(),
        dueAt: new Date(finalDue).toISOString(),
        message: 'tips 200',
        evidence: { tips: 200 },
      },
    });
    const live = h.events.filter((e) => e.type === 'alert');
    expect(live).toHaveLength(1);
    expect(live[0]).toMatchObject({ action: 'updated', alert: { dueAt: a.dueAt, history: a.history } });
    expect(h.engine.verifyChain().ok).toBe(true);
    expect(ms).toBeLessThan(500);
    // the timers follow the final due time only
    expect(h.engine.tick(finalDue - 24 * H).reminders).toBe(1);
    expect(h.engine.tick(T0 + 23 * H).reminders).toBe(0);
    expect(h.engine.tick(T0 + 24 * H + 1).overdue).toBe(0);
    expect(h.engine.tick(finalDue - H).reminders).toBe(1);
    expect(h.engine.tick(finalDue + 1).overdue).toBe(1);
    expect(notifications(h.db, 'reminder').map((r) => JSON.parse(r.payload).dueAt)).toEqual([
      a.dueAt,
      a.dueAt,
    ]);
  });

  it('a raise followed by updates: raised, then one updated; one raise notification with the final state', () => {
    h.events.length = 0;
    batch(
      [open('a', T0, T0 + 24 * H)],
      [{ type: 'update', key: 'a', at: T0 + 1, dueAt: T0 + 25 * H, evidence: { levelIn: 71 } }],
      [{ type: 'update', key: 'a', at: T0 + 2, dueAt: T0 + 26 * H, evidence: { levelIn: 72 } }],
      [open('a', T0, T0 + 27 * H, { evidence: { levelIn: 73 } } as Partial<Effect>)],
    );
    const a = h.engine.listAlerts()[0]!;
    expect(a.history.map((e) => e.action)).toEqual(['raised', 'updated']);
    expect(a.history[0]!.detail.dueAt).toBe(new Date(T0 + 24 * H).toISOString());
    expect(a.history[1]!.detail).toMatchObject({
      oldDueAt: new Date(T0 + 24 * H).toISOString(),
      dueAt: new Date(T0 + 27 * H).toISOString(),
      evidence: { levelIn: 73 },
    });
    expect(a.dueAt).toBe(new Date(T0 + 27 * H).toISOString());
    expect(a.evidence).toEqual({ levelIn: 73 });
    const raise = notifications(h.db, 'raise');
    expect(raise).toHaveLength(1);
    expect(alertDtoSchema.parse(JSON.parse(raise[0]!.payload))).toEqual(a);
    expect(h.events.filter((e) => e.type === 'alert').map((e) => e.type === 'alert' && e.action)).toEqual([
      'raised',
      'updated',
    ]);
    expect(h.engine.tick(T0 + 3 * H).reminders).toBe(1);
    expect(h.engine.tick(T0 + 24 * H + 1).overdue).toBe(0);
    expect(h.engine.tick(T0 + 27 * H + 1).overdue).toBe(1);
  });

  it('updates then a resolve in one call: the updated row comes before the resolved one, nothing dropped', () => {
    emit(open('a', T0, T0 + 24 * H), open('b', T0, T0 + 24 * H));
    h.clock.now = T0 + H;
    h.events.length = 0;
    batch(
      [{ type: 'update', key: 'a', at: T0 + H, dueAt: T0 + 30 * H }],
      [{ type: 'update', key: 'b', at: T0 + H, dueAt: T0 + 31 * H }],
      [{ type: 'update', key: 'a', at: T0 + H + 1, dueAt: T0 + 32 * H }],
      [{ type: 'resolve', key: 'a', at: T0 + H + 2, message: 'pumped', evidence: {} }],
      [{ type: 'update', key: 'a', at: T0 + H + 3, dueAt: T0 + 40 * H }],
      [{ type: 'update', key: 'b', at: T0 + H + 4, dueAt: T0 + 33 * H }],
    );
    const byKey = (m: string) => h.engine.listAlerts().find((x) => x.message === `tank high (${m})`)!;
    const a = byKey('a');
    expect(a.history.map((e) => e.action)).toEqual(['raised', 'updated', 'resolved']);
    expect(a.history[1]!.detail.dueAt).toBe(new Date(T0 + 32 * H).toISOString());
    expect(a.dueAt).toBe(new Date(T0 + 32 * H).toISOString());
    expect(a.withinDeadline).toBe(true);
    const b = byKey('b');
    expect(b.history.map((e) => e.action)).toEqual(['raised', 'updated']);
    expect(b.dueAt).toBe(new Date(T0 + 33 * H).toISOString());
    expect(notifications(h.db, 'resolve')).toHaveLength(1);
    expect(notifications(h.db, 'raise')).toHaveLength(2);
    expect(updatedRows()).toEqual({ n: 2 });
    expect(
      h.events.map((e) => (e.type === 'alert' ? `${e.alert.message.slice(-2, -1)}:${e.action}` : e.type)),
    ).toEqual(['a:updated', 'b:updated', 'a:resolved']);
    expect(h.engine.verifyChain().ok).toBe(true);
    expect(
      h.db.prepare('SELECT COUNT(*) AS n FROM timers WHERE alert_id = ? AND fired_at IS NULL').get(a.id),
    ).toEqual({ n: 0 });
  });
});

describe('throughput', () => {
  it('handles 20 000 readings that change nothing without touching the store', () => {
    const t = tempDir();
    const still: import('../../gateway/src/rules/types.ts').Evaluator<unknown> = {
      rule: 'device-silent',
      init: () => ({ quiet: true }),
      evaluate: (state) => ({ state, effects: [] }),
    };
    const h2 = makeEngine(join(t.dir, 'gw.db'), () => [{ evaluator: still }]);
    const batch = Array.from({ length: 20_000 }, (_, i) =>
      reading(i % 2 ? 'site-a' : 'site-b', i % 2 ? 'panel-1' : 'rg-2', T0 + i, { levelIn: 1 }),
    );
    const started = performance.now();
    for (let i = 0; i < batch.length; i += 100) h2.engine.handleReadings(batch.slice(i, i + 100));
    const ms = performance.now() - started;
    expect(ms).toBeLessThan(3000);
    expect(h2.db.prepare('SELECT COUNT(*) AS n FROM rule_state').get()).toEqual({ n: 0 });
    h2.db.close();
    t.cleanup();
  });
});

describe("people's actions", () => {
  it('acknowledges once, with the actor in history', () => {
    emit(open('a', T0, T0 + 24 * H));
    const [a] = h.engine.listAlerts();
    h.clock.now = T0 + 10 * 60_000;
    const acked = h.engine.acknowledge(a!.id, 'officer.jones', 'on my way');
    expect(acked.status).toBe('acknowledged');
    expect(acked.acknowledgedBy).toBe('officer.jones');
    expect(acked.history.at(-1)).toMatchObject({
      action: 'acknowledged',
      actor: 'officer.jones',
      detail: { note: 'on my way' },
    });
    expect(() => h.engine.acknowledge(a!.id, 'x')).toThrow(
      expect.objectContaining({ code: 'ALREADY_ACKNOWLEDGED' }),
    );
    expect(() => h.engine.acknowledge('missing', 'x')).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND' }),
    );
    expect(h.engine.listAlerts({ status: 'acknowledged' })).toHaveLength(1);
    expect(h.engine.listAlerts({ status: 'open' })).toHaveLength(0);
  });

  it('resolves by hand only with a note; tells the evaluator; refuses a second resolve', () => {
    emit(open('a', T0, T0 + 24 * H));
    const [a] = h.engine.listAlerts();
    expect(() => h.engine.resolve(a!.id, 'owner', '  ')).toThrow(AlertError);
    expect(() => h.engine.resolve(a!.id, 'owner', '')).toThrow(
      expect.objectContaining({ code: 'NOTE_REQUIRED' }),
    );
    h.clock.now = T0 + 30 * H;
    const r = h.engine.resolve(a!.id, 'owner', 'pumped by Acme, receipt 42');
    expect(r.status).toBe('resolved');
    expect(r.withinDeadline).toBe(false);
    expect(r.resolution).toEqual({
      how: 'manual',
      by: 'owner',
      evidence: { note: 'pumped by Acme, receipt 42' },
    });
    expect(r.history.at(-1)).toMatchObject({ action: 'resolved', actor: 'owner' });
    const closed = drv.evaluator.seen.filter(
      (i): i is Extract<RuleInput, { type: 'alert-closed' }> => i.type === 'alert-closed',
    );
    expect(closed).toEqual([{ type: 'alert-closed', key: 'a', at: T0 + 30 * H, how: 'manual' }]);
    expect(() => h.engine.resolve(a!.id, 'owner', 'again')).toThrow(
      expect.objectContaining({ code: 'ALREADY_RESOLVED' }),
    );
    expect(notifications(h.db, 'resolve')).toHaveLength(1);
  });

  it('extension keeps the old due in history and extensions, re-arms reminders and overdue', () => {
    const due = T0 + 5 * 24 * H;
    emit(open('a', T0, due));
    const [a] = h.engine.listAlerts();
    expect(h.engine.tick(due - 24 * H).reminders).toBe(1);
    expect(h.engine.tick(due + 1).overdue).toBe(1);
    h.clock.now = due + 2 * H;
    expect(() =>
      h.engine.extend(a!.id, 'eng', { newDueAt: due - H, engineer: 'P. Eng', letterRef: 'L-1' }),
    ).toThrow(expect.objectContaining({ code: 'BAD_EXTENSION' }));
    expect(() =>
      h.engine.extend(a!.id, 'eng', { newDueAt: due + 10 * 24 * H, engineer: '', letterRef: 'L-1' }),
    ).toThrow(expect.objectContaining({ code: 'BAD_EXTENSION' }));
    const newDue = due + 10 * 24 * H;
    const x = h.engine.extend(a!.id, 'eng.smith', {
      newDueAt: newDue,
      engineer: 'P. Smith, PE',
      letterRef: 'LTR-2025-07',
      note: 'parts on order',
    });
    expect(x.dueAt).toBe(new Date(newDue).toISOString());
    expect(x.originalDueAt).toBe(new Date(due).toISOString());
    expect(x.overdue).toBe(false);
    expect(x.history.at(-1)).toMatchObject({
      action: 'extended',
      actor: 'eng.smith',
      detail: {
        oldDueAt: new Date(due).toISOString(),
        newDueAt: new Date(newDue).toISOString(),
        letterRef: 'LTR-2025-07',
      },
    });
    expect(h.engine.listExtensions({ alertId: a!.id })).toMatchObject([
      {
        oldDueAt: new Date(due).toISOString(),
        engineer: 'P. Smith, PE',
        letterRef: 'LTR-2025-07',
        by: 'eng.smith',
      },
    ]);
    expect(notifications(h.db, 'extension')).toHaveLength(1);
    // earlier than the current (extended) due is refused
    expect(() =>
      h.engine.extend(a!.id, 'eng', { newDueAt: newDue - H, engineer: 'P', letterRef: 'L-2' }),
    ).toThrow(expect.objectContaining({ code: 'BAD_EXTENSION' }));
    expect(h.engine.tick(newDue - 24 * H).reminders).toBe(1);
    expect(h.engine.tick(newDue - H).reminders).toBe(1);
    expect(h.engine.tick(newDue + 1).overdue).toBe(1);
    expect(notifications(h.db, 'reminder')).toHaveLength(3);
    expect(notifications(h.db, 'overdue')).toHaveLength(2);
    expect(h.engine.verifyChain(undefined, undefined, 'extensions').ok).toBe(true);
  });
});

describe('deadlines', () => {
  it('flags overdue once, with one notification event', () => {
    const due = T0 + 24 * H;
    emit(open('a', T0, due));
    expect(h.engine.tick(due - 1).overdue).toBe(0);
    expect(h.engine.tick(due).overdue).toBe(0);
    h.clock.now = due + 1;
    expect(h.engine.tick(due + 1).overdue).toBe(1);
    expect(h.engine.tick(due + H).overdue).toBe(0);
    expect(h.engine.tick(due + 2 * H).overdue).toBe(0);
    const ev = notifications(h.db, 'overdue');
    expect(ev).toHaveLength(1);
    const payload = alertDtoSchema.parse(JSON.parse(ev[0]!.payload));
    expect(payload.overdue).toBe(true);
    expect(payload.history.at(-1)!.action).toBe('overdue');
    expect(h.engine.listAlerts({ overdue: true })).toHaveLength(1);
    expect(h.engine.listAlerts({ overdue: false })).toHaveLength(0);
    expect(h.events.filter((e) => e.type === 'alert' && e.action === 'overdue')).toHaveLength(1);
    // commits with events: the raise, the 1 h reminder (at due - 1 ms), the overdue; quiet ticks: none
    expect(h.notifyCalls.n).toBe(3);
  });

  it('a due moved while already overdue neither repeats the escalation nor leaves a stale timer', () => {
    emit(open('a', T0, T0 + 2 * H));
    expect(h.engine.tick(T0 + 3 * H).overdue).toBe(1);
    h.clock.now = T0 + 4 * H;
    emit({ type: 'update', key: 'a', at: T0 + 4 * H, dueAt: T0 + 2 * H + 30 * 60_000 });
    expect(h.engine.tick(T0 + 5 * H).overdue).toBe(0);
    expect(notifications(h.db, 'overdue')).toHaveLength(1);
    const pending = h.db.prepare('SELECT COUNT(*) AS n FROM timers WHERE fired_at IS NULL AND fire_at <= ?');
    expect(pending.get(T0 + 5 * H)).toEqual({ n: 0 });
    // moved into the future again: it is re-armed and escalates once more when that passes
    h.clock.now = T0 + 6 * H;
    emit({ type: 'update', key: 'a', at: T0 + 6 * H, dueAt: T0 + 8 * H });
    expect(h.engine.getAlert(h.engine.listAlerts()[0]!.id)!.overdue).toBe(false);
    expect(h.engine.tick(T0 + 9 * H).overdue).toBe(1);
  });

  it('sends reminders 24 h and 1 h before the due time, once each', () => {
    const due = T0 + 48 * H;
    emit(open('a', T0, due));
    const sent: number[] = [];
    for (let t = T0; t <= due + H; t += 10 * 60_000) {
      const r = h.engine.tick(t);
      for (let i = 0; i < r.reminders; i++) sent.push(t);
    }
    expect(sent).toEqual([due - 24 * H, due - H]);
    const rem = notifications(h.db, 'reminder');
    expect(rem.map((r) => JSON.parse(r.payload).history.at(-1).detail.hours)).toEqual([24, 1]);
    expect(new Set(notifications(h.db).map((r) => r.event_id)).size).toBe(notifications(h.db).length);
  });

  it('a reminder already behind at raise time is not sent; one missed while down goes out once, late', () => {
    const due = T0 + 10 * H;
    emit(open('a', T0, due));
    // down from due-12h .. due-30min: the 1 h reminder comes due while down
    expect(h.engine.tick(due - 30 * 60_000).reminders).toBe(1);
    expect(h.engine.tick(due - 20 * 60_000).reminders).toBe(0);
    expect(notifications(h.db, 'reminder')).toHaveLength(1);
  });

  it('resolved alerts neither remind nor go overdue', () => {
    const due = T0 + 48 * H;
    emit(open('a', T0, due));
    emit({ type: 'resolve', key: 'a', at: T0 + H, message: 'ok', evidence: {} });
    expect(h.engine.tick(due - 24 * H)).toEqual({ effects: 0, reminders: 0, overdue: 0 });
    expect(h.engine.tick(due + H).overdue).toBe(0);
    expect(h.db.prepare('SELECT COUNT(*) AS n FROM timers WHERE fired_at IS NULL').get()).toEqual({ n: 0 });
  });

  it('start() runs a catch-up tick at once', () => {
    emit(open('a', T0, T0 + H));
    h.clock.now = T0 + 5 * H;
    h.engine.start();
    expect(notifications(h.db, 'overdue')).toHaveLength(1);
    h.engine.stop();
  });

  it('the scheduler wakes for the next deadline before the periodic tick', async () => {
    const t = tempDir();
    const d = driven();
    const h2 = makeEngine(join(t.dir, 'gw.db'), () => [{ evaluator: d.evaluator }], {
      tickIntervalMs: 60_000,
    });
    const real = () => Date.now();
    h2.clock.now = real();
    Object.defineProperty(h2.clock, 'now', { get: real });
    h2.engine.start();
    d.queue.push([open('soon', real(), real() + 300)]);
    h2.engine.handleReadings([reading('site-a', 'panel-1', real(), { levelIn: 1 })]);
    await new Promise((r) => setTimeout(r, 1200));
    h2.engine.stop();
    expect(notifications(h2.db, 'overdue')).toHaveLength(1);
    h2.db.close();
    t.cleanup();
  });

  it('ticks reach the evaluators, whose effects are applied', () => {
    const t = tempDir();
    const silent = scripted('device-silent', (input) =>
      input.type === 'tick' && input.now >= T0 + 3 * H
        ? [
            {
              type: 'open',
              rule: 'device-silent',
              siteId: 'site-b',
              deviceId: 'rg-2',
              key: 'silent-rg-2',
              at: T0,
              message: 'rg-2 silent',
              evidence: {},
            },
          ]
        : [],
    );
    const h2 = makeEngine(join(t.dir, 'gw.db'), (site) =>
      site.id === 'site-b' ? [{ evaluator: silent, deviceId: 'rg-2' }] : [],
    );
    h2.engine.tick(T0 + H);
    expect(h2.engine.listAlerts()).toHaveLength(0);
    h2.engine.tick(T0 + 3 * H);
    h2.engine.tick(T0 + 4 * H);
    const alerts = h2.engine.listAlerts({ siteId: 'site-b', rule: 'device-silent' });
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.dueAt).toBeNull();
    expect(alerts[0]!.overdue).toBe(false);
    h2.db.close();
    t.cleanup();
  });
});

describe('restart', () => {
  it('a new engine on the same file continues a deadline: one overdue, no repeated reminder', () => {
    const file = join(tmp.dir, 'gw.db');
    const due = T0 + 48 * H;
    emit(open('a', T0, due));
    expect(h.engine.tick(due - 24 * H).reminders).toBe(1);
    h.db.close();

    const drv2 = driven();
    const h2 = makeEngine(file, (site) => (site.id === 'site-a' ? [{ evaluator: drv2.evaluator }] : []), {
      now: due + 3 * H,
    });
    h2.engine.start();
    h2.engine.stop();
    expect(h2.engine.tick(due + 4 * H).overdue).toBe(0);
    expect(notifications(h2.db, 'overdue')).toHaveLength(1);
    // the 1 h reminder fell while down and after the due time: skipped, never sent
    expect(notifications(h2.db, 'reminder')).toHaveLength(1);
    // the same occurrence key still maps to the same alert
    drv2.queue.push([open('a', T0, due)]);
    h2.engine.handleReadings([reading('site-a', 'panel-1', due + 5 * H, { levelIn: 9 })]);
    expect(h2.engine.listAlerts()).toHaveLength(1);
    // the rule state carried over: the stub counts every input (A: a reading and a tick; B: two ticks, a reading)
    const st = h2.db.prepare(`SELECT state FROM rule_state WHERE site_id = 'site-a'`).get() as {
      state: string;
    };
    expect(JSON.parse(st.state).n).toBe(5);
    h = h2;
  });
});
