/**
 * The engine's clock (alerts/clock.ts): the wall clock watched against the monotonic clock. A jump is a
 * clock fault: logged, counted, shown in health, and meanwhile ticks keep the monotonic clock's time, so
 * no silence or deadline comes due that the real time did not bring. Back in step, or held for 10 min,
 * the wall clock is followed again.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClockWatch } from '../../gateway/src/alerts/clock.ts';
import { ComplianceEngine } from '../../gateway/src/alerts/engine.ts';
import { Registry } from '../../gateway/src/metrics.ts';
import { silentLog } from '../../gateway/src/pipeline.ts';
import { evaluatorsFor } from '../../gateway/src/rules/index.ts';
import { EvidenceLog } from '../../gateway/src/store/evidenceLog.ts';
import { configuredSites, H, openDb, reading, T0, tempDir, testConfig } from './support.ts';

const MIN = 60_000;

function clocks() {
  const c = { wall: T0, mono: 1_000 };
  const changes: number[] = [];
  const metrics = new Registry();
  const watch = new ClockWatch({
    wall: () => c.wall,
    monotonic: () => c.mono,
    log: silentLog,
    metrics,
    onChange: () => changes.push(c.mono),
  });
  const pass = (ms: number) => {
    c.wall += ms;
    c.mono += ms;
  };
  return { c, watch, changes, metrics, pass };
}

describe('the engine clock', () => {
  it('follows the wall clock while it keeps step with the monotonic clock, small corrections included', () => {
    const { c, watch, pass } = clocks();
    expect(watch.now()).toBe(T0);
    pass(MIN);
    c.wall += 90_000; // NTP steps it by 1.5 min: within the 5 min tolerance
    expect(watch.now()).toBe(c.wall);
    expect(watch.health()).toMatchObject({ name: 'clock', ok: true, jumps: 0 });
  });

  it('a jump of two days and back: a fault meanwhile, with the monotonic time; then the wall clock again', () => {
    const { c, watch, changes, metrics, pass } = clocks();
    watch.now();
    pass(10 * MIN);
    c.wall += 2 * 24 * H;
    expect(watch.now()).toBe(T0 + 10 * MIN);
    expect(changes).toHaveLength(1);
    expect(watch.health()).toMatchObject({ ok: false, jumps: 1, jumpMs: 2 * 24 * H });
    expect(watch.health().detail).toMatch(/2 d ahead of the monotonic clock/);
    expect(metrics.render()).toMatch(/gateway_clock_jumps_total 1/);
    expect(metrics.render()).toMatch(/gateway_clock_fault 1/);
    pass(MIN);
    expect(watch.now()).toBe(T0 + 11 * MIN);
    c.wall -= 2 * 24 * H;
    expect(watch.now()).toBe(T0 + 11 * MIN);
    expect(changes).toHaveLength(2);
    expect(watch.health()).toMatchObject({
      ok: true,
      jumps: 1,
      lastJump: { jumpMs: 2 * 24 * H, how: 'back in step' },
    });
    expect(metrics.render()).toMatch(/gateway_clock_fault 0/);
  });

  it('a wall clock that holds its new time for 10 min is taken as right (a correction)', () => {
    const { c, watch, pass } = clocks();
    watch.now();
    c.wall -= 3 * H;
    expect(watch.now()).toBe(T0);
    pass(9 * MIN);
    expect(watch.now()).toBe(T0 + 9 * MIN);
    pass(MIN);
    expect(watch.now()).toBe(T0 - 3 * H + 10 * MIN);
    expect(watch.health()).toMatchObject({ ok: true, lastJump: { how: 'taken' } });
  });

  it('a start is never a jump: the first reading of the clocks is taken as it is', () => {
    const { c, watch } = clocks();
    c.wall = T0 + 2 * 24 * H;
    expect(watch.now()).toBe(T0 + 2 * 24 * H);
    expect(watch.health().ok).toBe(true);
  });
});

describe('the engine on a clock fault', () => {
  let cleanup: (() => void) | undefined;
  afterEach(() => cleanup?.());

  function engine() {
    const tmp = tempDir();
    const db = openDb(join(tmp.dir, 'gw.db'));
    const c = { wall: T0, mono: 5_000 };
    const config = testConfig();
    const eng = new ComplianceEngine({
      db,
      evidence: new EvidenceLog(db),
      config,
      sites: configuredSites(config),
      evaluatorsFor,
      now: () => c.wall,
      monotonic: () => c.mono,
      log: silentLog,
      metrics: new Registry(),
    });
    cleanup = () => {
      eng.stop();
      db.close();
      tmp.cleanup();
    };
    const silent = () => eng.listAlerts({ rule: 'device-silent', status: 'open' });
    return { eng, c, silent };
  }

  it('a jump raises no silence; back in step, none; a jump the clock holds brings them, deferred', () => {
    const { eng, c, silent } = engine();
    eng.handleReadings([reading('site-a', 'rg-1', T0, { rainTips: 1 })]);
    eng.start();
    expect(silent()).toHaveLength(0);
    c.wall += 2 * 24 * H;
    c.mono += MIN;
    eng.tick();
    expect(silent()).toHaveLength(0);
    expect(eng.clockHealth()).toMatchObject({ name: 'clock', ok: false });
    c.wall -= 2 * 24 * H;
    c.mono += MIN;
    eng.tick();
    expect(silent()).toHaveLength(0);
    expect(eng.clockHealth().ok).toBe(true);
    // Two days ahead again, and it stays: after 10 min it is the time, and the devices are silent.
    c.wall += 2 * 24 * H;
    c.mono += MIN;
    eng.tick();
    expect(silent()).toHaveLength(0);
    c.wall += 11 * MIN;
    c.mono += 11 * MIN;
    eng.tick();
    expect(silent().length).toBeGreaterThan(0);
  });
});
