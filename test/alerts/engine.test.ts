/** The engine facade: batches of readings and a restart on the same store (alerts/engine.ts). */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Effect } from '../../gateway/src/rules/types.ts';
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
