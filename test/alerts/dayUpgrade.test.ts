/**
 * A store written before deadlines were counted as the law counts days: the routine and remedy rules'
 * stored states of version 1 (periods of 7 x 24 h, remedies of 5 x 24 h) are upgraded when loaded, and
 * the next tick moves their open alerts' due times to the end of the last day, in the site's time zone.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../gateway/src/config/load.ts';
import { openDatabase } from '../../gateway/src/store/db.ts';
import { testConfigInput } from '../helpers/gateway.ts';
import { reading, realEngine, tempDir } from './support.ts';

const at = (s: string) => Date.parse(s);
const DAY = 86_400_000;

describe('stored states of version 1, upgraded', () => {
  let tmp: ReturnType<typeof tempDir> | undefined;
  afterEach(() => tmp?.cleanup());

  it('the open routine period and remedy alert get the due time counted in whole days', () => {
    tmp = tempDir();
    const file = join(tmp.dir, 'gw');
    const config = parseConfig(testConfigInput());
    const start = at('2026-06-01T16:00:00-04:00');
    let db = openDatabase(file);
    let now = start;
    let engine = realEngine(db, config, () => now);
    engine.tick(now);
    // A pump alarm at Oak Lane, held past its 60 s.
    engine.handleReadings([
      { ...reading('oak-lane', 'panel-1', start), values: {}, alarms: { pump: true } },
      { ...reading('oak-lane', 'panel-1', start + 61_000), values: {}, alarms: { pump: true } },
    ]);
    const routine = () =>
      engine.listAlerts({ siteId: 'maple-ridge' }).find((a) => a.rule === 'routine-inspection')!;
    const pump = () => engine.listAlerts({ siteId: 'oak-lane' }).find((a) => a.rule === 'equipment-remedy')!;
    expect(routine().dueAt).toBe(new Date(at('2026-06-09T00:00:00-04:00') - 1).toISOString());
    expect(pump().dueAt).toBe(new Date(at('2026-06-07T00:00:00-04:00') - 1).toISOString());

    // As the release before stored them: states of version 1, due times of 7 and 5 x 24 h.
    const state = (rule: string) =>
      db
        .prepare<[string], { state: string; site_id: string; device_id: string }>(
          'SELECT state, site_id, device_id FROM rule_state WHERE rule = ?',
        )
        .get(rule)!;
    const r = state('routine-inspection');
    const rs = JSON.parse(r.state) as { v: number; period: { dueAt: number } };
    rs.v = 1;
    rs.period.dueAt = start + 7 * DAY;
    const p = state('equipment-remedy+field-remedy');
    const ps = JSON.parse(p.state) as { v: number };
    ps.v = 1;
    const setState = db.prepare('UPDATE rule_state SET state = ? WHERE rule = ? AND site_id = ?');
    setState.run(JSON.stringify(rs), 'routine-inspection', r.site_id);
    setState.run(JSON.stringify(ps), 'equipment-remedy+field-remedy', p.site_id);
    const setDue = db.prepare('UPDATE alerts SET due_at = ?, original_due_at = ? WHERE id = ?');
    setDue.run(start + 7 * DAY, start + 7 * DAY, routine().id);
    setDue.run(start + 5 * DAY, start + 5 * DAY, pump().id);
    db.close();

    db = openDatabase(file);
    now = start + 2 * 3_600_000;
    engine = realEngine(db, config, () => now);
    expect(routine().dueAt).toBe(new Date(start + 7 * DAY).toISOString());
    engine.tick(now);
    expect(routine().dueAt).toBe(new Date(at('2026-06-09T00:00:00-04:00') - 1).toISOString());
    expect(pump().dueAt).toBe(new Date(at('2026-06-07T00:00:00-04:00') - 1).toISOString());
    expect(JSON.parse(state('routine-inspection').state)).toMatchObject({ v: 2 });
    expect(JSON.parse(state('routine-inspection').state).recount).toBeUndefined();
    expect(JSON.parse(state('equipment-remedy+field-remedy').state).recount).toBeUndefined();
    db.close();
  });
});
