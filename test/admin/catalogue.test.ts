/** The live catalogue on a real store: seeding once, validation, listeners, change records in the log. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Catalogue, type CatalogueEvent } from '../../gateway/src/admin/catalogue.ts';
import { ChangeLog } from '../../gateway/src/admin/changes.ts';
import { parseConfig } from '../../gateway/src/config/load.ts';
import { silentLog } from '../../gateway/src/pipeline.ts';
import { openDatabase } from '../../gateway/src/store/db.ts';
import { EvidenceLog } from '../../gateway/src/store/evidenceLog.ts';
import type { Db } from '../../gateway/src/store/types.ts';
import { auditAll } from '../helpers/evidence.ts';
import { testConfigInput } from '../helpers/gateway.ts';

describe('Catalogue', () => {
  let dir: string;
  let db: Db;
  let log: EvidenceLog;
  const now = Date.parse('2026-11-20T12:00:00Z');
  const open = () => {
    log = new EvidenceLog(db);
    return new Catalogue(db, new ChangeLog(db, log, () => now), { now: () => now, log: silentLog });
  };
  const sites = parseConfig(testConfigInput()).sites;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gw-cat-'));
    db = openDatabase(dir);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('seeds from the configuration once, in its order, and keeps the store as the source of truth', () => {
    const c = open();
    expect(c.seed(sites)).toBe(true);
    expect(c.sites().map((s) => s.id)).toEqual(['maple-ridge', 'oak-lane']);
    expect(c.site('maple-ridge')!.devices.map((d) => d.id)).toEqual(['rg-1', 'rg-2', 'trap-1']);
    expect(c.site('maple-ridge')!.devices[0]!.passwordHash).toMatch(/^scrypt\$/);
    c.editSite('oak-lane', { name: 'Oak Lane system' }, 'Ada');
    // A second start with the configuration changes nothing: the store holds the sites now.
    const again = open();
    expect(again.seed(sites)).toBe(false);
    expect(again.site('oak-lane')!.name).toBe('Oak Lane system');
  });

  it('refuses what the configuration would refuse and tells its listeners of what it takes', () => {
    const c = open();
    c.seed(sites);
    const heard: CatalogueEvent[] = [];
    c.onChange((e) => heard.push(e));
    expect(() => c.addSite({ id: 'bad/id', kind: 'construction' }, 'Ada')).toThrow(/id/);
    expect(() => c.addSite({ id: 'maple-ridge', kind: 'construction' }, 'Ada')).toThrow(/exists/);
    expect(() => c.addDevice('oak-lane', { id: 'trap-9', kind: 'sediment-trap' }, 'Ada')).toThrow(
      /designDepthIn|stageStorage/,
    );
    const creds = c.addDevice(
      'oak-lane',
      { id: 'tank-1', kind: 'holding-tank', liquidDepthIn: 72, highLevelIn: 60 },
      'Ada',
    );
    expect('username' in creds && creds.username).toBe('oak-lane/tank-1');
    c.rotateSecret('oak-lane', 'tank-1', 'Ada');
    c.editDevice('oak-lane', 'tank-1', { retired: true }, 'Ada');
    expect(heard.map((e) => e.what)).toEqual(['device', 'secret', 'retired']);
    expect(c.site('oak-lane')!.devices.map((d) => d.id)).toEqual(['panel-1']);
    expect(c.retiredDevices('oak-lane')).toEqual(['tank-1']);
  });

  it('keeps earlier calibrations, in order, and logs every change with the store still matching its log', () => {
    const c = open();
    c.seed(sites);
    const t1 = now + 3_600_000;
    c.editDevice('maple-ridge', 'rg-1', { inchesPerTip: 0.02, effectiveAt: t1 }, 'Ada');
    expect(() =>
      c.editDevice('maple-ridge', 'rg-1', { inchesPerTip: 0.03, effectiveAt: t1 - 1 }, 'Ada'),
    ).toThrow(/later than the last calibration/);
    const rg1 = c.site('maple-ridge')!.devices[0]!;
    expect(rg1.inchesPerTip).toBe(0.02);
    expect(rg1.calibrations).toEqual([{ until: t1, inchesPerTip: 0.01 }]);
    const entries = [...log.entries(0, log.size())].filter((e) => e.kind === 'change');
    expect(entries.map((e) => (JSON.parse(e.body!) as { action: string }).action)).toEqual([
      'seed',
      'seed',
      'calibrate',
    ]);
    expect(auditAll(db, log).problems).toEqual([]);
  });

  it('says at start which devices of the store share an MQTT identity, and refuses a new one', () => {
    const [maple] = sites;
    const twin = { ...maple!.devices[1]!, id: 'rg-7', username: 'maple-ridge/rg-1' };
    open().seed([{ ...maple!, devices: [...maple!.devices, twin] }]);
    const warned: string[] = [];
    const c = new Catalogue(db, new ChangeLog(db, log, () => now), {
      now: () => now,
      log: { ...silentLog, warn: (_o, msg) => warned.push(String(msg)) },
      mqttUsers: ['ops'],
    });
    expect(warned).toEqual([
      'The MQTT login name or client id "maple-ridge/rg-1" already belongs to device rg-1 of site maple-ridge. Each device needs a login name and client ids of its own.',
    ]);
    expect(() =>
      c.addDevice(
        'maple-ridge',
        { id: 'rg-8', kind: 'rain-gauge', inchesPerTip: 0.01, username: 'ops' },
        'Ada',
      ),
    ).toThrow(/already belongs to the MQTT account ops/);
    expect(c.site('maple-ridge')!.devices.map((d) => d.id)).not.toContain('rg-8');
  });
});
