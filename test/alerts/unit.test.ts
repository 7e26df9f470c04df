/** The unit of work: the updates to an alert in one transaction are one history row and one event (alerts/unit.ts). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Effect } from '../../gateway/src/rules/types.ts';
import { alertDtoSchema } from '../../shared/src/api/alerts.ts';
import { auditAll } from '../helpers/evidence.ts';
import {
  closeHarness,
  type Driven,
  drivenHarness,
  emitReading,
  H,
  type Harness,
  notifications,
  open,
  reading,
  T0,
  type tempDir,
} from './support.ts';

let tmp: ReturnType<typeof tempDir>;
let h: Harness;
let drv: Driven;
const emit = (...effects: Effect[]) => emitReading(h, drv, effects);

beforeEach(() => {
  ({ tmp, drv, h } = drivenHarness());
});

afterEach(() => closeHarness(h, tmp));

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
    expect(auditAll(h.db).problems).toEqual([]);
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
    expect(auditAll(h.db).problems).toEqual([]);
    expect(
      h.db.prepare('SELECT COUNT(*) AS n FROM timers WHERE alert_id = ? AND fired_at IS NULL').get(a.id),
    ).toEqual({ n: 0 });
  });
});
