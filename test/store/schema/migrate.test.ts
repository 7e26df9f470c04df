import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LoggedRows } from '../../../gateway/src/alerts/stores/logged.ts';
import { canonicalJson } from '../../../gateway/src/ledger/canonical.ts';
import { historyRecord, inspectionRecord, recordBody } from '../../../gateway/src/ledger/records.ts';
import { openDatabase } from '../../../gateway/src/store/db.ts';
import { EvidenceLog } from '../../../gateway/src/store/evidenceLog.ts';
import {
  type ChainedTable,
  chainedContent,
  GENESIS_HASH,
  legacyChain,
  linkHash,
} from '../../../gateway/src/store/schema/chains.ts';
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

  it('numbers its migrations in increasing order from 1; the store is at the last one', () => {
    const versions = MIGRATIONS.map((m) => m.version);
    expect(versions[0]).toBe(1);
    for (let i = 1; i < versions.length; i++) expect(versions[i]).toBeGreaterThan(versions[i - 1]!);
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
        'device_credential_macs',
        'device_secrets',
        'devices',
        'quarantine',
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
        'login_keys',
        'log_checkpoints',
        'log_entries',
        'log_nodes',
        'notices',
        'notification_deliveries',
        'notification_events',
        'notification_fanout',
        'photo_uploads',
        'photos',
        'readings',
        'rejections',
        'rule_state',
        'site_records',
        'stop_work',
        'stop_work_events',
        'storms',
        'timers',
        'violation_events',
        'violations',
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
    // The release's chains are as they were (no version rewrote them).
    expect(legacyChain(db, 'alert_history').head()).toEqual(heads);
    for (const table of ['alert_history', 'inspections', 'extensions'] as const)
      expect(legacyChain(db, table).verify(), table).toMatchObject({ ok: true });
    expect(legacyChain(db, 'alert_history').verify().checked).toBe(20);
    // Every record is in the evidence log now, and the log's entry after them says the release's chains
    // (readings, history, inspections, extensions) were intact when it took them over. Version 7 adds no
    // verdict of its own: version 3's covers every chained row.
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

  it('verifies the chains of a version-6 store once, logs the verdict, and chains no new row', () => {
    const db = new Database(join(dir, 'gateway.db'));
    db.transaction(() => {
      for (const m of MIGRATIONS) if (m.version <= 6) m.up(db);
      db.pragma('user_version = 6');
    })();
    const log = new EvidenceLog(db);
    // Rows as version 6 wrote them: chained, and each logged.
    let prev: Record<ChainedTable, string> = {
      alert_history: GENESIS_HASH,
      inspections: GENESIS_HASH,
      extensions: GENESIS_HASH,
    };
    const chained = (table: ChainedTable, row: Record<string, unknown>, body: string, kind: string) => {
      const hash = linkHash(prev[table], chainedContent(table, row));
      const [idx] = log.append([{ kind: kind as never, ref: String(row.seq), at: 1, body, keepBody: true }]);
      const cols = Object.keys(row);
      db.prepare(
        `INSERT INTO ${table} (${cols.join(', ')}, prev_hash, hash, log_idx) VALUES (${cols.map((c) => `@${c}`).join(', ')}, @prev_hash, @hash, @log_idx)`,
      ).run({ ...row, prev_hash: prev[table], hash, log_idx: idx });
      prev = { ...prev, [table]: hash };
    };
    db.prepare(
      "INSERT INTO alerts (id, key, rule, site_id, status, raised_at, message, evidence, created_at, updated_at) VALUES ('a1', 'k', 'equipment-remedy', 's1', 'open', 1, 'm', '{}', 1, 1)",
    ).run();
    const alert = { siteId: 's1', rule: 'equipment-remedy' };
    for (const seq of [1, 2]) {
      const h = {
        seq,
        alert_id: 'a1',
        at: seq,
        source_at: null,
        actor: 'system',
        action: 'raised',
        detail: canonicalJson({}),
        alert_seq: seq,
      };
      chained('alert_history', h, recordBody('alert-history', historyRecord(h, alert)), 'alert-history');
    }
    const i = {
      seq: 1,
      id: 'i1',
      site_id: 's1',
      at: 5,
      inspector: 'I',
      kind: 'routine',
      notes: '',
      recorded_at: 5,
      recorded_by: 'x',
      site_seq: 1,
    };
    chained('inspections', i, recordBody('inspection', inspectionRecord(i)), 'inspection');
    const size = log.size();
    db.close();

    const migrated = openDatabase(dir);
    expect(migrated.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const after = new EvidenceLog(migrated);
    expect(after.size()).toBe(size + 1);
    const verdict = JSON.parse(after.entry(size)!.body!) as {
      type: string;
      records: number;
      chains: Array<{ table: string; ok: boolean; checked: number }>;
    };
    expect(after.entry(size)!.ref).toBe('schema-7');
    expect(verdict.type).toBe('legacy-chains');
    expect(verdict.records).toBe(3);
    expect(verdict.chains.map((c) => [c.table, c.ok, c.checked])).toEqual([
      ['alert_history', true, 2],
      ['inspections', true, 1],
      ['extensions', true, 0],
    ]);
    // A row appended now is logged and not chained; the audit covers it, and opening again adds nothing.
    const insert = migrated.prepare(
      `INSERT INTO inspections (seq, id, site_id, at, inspector, kind, notes, recorded_at, recorded_by, prev_hash, hash, log_idx, site_seq)
       VALUES (@seq, @id, @site_id, @at, @inspector, @kind, @notes, @recorded_at, @recorded_by, @prev_hash, @hash, @log_idx, @site_seq)`,
    );
    migrated.transaction(() =>
      new LoggedRows(migrated, after).append(
        'inspections',
        { ...i, id: 'i2', site_seq: 2, seq: undefined },
        insert,
      ),
    )();
    const row = migrated.prepare('SELECT * FROM inspections WHERE seq = 2').get() as Record<string, unknown>;
    expect(row.prev_hash).toBe('');
    expect(row.hash).toBe(after.entry(row.log_idx as number)!.leaf.toString('hex'));
    expect(auditAll(migrated, after)).toEqual({ size: size + 2, problems: [] });
    migrated.close();
    const again = openDatabase(dir);
    expect(new EvidenceLog(again).size()).toBe(size + 2);
    again.close();
  });

  it("gives a version-8 store's inspections no findings and no client id; their entries verify as before", () => {
    const db = new Database(join(dir, 'gateway.db'));
    db.transaction(() => {
      for (const m of MIGRATIONS) if (m.version <= 8) m.up(db);
      db.pragma('user_version = 8');
    })();
    const log = new EvidenceLog(db);
    const i = {
      seq: 1,
      id: 'i1',
      site_id: 's1',
      at: 5,
      inspector: 'I',
      kind: 'routine',
      notes: 'fine',
      recorded_at: 5,
      recorded_by: 'x',
      site_seq: 1,
    };
    // As version 8 wrote it: its entry's body has no findings member.
    const body = recordBody('inspection', inspectionRecord(i));
    expect(body).not.toContain('findings');
    const [idx] = log.append([{ kind: 'inspection', ref: '1', at: 5, body, keepBody: true }]);
    db.prepare(
      `INSERT INTO inspections (seq, id, site_id, at, inspector, kind, notes, recorded_at, recorded_by, prev_hash, hash, log_idx, site_seq)
       VALUES (@seq, @id, @site_id, @at, @inspector, @kind, @notes, @recorded_at, @recorded_by, '', 'h', @log_idx, @site_seq)`,
    ).run({ ...i, log_idx: idx });
    db.close();

    const migrated = openDatabase(dir);
    expect(migrated.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const row = migrated.prepare('SELECT findings, client_id FROM inspections WHERE seq = 1').get();
    expect(row).toEqual({ findings: '[]', client_id: null });
    const after = new EvidenceLog(migrated);
    expect(auditAll(migrated, after)).toEqual({ size: 1, problems: [] });
    // A client id is used once; photos are append-only.
    const insert = migrated.prepare(
      `INSERT INTO inspections (seq, id, site_id, at, inspector, kind, notes, recorded_at, recorded_by, prev_hash, hash, log_idx, site_seq, findings, client_id)
       VALUES (@seq, @id, @site_id, @at, @inspector, @kind, @notes, @recorded_at, @recorded_by, @prev_hash, @hash, @log_idx, @site_seq, @findings, @client_id)`,
    );
    const logged = new LoggedRows(migrated, after);
    const findings = canonicalJson([{ note: '', photos: ['a'.repeat(64)], practice: 'p1', status: 'ok' }]);
    const add = (id: string) =>
      migrated.transaction(() =>
        logged.append(
          'inspections',
          { ...i, id, site_seq: 2, seq: undefined, findings, client_id: 'c1' },
          insert,
        ),
      )();
    add('i2');
    expect(() => add('i3')).toThrow(/UNIQUE/);
    after.resync(); // as the unit of work does after a rolled-back transaction
    const entry = after.entry(1)!;
    expect(JSON.parse(entry.body!).findings).toEqual(JSON.parse(findings));
    expect(auditAll(migrated, after)).toEqual({ size: 2, problems: [] });
    migrated
      .prepare(
        "INSERT INTO photos (sha256, type, bytes, stored_at, stored_by) VALUES ('a', 'image/png', 1, 1, 'x')",
      )
      .run();
    expect(() => migrated.prepare("UPDATE photos SET stored_by = 'y'").run()).toThrow(/append-only/);
    migrated.close();
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
