/**
 * An inspection's answer names every alert it closed: the storm inspection the engine closes, and the
 * routine period the routine rule closes itself on the inspection's feed (the API once answered with an
 * empty list although both were resolved).
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../gateway/src/config/load.ts';
import { openDatabase } from '../../gateway/src/store/db.ts';
import { testConfigInput } from '../helpers/gateway.ts';
import { completeInput } from '../helpers/inspections.ts';
import { H, reading, realEngine, T0, tempDir } from './support.ts';

describe('recordInspection: closedAlertIds', () => {
  let tmp: ReturnType<typeof tempDir> | undefined;
  afterEach(() => tmp?.cleanup());

  it('lists the storm and routine alerts the inspection resolved, and only those', () => {
    tmp = tempDir();
    const db = openDatabase(join(tmp.dir, 'gw'));
    let now = T0;
    const engine = realEngine(db, parseConfig(testConfigInput()), () => now);
    engine.tick(now); // the routine clock starts at the first tick
    // A storm of 0.8 in on rg-1 (0.01 in a tip), then 7 dry hours so that it ends.
    const tips = [];
    for (let i = 0; i <= 80; i++) tips.push(reading('maple-ridge', 'rg-1', T0 + i * 60_000, { rainTips: i }));
    engine.handleReadings(tips);
    now = T0 + 9 * 24 * H;
    engine.tick(now);
    const open = engine.listAlerts({ siteId: 'maple-ridge' }).filter((a) => a.status !== 'resolved');
    const byRule = (rule: string) => open.filter((a) => a.rule === rule).map((a) => a.id);
    expect(byRule('storm-inspection')).toHaveLength(1);
    expect(byRule('routine-inspection').length).toBeGreaterThan(0);

    const r = engine.recordInspection(
      completeInput({
        siteId: 'maple-ridge',
        at: now - H,
        inspector: 'Ina Spector',
        kind: 'storm',
        notes: '',
      }),
      'ina',
    );
    const resolved = engine
      .listAlerts({ siteId: 'maple-ridge' })
      .filter((a) => a.status === 'resolved')
      .map((a) => a.id);
    expect(resolved.length).toBeGreaterThanOrEqual(2);
    expect([...r.closedAlertIds].sort()).toEqual([...resolved].sort());
    expect(r.closedAlertIds).toEqual(expect.arrayContaining(byRule('storm-inspection')));
    expect(r.closedAlertIds.some((id) => byRule('routine-inspection').includes(id))).toBe(true);
    // Each says what closed it: this inspection (closed by the engine or by its rule on the feed).
    for (const id of r.closedAlertIds) {
      const a = engine.getAlert(id)!;
      const cause = { kind: 'inspection', inspectionId: r.inspection.id, inspector: 'Ina Spector' };
      expect(a.resolution?.cause).toMatchObject({ ...cause, inspectionKind: 'storm', at: r.inspection.at });
      expect(a.history.find((e) => e.action === 'resolved')?.detail.cause).toMatchObject(cause);
    }
    db.close();
  });
});
