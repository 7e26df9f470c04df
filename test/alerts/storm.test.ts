import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stormEvaluator } from '../../gateway/src/rules/storm-inspection/evaluator.ts';
import type { Evaluator } from '../../gateway/src/rules/types.ts';
import { completeInput } from '../helpers/inspections.ts';
import { H, type Harness, makeEngine, notifications, reading, T0, tempDir } from './support.ts';

let tmp: ReturnType<typeof tempDir>;
let h: Harness;
const MIN = 60_000;

beforeEach(() => {
  tmp = tempDir();
  h = makeEngine(join(tmp.dir, 'gw.db'), (site) =>
    site.devices
      .filter((d) => d.kind === 'rain-gauge')
      .map((d) => ({ evaluator: stormEvaluator as Evaluator<unknown>, deviceId: d.id })),
  );
});

afterEach(() => {
  if (h.db.open) h.db.close();
  tmp.cleanup();
});

describe('with the real storm-inspection evaluator', () => {
  it('raises at the threshold, moves the due while it rains, and an inspection closes it on time', () => {
    // cumulative counter: baseline 0, then 10 tips every 10 minutes up to 70 tips (0.70 in)
    const readings = Array.from({ length: 8 }, (_, i) =>
      reading('site-a', 'rg-1', T0 + i * 10 * MIN, { rainTips: i * 10 }),
    );
    h.clock.now = T0 + 80 * MIN;
    h.engine.handleReadings(readings);
    const [alert] = h.engine.listAlerts({ rule: 'storm-inspection' });
    expect(alert).toBeDefined();
    expect(alert!.siteId).toBe('site-a');
    expect(alert!.raisedAt).toBe(new Date(T0 + 50 * MIN).toISOString());
    expect(alert!.dueAt).toBe(new Date(T0 + 70 * MIN + 24 * H).toISOString());
    expect(h.engine.listAlerts()).toHaveLength(1);
    expect(notifications(h.db, 'raise')).toHaveLength(1);

    // dry for 7 hours: the event is closed
    h.clock.now = T0 + 8 * H;
    h.engine.tick(h.clock.now);
    const [storm] = h.engine.listStorms({ siteId: 'site-a' });
    expect(storm).toMatchObject({
      qualified: true,
      closed: true,
      tips: 70,
      inspection: { status: 'pending' },
    });

    h.clock.now = T0 + 20 * H;
    const r = h.engine.recordInspection(
      completeInput({ siteId: 'site-a', at: T0 + 20 * H, inspector: 'Ina', kind: 'storm' }),
      'ina',
    );
    const closed = h.engine.getAlert(alert!.id)!;
    expect(closed.status).toBe('resolved');
    expect(closed.withinDeadline).toBe(true);
    expect(r.inspection.id).toBeTruthy();
    expect(h.engine.listStorms({ siteId: 'site-a' })[0]!.inspection).toMatchObject({
      status: 'on-time',
      inspectionId: r.inspection.id,
    });
    expect(notifications(h.db, 'resolve')).toHaveLength(1);
    h.engine.tick(T0 + 3 * 24 * H);
    expect(notifications(h.db, 'overdue')).toHaveLength(0);
  });
});
