/**
 * The time an inspection meets a duty, through the engine and the real rules: the engineer's annual
 * report meets its deadline by its submittal (the gateway's clock when it was recorded), the date of the
 * work beside it; a routine inspection on the land by when it was made, whenever it was recorded.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../gateway/src/config/load.ts';
import { openDatabase } from '../../gateway/src/store/db.ts';
import { testConfigInput } from '../helpers/gateway.ts';
import { realEngine, tempDir } from './support.ts';

const at = (s: string) => Date.parse(s);

describe('an inspection meets a duty by the time its rule measures', () => {
  let tmp: ReturnType<typeof tempDir> | undefined;
  afterEach(() => tmp?.cleanup());

  function engineAt(start: number) {
    tmp = tempDir();
    const db = openDatabase(join(tmp.dir, 'gw'));
    const clock = { now: start };
    const engine = realEngine(db, parseConfig(testConfigInput()), () => clock.now);
    engine.tick(clock.now);
    return { engine, clock, db };
  }

  it('annual: done on July 25, submitted on August 3 is late; the answer shows both times', () => {
    const { engine, clock, db } = engineAt(at('2026-07-10T12:00:00-04:00'));
    const open = engine.listAlerts({ siteId: 'oak-lane' }).find((a) => a.rule === 'annual-inspection')!;
    // The 60th day after the June 1 letter, July 31, is whole.
    expect(open.dueAt).toBe(new Date(at('2026-08-01T00:00:00-04:00') - 1).toISOString());
    clock.now = at('2026-08-03T15:00:00-04:00');
    const work = at('2026-07-25T09:00:00-04:00');
    const r = engine.recordInspection(
      {
        siteId: 'oak-lane',
        at: work,
        inspector: 'P.E. Smith',
        kind: 'annual',
        notes: 'Every part inspected.',
      },
      'smith',
    );
    expect(r.inspection.at).toBe(new Date(work).toISOString());
    expect(r.inspection.recordedAt).toBe(new Date(clock.now).toISOString());
    const a = engine.listAlerts({ siteId: 'oak-lane' }).find((x) => x.id === open.id)!;
    expect(r.closedAlertIds).toContain(a.id);
    expect(a.status).toBe('resolved');
    expect(a.resolvedAt).toBe(new Date(clock.now).toISOString());
    expect(a.withinDeadline).toBe(false);
    expect(a.resolution?.evidence).toMatchObject({
      inspectedAt: new Date(work).toISOString(),
      submittedAt: new Date(clock.now).toISOString(),
      onTime: false,
    });
    db.close();
  });

  it('annual: submitted on July 31 at 23:30 local is on time', () => {
    const { engine, clock, db } = engineAt(at('2026-07-10T12:00:00-04:00'));
    clock.now = at('2026-07-31T23:30:00-04:00');
    engine.recordInspection(
      {
        siteId: 'oak-lane',
        at: at('2026-07-31T11:30:00-04:00'),
        inspector: 'P.E. Smith',
        kind: 'annual',
        notes: 'Every part inspected.',
      },
      'smith',
    );
    const a = engine.listAlerts({ siteId: 'oak-lane' }).find((x) => x.rule === 'annual-inspection')!;
    expect(a).toMatchObject({ status: 'resolved', withinDeadline: true });
    expect(a.resolvedAt).toBe(new Date(clock.now).toISOString());
    db.close();
  });

  it('routine: made on the 7th day, recorded two days later, is on time by its work', () => {
    const start = at('2026-06-01T16:00:00-04:00');
    const { engine, clock, db } = engineAt(start);
    const period = engine
      .listAlerts({ siteId: 'maple-ridge' })
      .find((a) => a.rule === 'routine-inspection' && a.status !== 'resolved')!;
    expect(period.dueAt).toBe(new Date(at('2026-06-09T00:00:00-04:00') - 1).toISOString());
    clock.now = at('2026-06-10T09:00:00-04:00');
    const work = at('2026-06-08T17:00:00-04:00');
    engine.recordInspection(
      {
        siteId: 'maple-ridge',
        at: work,
        inspector: 'Dev Eloper',
        kind: 'routine',
        notes: 'Every part inspected.',
      },
      'dev',
    );
    const a = engine.listAlerts({ siteId: 'maple-ridge' }).find((x) => x.id === period.id)!;
    expect(a).toMatchObject({ status: 'resolved', withinDeadline: true });
    expect(a.resolvedAt).toBe(new Date(work).toISOString());
    db.close();
  });
});
