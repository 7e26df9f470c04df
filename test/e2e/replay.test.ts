/**
 * The rules' states are committed once per slice with the cursor, and the readings after it evaluated
 * again at start: the gateway killed with SIGKILL at 20 random points while three devices publish a day
 * of readings leaves the same alerts, storm records, deadlines and notifications as a run without kills
 * (test/soak/replay.ts; `npm run soak:replay` is the long form).
 */
import { describe, expect, it } from 'vitest';
import { replayRun } from '../soak/replay.ts';

describe('killed at random points under load', () => {
  it('gives the same alerts, storms, deadlines and notifications as a run without kills, none twice', async () => {
    const r = await replayRun({ kills: 20, seed: 7 });
    expect(r.killedAtMs).toHaveLength(20);
    // The comparison has something to compare: storms qualified, alerts raised, notifications recorded.
    expect(r.reference.alerts.length).toBeGreaterThanOrEqual(4);
    expect(r.reference.storms.length).toBe(5);
    expect(r.reference.notifications.length).toBeGreaterThanOrEqual(4);
    expect(r.reference.auditProblems).toEqual([]);
    expect(r.differences).toEqual([]);
    expect(r.killed.evaluatedUpTo).toBe(r.killed.readings);
  }, 300_000);
});
