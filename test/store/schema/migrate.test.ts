import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EvidenceChains } from '../../../gateway/src/alerts/stores/chains.ts';
import { openDatabase } from '../../../gateway/src/store/db.ts';
import { MIGRATIONS, migrate, SCHEMA_VERSION } from '../../../gateway/src/store/schema/index.ts';
import { auditAll, readingStore } from '../../helpers/evidence.ts';

const RELEASE_DUMP = join(import.meta.dirname, '../../fixtures/store/release-0.1.0.sql');

/** Writes the release-0.1.0 data directory (a dump of one, see test/fixtures/store/README.md). */
function releaseDataDir(dir: string): void {
  const db = new Database(join(dir, 'gateway.db'));
  db.exec(readFileSync(RELEASE_DUMP, 'utf8'));
  expect(db.pragma('user_version', { simple: true })).toBe(0);
  db.close();
}

const count = (db: Database.Database, table: string) =>
  (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

describe('the storage schema', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'schema-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('numbers its migrations in increasing order, the last one the schema version', () => {
    const versions = MIGRATIONS.map((m) => m.version);
    expect(versions).toEqual([...new Set(versions)].sort((a, b) => a - b));
    expect(versions[0]).toBe(1);
    expect(SCHEMA_VERSION).toBe(versions.at(-1));
  });

  it('creates every table in an empty store and records the version', () => {
    const db = openDatabase(dir);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>
    )
      .map((t) => t.name)
      .filter((n) => n !== 'sqlite_sequence')
      .sort();
    expect(tables).toEqual(
      [
        'alert_history',
        'alerts',
        'api_tokens',
        'calibrations',
        'chain_anchors',
        'changes',
        'device_secrets',
        'devices',
        'recipients',
        'sessions',
        'setup_codes',
        'sites',
        'users',
        'cursors',
        'device_state',
        'extensions',
        'influx_dead_letter',
        'influx_outbox',
        'inspections',
        'log_checkpoints',
        'log_entries',
        'log_nodes',
        'notification_deliveries',
        'notification_events',
        'notification_fanout',
        'readings',
        'rejections',
        'rule_state',
        'storms',
        'timers',
      ].sort(),
    );
    db.close();
  });

  it('opens a data directory written by release 0.1.0 and keeps its readings, alerts, history and chains', () => {
    releaseDataDir(dir);
    const before = new Database(join(dir, 'gateway.db'), { readonly: true });
    const counts = Object.fromEntries(
      [
        'readings',
        'alerts',
        'alert_history',
        'storms',
        'inspections',
        'extensions',
        'rule_state',
        'timers',
      ].map((t) => [t, count(before, t)]),
    );
    const heads = before.prepare('SELECT seq, hash FROM alert_history ORDER BY seq DESC LIMIT 1').get();
    before.close();
    expect(counts.readings).toBe(66);
    expect(counts.alert_history).toBe(20);

    const db = openDatabase(dir);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    for (const [t, n] of Object.entries(counts)) expect(count(db, t), t).toBe(n);
    const { store: readings, log } = readingStore(db);
    const alerts = new EvidenceChains(db, log);
    expect(alerts.chainHead('alert_history')).toEqual(heads);
    for (const table of ['alert_history', 'inspections', 'extensions'] as const)
      expect(alerts.verifyChain(undefined, undefined, table), table).toMatchObject({ ok: true });
    expect(alerts.verifyChain(undefined, undefined, 'alert_history').checked).toBe(20);
    // Every record is in the evidence log now, and the log's entry after them says the release's chains
    // (readings, history, inspections, extensions) were intact when it took them over.
    const records =
      counts.readings! + counts.alert_history! + counts.inspections! + counts.extensions! + counts.storms!;
    expect(log.size()).toBe(records + 1);
    const verdict = JSON.parse(log.entry(records)!.body!) as {
      type: string;
      chains: Array<{ table: string; ok: boolean; checked: number }>;
    };
    expect(verdict.type).toBe('legacy-chains');
    expect(verdict.chains.map((c) => [c.table, c.ok, c.checked])).toEqual([
      ['readings', true, 66],
      ['alert_history', true, 20],
      ['inspections', true, 1],
      ['extensions', true, 1],
    ]);
    expect(auditAll(db, log)).toEqual({ size: records + 1, problems: [] });
    // The migrated store takes new records onto the log, and still guards them.
    const last = readings.lastOf('maple-ridge', 'rg-1')!;
    db.transaction(() => readings.insert({ ...last, ts: last.ts + 60_000, seq: (last.seq ?? 0) + 1 }))();
    expect(auditAll(db, log)).toEqual({ size: records + 2, problems: [] });
    expect(() => db.prepare("UPDATE alert_history SET actor = 'x'").run()).toThrow(/append-only/);
    // Version 4's tables are there, empty until the gateway seeds them from its configuration; change
    // records are append-only like the other evidence.
    for (const t of ['users', 'sites', 'devices', 'device_secrets', 'calibrations', 'changes'])
      expect(count(db, t), t).toBe(0);
    db.prepare(
      "INSERT INTO changes (at, effective_at, actor, entity, action, log_idx) VALUES (1, 1, 'a', 'site', 'seed', 0)",
    ).run();
    expect(() => db.prepare("UPDATE changes SET actor = 'x'").run()).toThrow(/append-only/);
    expect(() => db.prepare('DELETE FROM changes').run()).toThrow(/append-only/);
    db.close();

    // Opening again changes nothing.
    const again = openDatabase(dir);
    expect(count(again, 'readings')).toBe(67);
    again.close();
  });

  it('refuses a store written by a newer release', () => {
    const db = new Database(join(dir, 'gateway.db'));
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    expect(() => migrate(db)).toThrow(/newer than this release/);
    db.close();
  });

  it('leaves a store as it was when a migration fails', () => {
    releaseDataDir(dir);
    const db = new Database(join(dir, 'gateway.db'));
    // A damaged table that the version's index cannot be built on.
    db.exec('DROP TABLE timers; CREATE TABLE timers (id INTEGER PRIMARY KEY)');
    expect(() => migrate(db)).toThrow();
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    expect(count(db, 'readings')).toBe(66);
    db.close();
  });
});
