/**
 * A site's history on record through the live catalogue, on a real store: each event a change record and
 * an evidence-log entry effective at its own time; an edit adds to the history; what cannot be a record of
 * the past is refused with its path.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Catalogue } from '../../gateway/src/admin/catalogue.ts';
import { ChangeLog } from '../../gateway/src/admin/changes.ts';
import { silentLog } from '../../gateway/src/pipeline.ts';
import { openDatabase } from '../../gateway/src/store/db.ts';
import { EvidenceLog } from '../../gateway/src/store/evidenceLog.ts';
import type { Db } from '../../gateway/src/store/types.ts';
import { auditAll } from '../helpers/evidence.ts';

describe('Catalogue: a site with its history', () => {
  let dir: string;
  let db: Db;
  let log: EvidenceLog;
  let changes: ChangeLog;
  const now = Date.parse('2026-11-20T12:00:00Z');
  const open = () => {
    log = new EvidenceLog(db);
    changes = new ChangeLog(db, log, () => now);
    return new Catalogue(db, changes, { now: () => now, log: silentLog });
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gw-hist-'));
    db = openDatabase(dir);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('adding a site records each event of its history, effective at its time, in the log', () => {
    const c = open();
    const site = c.addSite(
      {
        id: 'elm-st',
        kind: 'construction',
        history: { lastRoutineInspection: '2026-11-17T09:30:00-05:00' },
      },
      'Ada Admin',
    );
    expect(site.history).toEqual({ lastRoutineInspection: '2026-11-17T14:30:00.000Z' });
    const list = changes.list({ siteId: 'elm-st' });
    expect(list.map((x) => [x.entity, x.action])).toEqual([
      ['history', 'lastRoutineInspection'],
      ['site', 'create'],
    ]);
    const h = list[0]!;
    expect(h).toMatchObject({
      by: 'Ada Admin',
      effectiveAt: '2026-11-17T14:30:00.000Z',
      at: '2026-11-20T12:00:00.000Z',
      old: null,
      new: '2026-11-17T14:30:00.000Z',
    });
    // The site's record does not repeat it; the log entry is the change record, and the log audits clean.
    expect(list[1]!.new).not.toHaveProperty('history');
    expect(log.entry(h.logIndex)?.leaf.toString('base64')).toBe(h.leafHash);
    expect(auditAll(db, log).problems).toEqual([]);
    // After a restart the store gives the rules the same history.
    expect(open().site('elm-st')!.history).toEqual(site.history);
  });

  it('an edit adds to the history: the event given replaces that event, the others stay', () => {
    const c = open();
    c.addSite(
      { id: 'oak', kind: 'alternative-system', history: { lastAnnualInspection: '2026-07-10T14:00:00Z' } },
      'Ada',
    );
    const edited = c.editSite('oak', { history: { annualLetter: '2026-06-15T12:00:00Z' } }, 'Bo');
    expect(edited.history).toEqual({
      lastAnnualInspection: '2026-07-10T14:00:00.000Z',
      annualLetter: '2026-06-15T12:00:00.000Z',
    });
    c.editSite('oak', { history: { lastAnnualInspection: '2026-07-12T14:00:00Z' } }, 'Bo');
    const hist = changes.list({ siteId: 'oak' }).filter((x) => x.entity === 'history');
    expect(hist.map((x) => [x.action, x.old, x.new])).toEqual([
      ['annualLetter', null, '2026-06-15T12:00:00.000Z'],
      ['lastAnnualInspection', null, '2026-07-10T14:00:00.000Z'],
      ['lastAnnualInspection', '2026-07-10T14:00:00.000Z', '2026-07-12T14:00:00.000Z'],
    ]);
    // The same time again is no change: no record.
    c.editSite('oak', { history: { annualLetter: '2026-06-15T12:00:00Z' } }, 'Bo');
    expect(changes.list({ siteId: 'oak' }).filter((x) => x.entity === 'history')).toHaveLength(3);
    // Other keys edited alongside are a site update record of their own, without the history.
    c.editSite('oak', { name: 'Oak Lane', history: { lastPumpOut: '2025-04-01T12:00:00Z' } }, 'Bo');
    const last = changes
      .list({ siteId: 'oak' })
      .filter((x) => x.entity === 'site')
      .at(-1)!;
    expect(last.action).toBe('update');
    expect(last.new).toMatchObject({ name: 'Oak Lane' });
    expect(last.new).not.toHaveProperty('history');
  });

  it('refuses a record of the past dated in the future or before 2000, naming the event', () => {
    const c = open();
    expect(() =>
      c.addSite(
        { id: 'x', kind: 'construction', history: { lastRoutineInspection: '2026-12-01T00:00:00Z' } },
        'Ada',
      ),
    ).toThrow(/history\.lastRoutineInspection: a record of the past cannot be in the future/);
    expect(() =>
      c.addSite({ id: 'x', kind: 'septic', history: { lastPumpOut: '1999-05-01T00:00:00Z' } }, 'Ada'),
    ).toThrow(/history\.lastPumpOut: .* before 2000-01-01/);
    expect(() =>
      c.addSite({ id: 'x', kind: 'septic', history: { lastPumpOut: 'last spring' } }, 'Ada'),
    ).toThrow(/history\.lastPumpOut/);
    expect(c.site('x')).toBeUndefined();
    expect(changes.list({ siteId: 'x' })).toEqual([]);
  });

  it('seeding from the configuration records its history too', () => {
    const c = open();
    c.seed([
      {
        id: 'seeded',
        kind: 'construction',
        active: true,
        routineInspectionDays: 7,
        history: { lastRoutineInspection: '2026-11-18T12:00:00Z' },
        recipients: [],
        devices: [],
      } as never,
    ]);
    const hist = changes.list({ siteId: 'seeded' }).filter((x) => x.entity === 'history');
    expect(hist).toMatchObject([{ by: 'configuration', action: 'lastRoutineInspection' }]);
  });
});
