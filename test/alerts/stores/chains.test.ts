import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chainHash } from '../../../gateway/src/alerts/stores/chains.ts';
import type { Effect } from '../../../gateway/src/rules/types.ts';
import { canonicalJson } from '../../../gateway/src/store/chain.ts';
import { H, type Harness, makeEngine, reading, scripted, T0, tempDir } from '../support.ts';

let tmp: ReturnType<typeof tempDir>;
let h: Harness;
const queue: Effect[][] = [];

beforeEach(() => {
  tmp = tempDir();
  const ev = scripted('equipment-remedy', (input) => (input.type === 'reading' ? (queue.shift() ?? []) : []));
  h = makeEngine(join(tmp.dir, 'gw.db'), (site) => (site.id === 'site-a' ? [{ evaluator: ev }] : []));
  // a few alerts with several history rows each
  for (let i = 0; i < 3; i++) {
    queue.push([
      {
        type: 'open',
        rule: 'equipment-remedy',
        siteId: 'site-a',
        key: `pump-${i}`,
        at: T0 + i * H,
        dueAt: T0 + i * H + 5 * 24 * H,
        message: 'pump fault',
        evidence: { alarm: 'pump' },
      },
    ]);
    h.engine.handleReadings([reading('site-a', 'panel-1', T0 + i * H, { levelIn: 1 })]);
  }
  const [first] = h.engine.listAlerts();
  h.engine.acknowledge(first!.id, 'owner');
  h.engine.extend(first!.id, 'eng', { newDueAt: T0 + 20 * 24 * H, engineer: 'P. Eng', letterRef: 'L-9' });
  h.engine.recordInspection({ siteId: 'site-a', at: T0, inspector: 'I. Spector', kind: 'routine' }, 'insp');
});

afterEach(() => {
  if (h.db.open) h.db.close();
  tmp.cleanup();
});

describe('append-only evidence', () => {
  it('rejects UPDATE and DELETE on alert_history, inspections and extensions', () => {
    for (const table of ['alert_history', 'inspections', 'extensions']) {
      expect(() => h.db.prepare(`UPDATE ${table} SET hash = 'x'`).run(), table).toThrow(/append-only/);
      expect(() => h.db.prepare(`DELETE FROM ${table}`).run(), table).toThrow(/append-only/);
    }
    expect((h.db.prepare('SELECT COUNT(*) AS n FROM alert_history').get() as { n: number }).n).toBe(5);
  });

  it('verifyChain passes on an untouched chain and detects an altered row', () => {
    const ok = h.engine.verifyChain();
    expect(ok).toMatchObject({ ok: true, checked: 5 });
    expect(ok.head?.seq).toBe(5);
    expect(h.engine.verifyChain(2, 4)).toMatchObject({ ok: true, checked: 3 });
    expect(h.engine.verifyChain(undefined, undefined, 'inspections')).toMatchObject({ ok: true, checked: 1 });

    h.db.exec('DROP TRIGGER alert_history_no_update');
    h.db.prepare(`UPDATE alert_history SET actor = 'someone-else' WHERE seq = 3`).run();
    expect(h.engine.verifyChain()).toMatchObject({ ok: false, broken: { seq: 3, reason: 'hash-mismatch' } });
    expect(h.engine.verifyChain(1, 2).ok).toBe(true);
  });

  it('verifyChain detects a removed row', () => {
    h.db.exec('DROP TRIGGER alert_history_no_delete');
    h.db.prepare('DELETE FROM alert_history WHERE seq = 2').run();
    expect(h.engine.verifyChain()).toMatchObject({ ok: false, broken: { seq: 2, reason: 'gap' } });
  });

  it('a forged row with a valid own hash still breaks the next link', () => {
    h.db.exec('DROP TRIGGER alert_history_no_update');
    const row = h.db.prepare('SELECT * FROM alert_history WHERE seq = 2').get() as Record<string, unknown>;
    const detail = canonicalJson({ forged: true });
    // recompute seq 2's hash over the forged content, leaving seq 3 pointing at the old hash
    const newHash = chainHash('alert_history', row.prev_hash as string, { ...row, detail });
    h.db.prepare('UPDATE alert_history SET detail = ?, hash = ? WHERE seq = 2').run(detail, newHash);
    expect(h.engine.verifyChain()).toMatchObject({ ok: false, broken: { seq: 3, reason: 'prev-mismatch' } });
  });

  it('reopening the store restores dropped triggers', () => {
    h.db.exec('DROP TRIGGER alert_history_no_update');
    const h2 = makeEngine(join(tmp.dir, 'gw.db'), () => []);
    expect(() => h2.db.prepare(`UPDATE alert_history SET actor = 'x'`).run()).toThrow(/append-only/);
    h2.db.close();
  });
});
