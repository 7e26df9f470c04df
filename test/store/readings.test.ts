import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../gateway/src/store/db.ts';
import type { Reading } from '../../shared/src/telemetry.ts';
import { auditAll, readingStore } from '../helpers/evidence.ts';

const DAY = 86_400_000;
const reading = (i: number, ts: number): Reading => ({
  siteId: 's',
  deviceId: 'd',
  deviceKind: 'rain-gauge',
  ts,
  seq: i,
  receivedAt: ts,
  transport: 'mqtt',
  values: { rainTips: i },
});

describe('local store (real SQLite file)', () => {
  const dirs: string[] = [];
  const open = () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-'));
    dirs.push(dir);
    const db = openDatabase(dir);
    return { db, ...readingStore(db), dir };
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('runs in WAL mode and refuses to update a stored reading', () => {
    const { db, store } = open();
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    store.insert(reading(1, Date.UTC(2026, 0, 1)));
    expect(() => db.prepare('UPDATE readings SET data = ?').run('{"v":{"rainTips":99}}')).toThrow(
      /append-only/,
    );
    db.close();
  });

  it('treats a second reading with the same device and source time as a duplicate', () => {
    const { db, store } = open();
    expect(store.insert(reading(1, 1_700_000_000_000))).toBeDefined();
    expect(store.insert(reading(2, 1_700_000_000_000))).toBeUndefined();
    expect(store.count()).toBe(1);
    db.close();
  });

  it('retention prunes old readings, says so in the evidence log, and the rest still verify', () => {
    const { db, store, log } = open();
    const now = Date.UTC(2026, 10, 30);
    db.transaction(() => {
      for (let i = 0; i < 100; i++) store.insert(reading(i, now - (100 - i) * DAY));
    })();
    for (let i = 0; i < 30; i++)
      store.insertRejectionRow({
        at: now,
        transport: 'mqtt',
        topic: 't',
        reason: 'malformed_json',
        detail: 'x',
        excerpt: '{',
      });
    expect(auditAll(db)).toEqual({ size: 100, problems: [] });
    const res = store.prune(now - 30 * DAY, 10, now);
    expect(res).toEqual({ readings: 70, rejections: 20 });
    expect(store.count()).toBe(30);
    expect(store.recentRejections({ limit: 100 })).toHaveLength(10);
    // The pruned readings' entries stay, marked by the retention entry; the rest still verify.
    expect(auditAll(db)).toEqual({ size: 101, problems: [] });
    expect(log.entry(100)).toMatchObject({ kind: 'retention', ref: '70' });
    db.close();
  });

  it('the audit finds a tampered reading and a removed one', () => {
    const { db, store } = open();
    db.transaction(() => {
      for (let i = 0; i < 10; i++) store.insert(reading(i, Date.UTC(2026, 0, 1 + i)));
    })();
    db.exec('DROP TRIGGER readings_no_update');
    db.prepare('UPDATE readings SET data = ? WHERE seq = 4').run('{"v":{"rainTips":400}}');
    db.prepare('DELETE FROM readings WHERE seq = 9').run();
    const v = auditAll(db);
    expect(v.problems.map((p) => [p.idx, p.reason])).toEqual([
      [4, 'its readings record 5 was changed after it was logged'],
      [9, 'its readings record 10 is missing'],
    ]);
    db.close();
  });

  it('keeps the log across a reopen', () => {
    const { db, store, dir } = open();
    store.insert(reading(1, Date.UTC(2026, 0, 1)));
    db.close();
    const db2 = openDatabase(dir);
    readingStore(db2).store.insert(reading(2, Date.UTC(2026, 0, 2)));
    expect(auditAll(db2)).toEqual({ size: 2, problems: [] });
    db2.close();
  });
});
