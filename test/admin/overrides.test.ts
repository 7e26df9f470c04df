/**
 * Figures looser than the law (`shared/src/lawFigures.ts`, the rule modules' `lawFigures`): a site that
 * sets one is refused without a reason for the override, by the configuration file and by the live
 * catalogue alike; with a reason it is taken, and each override is a change record of its own (`set`,
 * then `withdraw` when the figure is back within the law), on a real store.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Catalogue } from '../../gateway/src/admin/catalogue.ts';
import { ChangeLog } from '../../gateway/src/admin/changes.ts';
import { ConfigError, loadConfig, parseConfig } from '../../gateway/src/config/load.ts';
import { silentLog } from '../../gateway/src/pipeline.ts';
import { overrideInEffect } from '../../gateway/src/reports/sections/changes.ts';
import { LAW_FIGURES } from '../../gateway/src/rules/index.ts';
import { openDatabase } from '../../gateway/src/store/db.ts';
import { EvidenceLog } from '../../gateway/src/store/evidenceLog.ts';
import type { Db } from '../../gateway/src/store/types.ts';
import { isLooser, looseFigures } from '../../shared/src/looser.ts';
import { testConfigInput } from '../helpers/gateway.ts';

const REASON = 'The gauge sits under trees; the town engineer set this on 2026-11-02.';

describe('the law figures of the rule modules', () => {
  it('each says which way is looser, and the law figure itself is not', () => {
    const ids = LAW_FIGURES.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(
      expect.arrayContaining([
        'storm-threshold',
        'storm-due-hours',
        'routine-days',
        'equipment-remedy-days',
        'field-remedy-days',
        'annual-within-days',
        'annual-not-after',
      ]),
    );
    for (const f of LAW_FIGURES) {
      expect(isLooser(f, f.law)).toBe(false);
      expect(isLooser(f, typeof f.law === 'number' ? f.law + 0.001 : '12-31')).toBe(true);
      expect(isLooser(f, typeof f.law === 'number' ? f.law - 0.001 : '01-01')).toBe(false);
    }
  });

  it('a site with every default is within the law', () => {
    const [site] = parseConfig(testConfigInput()).sites;
    expect(looseFigures(site!, LAW_FIGURES)).toEqual([]);
  });
});

describe('the configuration file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gw-loose-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const withSite = (extra: Record<string, unknown>) => {
    const input = testConfigInput();
    const [maple, ...rest] = input.sites ?? [];
    return { ...input, sites: [{ ...maple!, ...extra }, ...rest] };
  };

  it('refuses a looser figure without a reason, saying which and why', () => {
    const file = join(dir, 'gateway.json');
    writeFileSync(
      file,
      JSON.stringify(withSite({ storm: { thresholdIn: 0.75 }, routineInspectionDays: 10 })),
    );
    let err: unknown;
    try {
      loadConfig(file, {});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const text = (err as Error).message;
    expect(text).toMatch(/sites\[0\]\.storm\.thresholdIn/);
    expect(text).toMatch(/0\.75 in is more than the law allows \(0\.5 in/);
    expect(text).toMatch(/sites\[0\]\.routineInspectionDays/);
    expect(text).toMatch(/10 days is more than the law allows \(7 days/);
    expect(text).toMatch(/lawOverrides/);
  });

  it('takes it with the reason given in the file, and a stricter figure needs none', () => {
    const c = parseConfig(
      withSite({
        storm: { thresholdIn: 0.75, dueHours: 12 },
        lawOverrides: { 'storm-threshold': REASON },
      }),
    );
    expect(c.sites[0]!.storm.thresholdIn).toBe(0.75);
    expect(() =>
      parseConfig(
        withSite({ annualInspection: { notAfter: '09-15' }, lawOverrides: { 'storm-threshold': REASON } }),
      ),
    ).toThrow(/September 15 is later than the law allows \(September 1/);
  });
});

describe('the live catalogue', () => {
  let dir: string;
  let db: Db;
  const now = Date.parse('2026-11-20T12:00:00Z');
  const open = () =>
    new Catalogue(db, new ChangeLog(db, new EvidenceLog(db), () => now), { now: () => now, log: silentLog });
  const changes = () => new ChangeLog(db, new EvidenceLog(db), () => now).list({ siteId: 'oak-lane' });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gw-loose-cat-'));
    db = openDatabase(dir);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a looser figure without a reason and stores nothing', () => {
    const c = open();
    c.seed(parseConfig(testConfigInput()).sites);
    const before = changes().length;
    expect(() => c.editSite('oak-lane', { equipmentRemedyDays: 7 }, 'Ada')).toThrow(
      /equipmentRemedyDays: Days to remedy an equipment fault: 7 days is more than the law allows \(5 days/,
    );
    expect(open().site('oak-lane')!.equipmentRemedyDays).toBe(5);
    expect(changes()).toHaveLength(before);
    // A new site is held to it too.
    expect(() =>
      c.addSite({ id: 'elm-court', kind: 'alternative-system', fieldRemedyDays: 45 }, 'Ada'),
    ).toThrow(/fieldRemedyDays/);
    expect(c.site('elm-court')).toBeUndefined();
  });

  it('records an override with its reason, a change of it, and its withdrawal', () => {
    const c = open();
    c.seed(parseConfig(testConfigInput()).sites);
    c.editSite(
      'oak-lane',
      { equipmentRemedyDays: 7, lawOverrides: { 'equipment-remedy-days': REASON } },
      'Ada Admin',
    );
    expect(c.site('oak-lane')!.equipmentRemedyDays).toBe(7);
    let set = changes().filter((x) => x.entity === 'override');
    expect(set).toHaveLength(1);
    expect(set[0]).toMatchObject({
      action: 'set',
      by: 'Ada Admin',
      ref: 'equipment-remedy-days',
      new: { figure: 'Days to remedy an equipment fault', value: 7, law: 5, unit: 'days', reason: REASON },
    });
    // The reason on record carries a later change of the figure, which is a record of its own.
    c.editSite('oak-lane', { equipmentRemedyDays: 6 }, 'Bo');
    set = changes().filter((x) => x.entity === 'override');
    expect(set.map((x) => [x.action, (x.new as { value: number }).value])).toEqual([
      ['set', 7],
      ['set', 6],
    ]);
    // An edit of something else records no override.
    c.editSite('oak-lane', { name: 'Oak Lane system' }, 'Bo');
    expect(changes().filter((x) => x.entity === 'override')).toHaveLength(2);
    // Back within the law: withdrawn, and the reason is not kept for a later loosening.
    c.editSite('oak-lane', { equipmentRemedyDays: 5 }, 'Cy');
    const last = changes()
      .filter((x) => x.entity === 'override')
      .at(-1)!;
    expect(last).toMatchObject({ action: 'withdraw', by: 'Cy', old: { value: 6, reason: REASON } });
    expect(open().site('oak-lane')!.lawOverrides).toBeUndefined();
    expect(() => c.editSite('oak-lane', { equipmentRemedyDays: 7 }, 'Cy')).toThrow(/equipmentRemedyDays/);
  });

  it('says at start which stored site has a looser figure without a reason, and asks for it at its next edit', () => {
    open().seed(parseConfig(testConfigInput()).sites);
    // A store written before a reason was needed.
    const row = db.prepare("SELECT config FROM sites WHERE id = 'oak-lane'").get() as { config: string };
    db.prepare("UPDATE sites SET config = ? WHERE id = 'oak-lane'").run(
      JSON.stringify({ ...JSON.parse(row.config), fieldRemedyDays: 45 }),
    );
    const warned: string[] = [];
    const c = new Catalogue(db, new ChangeLog(db, new EvidenceLog(db), () => now), {
      now: () => now,
      log: { ...silentLog, warn: (_o, msg) => warned.push(String(msg)) },
    });
    expect(c.site('oak-lane')!.fieldRemedyDays).toBe(45);
    expect(warned.join('\n')).toMatch(/fieldRemedyDays: Days to remedy an absorption field fault: 45 days/);
    expect(() => c.editSite('oak-lane', { name: 'Oak Lane' }, 'Ada')).toThrow(/fieldRemedyDays/);
    c.editSite('oak-lane', { name: 'Oak Lane', lawOverrides: { 'field-remedy-days': REASON } }, 'Ada');
    expect(changes().filter((x) => x.entity === 'override')).toMatchObject([
      { action: 'set', ref: 'field-remedy-days', new: { value: 45, law: 30, reason: REASON } },
    ]);
  });

  it('records the overrides of the configuration it is seeded with', () => {
    const input = testConfigInput();
    const c = open();
    c.seed(
      parseConfig({
        ...input,
        sites: input.sites!.map((s) =>
          s.id === 'oak-lane'
            ? { ...s, annualInspection: { withinDays: 75 }, lawOverrides: { 'annual-within-days': REASON } }
            : s,
        ),
      }).sites,
    );
    expect(changes().filter((x) => x.entity === 'override')).toMatchObject([
      {
        action: 'set',
        by: 'configuration',
        ref: 'annual-within-days',
        new: { value: 75, law: 60, reason: REASON },
      },
    ]);
  });
});

describe('the overrides a report prints', () => {
  const rec = (id: number, action: string, ref: string, at: string) =>
    ({
      id,
      at,
      effectiveAt: at,
      by: 'Ada',
      entity: 'override',
      action,
      siteId: 's',
      deviceId: null,
      ref,
      old: null,
      new: null,
      logIndex: id,
      leafHash: '',
    }) as const;
  const from = Date.parse('2026-12-01T05:00:00Z');

  it('an override made before the period counts while it was still in effect when the period began', () => {
    const a = rec(1, 'set', 'routine-days', '2026-10-01T12:00:00Z');
    const b = rec(2, 'set', 'storm-threshold', '2026-10-02T12:00:00Z');
    const bOff = rec(3, 'withdraw', 'storm-threshold', '2026-11-02T12:00:00Z');
    const c = rec(4, 'set', 'field-remedy-days', '2026-10-03T12:00:00Z');
    const c2 = rec(5, 'set', 'field-remedy-days', '2026-10-04T12:00:00Z');
    const inPeriod = rec(6, 'set', 'annual-within-days', '2026-12-02T12:00:00Z');
    const all = [a, b, bOff, c, c2, inPeriod];
    expect(all.filter((x) => overrideInEffect(x, all, from)).map((x) => x.id)).toEqual([1, 5]);
  });
});
