/** Deadlines: reminders before the due time and the overdue escalation, once each (alerts/deadlines.ts). */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Effect } from '../../gateway/src/rules/types.ts';
import { alertDtoSchema } from '../../shared/src/api/alerts.ts';
import { waitFor } from '../helpers/env.ts';
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
    // Well before the periodic tick (60 s).
    await waitFor(() => notifications(h2.db, 'overdue').length > 0, 10_000, 'the overdue notification');
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
