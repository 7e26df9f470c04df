/**
 * The port enforcement runs on, over a real engine and a real SQLite store: each change of enforcement is
 * one unit of work of the engine (its rows, their evidence-log entries, the remedy duty the
 * violation-remedy rule opens or closes, its notification), committed together or not at all, after the
 * engine's open slice of readings.
 */
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ComplianceEngine } from '../../gateway/src/alerts/engine.ts';
import { type Enforcement, enginePort, openEnforcement } from '../../gateway/src/enforcement/index.ts';
import type { EnforcementPort } from '../../gateway/src/enforcement/port.ts';
import { codeOf } from '../../gateway/src/store/evidenceLog.ts';
import { H, notifications, openDb, reading, realEngine, T0, tempDir, testConfig } from '../alerts/support.ts';
import { auditAll } from '../helpers/evidence.ts';

const DAY = 24 * H;
let tmp: ReturnType<typeof tempDir>;
let db: Database.Database;
let engine: ComplianceEngine;
let port: EnforcementPort;
let enforcement: Enforcement;
let notified: number;
const clock = { now: T0 };

const entries = () => (db.prepare('SELECT COUNT(*) AS n FROM log_entries').get() as { n: number }).n;
const duties = () => engine.listAlerts({ siteId: 'site-a', rule: 'violation-remedy' });
const issue = () =>
  enforcement.violations.issue(
    {
      siteId: 'site-a',
      law: '001',
      orderKind: 'correct',
      nature: 'Silt fence down for 40 ft.',
      remedy: 'Reinstall the silt fence.',
      remedyDueAt: T0 + 7 * DAY,
      penalties: 'Up to $250 a day.',
      parties: { siteAddress: 'Lots 1-24, Maple Ridge Road' },
    },
    'Ida Inspector',
  );

beforeEach(() => {
  tmp = tempDir();
  db = openDb(join(tmp.dir, 'gw.db'));
  clock.now = T0;
  notified = 0;
  engine = realEngine(db, testConfig(), () => clock.now);
  engine.onNotify(() => {
    notified++;
  });
  port = enginePort(engine);
  enforcement = openEnforcement(db, port);
});
afterEach(() => {
  engine.stop();
  db.close();
  tmp.cleanup();
});

