/**
 * Readings behind a storm, an alert, a notice of violation or a stop-work order outlive the general
 * retention (730 days): the store's housekeeping (`StoreStage.prune`, on a real SQLite store, with the
 * windows `main.ts` registers) keeps them for `storage.evidenceRetentionDays` (five years by default; 0:
 * for good), removes the others, and the evidence log still verifies.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ALERT_READINGS } from '../../gateway/src/alerts/stores/alerts.ts';
import { STORM_READINGS } from '../../gateway/src/alerts/stores/storms.ts';
import { parseConfig } from '../../gateway/src/config/load.ts';
import { STOP_WORK_READINGS, VIOLATION_READINGS } from '../../gateway/src/enforcement/index.ts';
import { silentLog } from '../../gateway/src/pipeline.ts';
import { prunableRanges } from '../../gateway/src/store/readingWindows.ts';
import { StoreStage } from '../../gateway/src/store/stage.ts';
import type { Reading } from '../../shared/src/telemetry.ts';
import { auditAll } from '../helpers/evidence.ts';
import { testConfigInput } from '../helpers/gateway.ts';

const at = (iso: string) => Date.parse(iso);
const NOW = at('2032-06-01T12:00:00Z');

const reading = (siteId: string, deviceId: string, ts: number): Reading => ({
  siteId,
  deviceId,
  deviceKind: deviceId.startsWith('rg')
    ? 'rain-gauge'
    : deviceId.startsWith('trap')
      ? 'sediment-trap'
      : 'septic-panel',
  ts,
  receivedAt: ts,
  transport: 'mqtt',
  values: { rainTips: 1 },
});

describe('retention keeps the readings behind the records (real SQLite store)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  const stage = (storage: Record<string, unknown> = {}) => {
    const dir = mkdtempSync(join(tmpdir(), 'retention-'));
    dirs.push(dir);
    const config = parseConfig({ ...testConfigInput(), storage });
    return new StoreStage({
      dataDir: dir,
      storage: config.storage,
      photos: config.photos,
      photoCitations: [],
      readingWindows: [STORM_READINGS, ALERT_READINGS, VIOLATION_READINGS, STOP_WORK_READINGS],
      log: silentLog,
      now: () => NOW,
    });
  };

  /** The records and the readings around them; the readings' ids by name. */
  const fill = (s: StoreStage) => {
    const { db, readings } = s;
    const ids = new Map<string, number>();
    const put = (name: string, siteId: string, deviceId: string, iso: string) =>
      ids.set(name, readings.insert(reading(siteId, deviceId, at(iso)))!.id);
    db.transaction(() => {
      // The catalogue's devices (their readings go a time range at a time); elm's panel-2 is none of
      // them (its readings are checked one by one).
      const site = db.prepare(
        "INSERT INTO sites (id, config, created_at, updated_at) VALUES (?, '{}', 0, 0)",
      );
      const device = db.prepare(
        "INSERT INTO devices (site_id, id, config, created_at) VALUES (?, ?, '{}', 0)",
      );
      for (const [s, ds] of [
        ['maple-ridge', ['rg-1', 'rg-2', 'trap-1']],
        ['oak-lane', ['panel-1']],
        ['birch', ['rg-9']],
      ] as const) {
        site.run(s);
        for (const d of ds) device.run(s, d);
      }
      // Older than 730 days, younger than five years.
      put('in a storm', 'maple-ridge', 'rg-1', '2029-01-10T06:00:00Z');
      put('after the storm', 'maple-ridge', 'rg-1', '2029-01-11T06:00:00Z');
      put('another gauge in the storm', 'maple-ridge', 'rg-2', '2029-01-10T06:00:00Z');
      put('in a small rain', 'maple-ridge', 'rg-1', '2029-01-20T06:00:00Z');
      put('in an alert', 'maple-ridge', 'trap-1', '2029-03-02T00:00:00Z');
      put('the day before an alert', 'maple-ridge', 'trap-1', '2029-02-28T12:00:00Z');
      put('other device during an alert', 'maple-ridge', 'rg-1', '2029-03-02T00:00:00Z');
      put('after the alert closed', 'maple-ridge', 'trap-1', '2029-03-06T00:00:00Z');
      put('a month before a notice', 'oak-lane', 'panel-1', '2029-05-10T00:00:00Z');
      put('two months before a notice', 'oak-lane', 'panel-1', '2029-04-01T00:00:00Z');
      put('while a notice stands', 'oak-lane', 'panel-1', '2030-01-01T00:00:00Z');
      put('during a stop-work order', 'birch', 'rg-9', '2029-09-05T00:00:00Z');
      put('after the order was lifted', 'birch', 'rg-9', '2029-09-20T00:00:00Z');
      put('during an open site alert', 'elm', 'panel-2', '2030-02-01T00:00:00Z');
      // Older than five years: gone whatever it rests on.
      put('in a storm six years ago', 'maple-ridge', 'rg-1', '2026-01-10T06:00:00Z');
      // Younger than 730 days: kept by the general retention.
      put('recent', 'maple-ridge', 'rg-1', '2031-01-10T06:00:00Z');

      const storm = db.prepare(
        `INSERT INTO storms (id, site_id, device_id, start, end, tips, inches, qualified, closed, created_at, updated_at)
         VALUES (?, 'maple-ridge', 'rg-1', ?, ?, 60, 0.6, ?, 1, 0, 0)`,
      );
      storm.run('s1', at('2029-01-10T00:00:00Z'), at('2029-01-10T12:00:00Z'), 1);
      storm.run('s2', at('2029-01-20T00:00:00Z'), at('2029-01-20T12:00:00Z'), 0);
      storm.run('s0', at('2026-01-10T00:00:00Z'), at('2026-01-10T12:00:00Z'), 1);
      const alert = db.prepare(
        `INSERT INTO alerts (id, key, rule, site_id, device_id, status, raised_at, resolved_at, message, evidence, created_at, updated_at)
         VALUES (?, ?, 'a-rule', ?, ?, ?, ?, ?, 'm', '{}', 0, 0)`,
      );
      alert.run(
        'a1',
        'k1',
        'maple-ridge',
        'trap-1',
        'resolved',
        at('2029-03-01T00:00:00Z'),
        at('2029-03-05T00:00:00Z'),
      );
      alert.run('a2', 'k2', 'elm', null, 'open', at('2029-11-01T00:00:00Z'), null);
      db.prepare(
        `INSERT INTO violations (id, site_id, site_seq, nature, remedy, remedy_due_at, penalties, at, issued_by,
           appeal_by, parties, hash, log_idx) VALUES ('v1', 'oak-lane', 1, 'n', 'r', ?, '[]', ?, 'Officer', ?, '[]', 'h', 0)`,
      ).run(at('2029-07-01T00:00:00Z'), at('2029-06-01T00:00:00Z'), at('2029-06-16T00:00:00Z'));
      db.prepare(
        `INSERT INTO stop_work (id, site_id, site_seq, reason, violation_ids, at, issued_by, hash, log_idx)
         VALUES ('o1', 'birch', 1, 'r', '[]', ?, 'Officer', 'h', 0)`,
      ).run(at('2029-09-01T00:00:00Z'));
      db.prepare(
        `INSERT INTO stop_work_events (order_id, kind, at, by, note, override, hash, log_idx)
         VALUES ('o1', 'lifted', ?, 'Officer', 'n', 0, 'h', 0)`,
      ).run(at('2029-09-10T00:00:00Z'));
    })();
    return ids;
  };

  const left = (s: StoreStage, ids: Map<string, number>) => {
    const rows = new Set(
      (s.db.prepare('SELECT id FROM readings').all() as Array<{ id: number }>).map((r) => r.id),
    );
    return [...ids].filter(([, id]) => rows.has(id)).map(([name]) => name);
  };

  it('keeps five years the readings of a storm, an alert, a notice and an order, and no others', async () => {
    const s = stage();
    const ids = fill(s);
    const readingProblems = () => auditAll(s.db).problems.filter((p) => p.kind !== 'storm');
    expect(readingProblems()).toEqual([]);
    const next = s.evidence.nextIndex();
    s.prune();
    expect(left(s, ids).sort()).toEqual(
      [
        'in a storm',
        'in an alert',
        'the day before an alert',
        'a month before a notice',
        'while a notice stands',
        'during a stop-work order',
        'during an open site alert',
        'recent',
      ].sort(),
    );
    // The retention says so in the evidence log, and what is left still verifies (the storms written
    // here by hand have no entries of their own).
    expect(s.evidence.entry(next)).toMatchObject({ kind: 'retention' });
    expect(readingProblems()).toEqual([]);
    // A second pass removes nothing more.
    const before = s.readings.count();
    s.prune();
    expect(s.readings.count()).toBe(before);
    await s.stop();
  });

  it('keeps them for good with evidenceRetentionDays: 0, and all with retentionDays: 0', async () => {
    const forGood = stage({ evidenceRetentionDays: 0 });
    const ids = fill(forGood);
    forGood.prune();
    expect(left(forGood, ids)).toContain('in a storm six years ago');
    expect(left(forGood, ids)).not.toContain('after the storm');
    await forGood.stop();

    const all = stage({ retentionDays: 0 });
    const ids2 = fill(all);
    all.prune();
    expect(left(all, ids2)).toHaveLength(ids2.size);
    await all.stop();
  });

  it("removes a device's time ranges between its windows", () => {
    const w = (start: number, end: number) => ({ start, end });
    const LOW = Number.MIN_SAFE_INTEGER;
    expect(prunableRanges([w(20, 30), w(25, 40), w(60, 70)], 100, 10)).toEqual([
      [LOW, 10],
      [10, 20],
      [41, 60],
      [71, 100],
    ]);
    // Kept for good: nothing older goes unconditionally; a window open to the end keeps all after it.
    expect(prunableRanges([w(5, Number.MAX_SAFE_INTEGER)], 100, Number.MIN_SAFE_INTEGER)).toEqual([[LOW, 5]]);
    // Kept no longer than the general retention: all before it go.
    expect(prunableRanges([w(20, 30)], 100, 100)).toEqual([[LOW, 100]]);
  });

  it('refuses a configuration that keeps them less than five years', () => {
    expect(() => parseConfig({ ...testConfigInput(), storage: { evidenceRetentionDays: 365 } })).toThrow(
      /storage\.evidenceRetentionDays: readings behind a storm, an alert or an order are kept at least five years/,
    );
    expect(parseConfig(testConfigInput()).storage.evidenceRetentionDays).toBe(1827);
  });
});
