/** The rules bound to a site: their effects become alerts and storm records (alerts/rules.ts). */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Effect } from '../../gateway/src/rules/types.ts';
import { alertDtoSchema } from '../../shared/src/api/alerts.ts';
import {
  closeHarness,
  type Driven,
  driven,
  drivenHarness,
  emitReading,
  H,
  type Harness,
  makeEngine,
  notifications,
  open,
  reading,
  scripted,
  T0,
  tempDir,
} from './support.ts';

let tmp: ReturnType<typeof tempDir>;
let h: Harness;
let drv: Driven;
const emit = (...effects: Effect[]) => emitReading(h, drv, effects);

beforeEach(() => {
  ({ tmp, drv, h } = drivenHarness());
});

afterEach(() => closeHarness(h, tmp));

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
      // Closed on a reading: the readings, at the reading's time.
      cause: expect.objectContaining({ kind: 'readings', at: new Date(T0 + 2 * H).toISOString() }),
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
