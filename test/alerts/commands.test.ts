/** People's commands: acknowledge, resolve with a note, extend by an engineer's letter (alerts/commands.ts). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AlertError } from '../../gateway/src/alerts/errors.ts';
import type { Effect, RuleInput } from '../../gateway/src/rules/types.ts';
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
      cause: { kind: 'person', by: 'owner' },
    });
    expect(r.history.at(-1)).toMatchObject({
      action: 'resolved',
      actor: 'owner',
      detail: { cause: { kind: 'person', by: 'owner' } },
    });
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
    // A remedy deadline: the rule whose module lets an engineer's letter extend it.
    emit(open('a', T0, due, { rule: 'equipment-remedy' } as Partial<Effect>));
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
    expect(auditAll(h.db).problems).toEqual([]);
  });
});

describe("an engineer's letter extends only the deadlines the law lets it", () => {
  it('refuses the 24-hour storm inspection, the 7-day report and the annual inspection; extends a remedy', () => {
    const due = T0 + 24 * H;
    const refused = ['storm-inspection', 'routine-inspection', 'annual-inspection'] as const;
    for (const rule of refused) emit(open(rule, T0, due, { rule } as Partial<Effect>));
    emit(open('field', T0, T0 + 30 * 24 * H, { rule: 'field-remedy' } as Partial<Effect>));
    const byKey = (key: string) => h.engine.listAlerts().find((a) => a.message === `tank high (${key})`)!;
    const letter = { newDueAt: due + 48 * H, engineer: 'P. Smith, PE', letterRef: 'LTR-1' };
    for (const rule of refused) {
      const a = byKey(rule);
      expect(() => h.engine.extend(a.id, 'eng', letter)).toThrow(
        expect.objectContaining({
          code: 'BAD_EXTENSION',
          message: expect.stringMatching(/allows no extension/),
        }),
      );
      const after = h.engine.getAlert(a.id)!;
      expect(after.dueAt).toBe(new Date(due).toISOString());
      expect(after.history.map((e) => e.action)).toEqual(['raised']);
    }
    expect(h.engine.listExtensions()).toEqual([]);
    const field = byKey('field');
    const x = h.engine.extend(field.id, 'eng', { ...letter, newDueAt: T0 + 40 * 24 * H });
    expect(x.dueAt).toBe(new Date(T0 + 40 * 24 * H).toISOString());
    expect(h.engine.listExtensions()).toHaveLength(1);
    expect(notifications(h.db, 'extension')).toHaveLength(1);
  });
});