describe('the enforcement port over the alert engine', () => {
  it('issues a notice in one unit of work: its row and entry, its remedy duty, its notification', () => {
    const { id, issuedAt } = issue();
    expect(issuedAt).toBe(new Date(T0).toISOString());
    const v = enforcement.violations.get(id)!;
    const entry = db.prepare('SELECT kind, ref FROM log_entries WHERE idx = ?').get(v.logIndex) as {
      kind: number;
      ref: string;
    };
    expect(entry).toEqual({ kind: codeOf('violation'), ref: '1' });
    const [duty, ...more] = duties();
    expect(more).toEqual([]);
    expect(duty).toMatchObject({ status: 'open', dueAt: new Date(T0 + 7 * DAY).toISOString() });
    expect(notifications(db, 'violation')).toHaveLength(1);
    expect(notified).toBe(1);
    expect(auditAll(db).problems).toEqual([]);
  });

  it('writes a stop-work order’s and its lifting’s notifications with the parties; an e-mail serves a party once', () => {
    const parties = { landowner: { name: 'Pat', address: '1 Elm St', email: 'pat@land.example' } };
    const ok = () => undefined;
    const o = enforcement.violations.stopWork(
      'site-a',
      { reason: 'Sediment leaving the site.', violationIds: [], by: 'Ida Inspector', law: '001', parties },
      ok,
    );
    const [issued] = notifications(db, 'stop-work');
    expect(issued).toMatchObject({ event_id: `stop-work:${o.id}`, alert_id: o.id, site_id: 'site-a' });
    expect(JSON.parse(issued!.payload)).toMatchObject({ id: o.id, landowner: parties.landowner });
    expect(notified).toBe(1);
    const email = {
      method: 'email' as const,
      party: 'pat@land.example',
      servedAt: T0 + 1000,
      by: 'e-mail delivery',
    };
    expect(enforcement.violations.serveOrder(o.id, email, ok)?.servedAt).toBe(
      new Date(T0 + 1000).toISOString(),
    );
    // The same address delivered again (a resend after a crash): not a second service.
    expect(enforcement.violations.serveOrder(o.id, { ...email, servedAt: T0 + 5000 }, ok)).toBeUndefined();
    expect(enforcement.violations.order(o.id)!.services).toHaveLength(1);
    const lifted = enforcement.violations.lift(
      'site-a',
      { note: 'Compliant.', override: false, by: 'Ida Inspector', parties },
      (x) => {
        if (!x) throw new Error('no order in effect');
      },
    );
    const events = notifications(db, 'stop-work');
    expect(events.map((e) => e.event_id)).toEqual([`stop-work:${o.id}`, `stop-work-lifted:${o.id}`]);
    expect(JSON.parse(events[1]!.payload)).toMatchObject({
      liftedAt: lifted.liftedAt,
      services: [{ party: 'pat@land.example' }],
    });
    expect(auditAll(db).problems).toEqual([]);
  });

  it('closes the remedy duty with the approval, in the approval’s transaction', () => {
    const { id } = issue();
    clock.now = T0 + DAY;
    enforcement.violations.step(id, 'approved', { text: 'Checked on site.', by: 'Ida Inspector' }, () => {});
    expect(duties().map((a) => a.status)).toEqual(['resolved']);
    expect(enforcement.violations.get(id)).toMatchObject({ status: 'approved', onTime: true });
  });

  it('rolls the whole change back on a throw: no row, no entry, the duty as it was', () => {
    const { id } = issue();
    const before = entries();
    expect(() =>
      port.run((tx) => {
        tx.feedViolation({
          type: 'violation',
          step: 'approved',
          siteId: 'site-a',
          id,
          at: tx.now,
          remedyDueAt: T0 + 7 * DAY,
          nature: 'Silt fence down for 40 ft.',
          by: 'Ida Inspector',
        });
        port.appendEvidence([{ kind: 'violation-event', ref: '99', at: tx.now, body: '{}', keepBody: true }]);
        throw new Error('refused');
      }),
    ).toThrow('refused');
    expect(entries()).toBe(before);
    expect(duties().map((a) => a.status)).toEqual(['open']);
    // The log's edge was taken back too: what follows is appended where the rollback left it.
    expect(() =>
      enforcement.violations.step(id, 'appealed', { text: 'x', by: 'Dana Developer' }, () => {
        throw new Error('not now');
      }),
    ).toThrow('not now');
    issue();
    expect(auditAll(db).problems).toEqual([]);
  });

  it('appends to the evidence log only inside a unit of work', () => {
    const before = entries();
    expect(() =>
      port.appendEvidence([{ kind: 'violation', ref: '1', at: T0, body: '{}', keepBody: true }]),
    ).toThrow(/only inside a unit of work/);
    expect(entries()).toBe(before);
  });

  it('commits the engine’s open slice of readings before a change and before a list of notices', () => {
    engine.stageReadings([reading('site-a', 'rg-1', T0, { rainTips: 1 })]);
    expect(engine.staged).toBe(1);
    enforcement.notices.list({});
    expect(engine.staged).toBe(0);
    engine.stageReadings([reading('site-a', 'rg-1', T0 + 1000, { rainTips: 2 })]);
    enforcement.notices.file(
      { siteId: 'site-a', milestone: 'start-of-construction', at: T0 + 3 * DAY },
      'Dana',
    );
    expect(engine.staged).toBe(0);
  });

  it('leaves the engine no enforcement method of its own', () => {
    for (const m of ['enforcement', 'fileNotice', 'listNotices']) expect(m in engine, m).toBe(false);
  });
});
