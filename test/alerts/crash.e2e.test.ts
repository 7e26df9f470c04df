import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/env.ts';
import { auditAll } from '../helpers/evidence.ts';
import { H, levelEvaluator, makeEngine, notifications, openDb, reading, T0, tempDir } from './support.ts';

const root = join(import.meta.dirname, '..', '..');
let child: ChildProcess | undefined;
let tmp: ReturnType<typeof tempDir> | undefined;

/** SIGKILL to the child's whole process group (npx, then tsx, then node). */
function killGroup(c: ChildProcess): void {
  try {
    process.kill(-c.pid!, 'SIGKILL');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

afterEach(() => {
  if (child) killGroup(child);
  tmp?.cleanup();
});

describe('crash safety', () => {
  it('a process killed with SIGKILL mid-way leaves a consistent store that a new engine continues', async () => {
    tmp = tempDir();
    const file = join(tmp.dir, 'gw.db');
    child = spawn('npx', ['tsx', join(root, 'test/alerts/fixtures/crashChild.ts'), file], {
      cwd: root,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let rounds = 0;
    let stderr = '';
    child.stdout!.on('data', (b: Buffer) => {
      rounds += b.toString().split('\n').filter(Boolean).length;
    });
    child.stderr!.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    // past 40 rounds (6 h 40 min of simulated time) reminders and overdue escalations have fired
    await waitFor(() => rounds >= 40 || child!.exitCode !== null, 45_000, 'child rounds');
    expect(stderr).toBe('');
    const exited = new Promise<void>((r) => child!.once('exit', () => r()));
    killGroup(child);
    await exited;
    expect(child.signalCode).toBe('SIGKILL');
    // the grandchild that held the database is gone too: a write lock can be taken at once
    await waitFor(
      () => {
        const probe = openDb(file);
        try {
          probe.pragma('busy_timeout = 0');
          probe.exec('BEGIN IMMEDIATE; ROLLBACK;');
          return true;
        } finally {
          probe.close();
        }
      },
      10_000,
      'the killed process to release the database',
    );

    // the store as the killed process left it
    const db = openDb(file);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const n = (db.prepare('SELECT COUNT(*) AS n FROM alerts').get() as { n: number }).n;
    const state = JSON.parse(
      (db.prepare(`SELECT state FROM rule_state WHERE site_id = 'site-a'`).get() as { state: string }).state,
    ) as { n: number };
    // the rule state and its effects were committed together
    expect(n).toBeGreaterThanOrEqual(40);
    expect(state.n).toBe(n);
    const perAlert = db
      .prepare(
        `SELECT a.id,
           (SELECT COUNT(*) FROM alert_history h WHERE h.alert_id = a.id AND h.action = 'raised') AS raised,
           (SELECT COUNT(*) FROM notification_events e WHERE e.alert_id = a.id AND e.kind = 'raise') AS raiseEv,
           (SELECT COUNT(*) FROM notification_events e WHERE e.alert_id = a.id AND e.kind = 'overdue') AS overdueEv,
           (SELECT COUNT(*) FROM alert_history h WHERE h.alert_id = a.id AND h.action = 'overdue') AS overdueH,
           a.overdue_notified AS flagged
         FROM alerts a`,
      )
      .all() as Array<{
      raised: number;
      raiseEv: number;
      overdueEv: number;
      overdueH: number;
      flagged: number;
    }>;
    for (const a of perAlert) {
      expect(a.raised).toBe(1);
      expect(a.raiseEv).toBe(1);
      expect(a.overdueEv).toBe(a.flagged);
      expect(a.overdueH).toBe(a.flagged);
    }
    expect(perAlert.filter((a) => a.flagged === 1).length).toBeGreaterThan(20);
    db.close();

    // a new engine on the same file: catch-up flags every remaining deadline exactly once
    const later = T0 + (n + 100) * (H / 6);
    const h = makeEngine(
      file,
      (site) => (site.id === 'site-a' ? [{ evaluator: levelEvaluator(2), deviceId: 'panel-1' }] : []),
      {
        now: later,
      },
    );
    h.engine.start();
    h.engine.stop();
    h.engine.tick(later + H);
    expect(auditAll(h.db).problems).toEqual([]);
    expect(notifications(h.db, 'overdue')).toHaveLength(n);
    const reminders = h.db
      .prepare(
        `SELECT alert_id, COUNT(*) AS c FROM notification_events WHERE kind = 'reminder' GROUP BY alert_id`,
      )
      .all() as Array<{ c: number }>;
    expect(reminders.every((r) => r.c === 1)).toBe(true);
    expect(h.db.prepare('SELECT COUNT(*) AS n FROM timers WHERE fired_at IS NULL').get()).toEqual({ n: 0 });
    const ids = notifications(h.db).map((e) => e.event_id);
    expect(new Set(ids).size).toBe(ids.length);

    // and continues the rule's occurrences without reusing a key
    h.engine.handleReadings([reading('site-a', 'panel-1', later, { levelIn: 70 })]);
    expect(h.engine.listAlerts({ limit: 10_000 })).toHaveLength(n + 1);
    expect(h.engine.listAlerts({ status: 'open', overdue: false })[0]!.evidence).toEqual({ levelIn: 70 });
    h.db.close();
  });
});
