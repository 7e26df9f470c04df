import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Registry } from '../../gateway/src/metrics.ts';
import { silentLog } from '../../gateway/src/pipeline.ts';
import { isDiskError, WriteGate } from '../../gateway/src/store/writeGate.ts';

const dir = mkdtempSync(join(tmpdir(), 'gate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the store write gate', () => {
  it('tells a full or failing disk from other errors', () => {
    expect(isDiskError(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }))).toBe(
      true,
    );
    expect(isDiskError(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' }))).toBe(
      true,
    );
    expect(isDiskError(Object.assign(new Error('no space'), { code: 'ENOSPC' }))).toBe(true);
    expect(
      isDiskError(Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT' })),
    ).toBe(false);
    expect(isDiskError(new Error('plain'))).toBe(false);
  });

  it('turns read-only below its free-space minimum and stays so while a commit keeps failing', () => {
    const changes: Array<string | undefined> = [];
    const gate = new WriteGate({ dataDir: dir, minFreeBytes: Number.MAX_SAFE_INTEGER, log: silentLog });
    gate.onChange((r) => changes.push(r));
    gate.check();
    expect(gate.readOnly).toMatch(/^disk full: .* free in the data directory, below storage.minFreeMb/);
    expect(gate.health()).toMatchObject({ name: 'store', ok: false, readOnly: true });
    expect(changes).toHaveLength(1);
  });

  it('turns read-only at once when a commit fails for the disk, and writable after a later success', () => {
    let now = 0;
    const gate = new WriteGate({ dataDir: dir, minFreeBytes: 0, log: silentLog, now: () => now });
    expect(gate.failed(Object.assign(new Error('boom'), { code: 'SQLITE_CONSTRAINT' }))).toBe(false);
    expect(gate.readOnly).toBeUndefined();
    expect(gate.failed(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }))).toBe(
      true,
    );
    expect(gate.readOnly).toBe('store writes fail: database or disk is full');
    // Space is there: it tries again after a pause, not at once.
    gate.check();
    expect(gate.readOnly).toBeDefined();
    now += 2500;
    gate.check();
    expect(gate.readOnly).toBeUndefined();
    expect(gate.health()).toMatchObject({ ok: true });
  });

  it('stays read-only for good when held (a store that could not be opened), and says when space is back', () => {
    let back = 0;
    const gate = new WriteGate({ dataDir: dir, minFreeBytes: 0, log: silentLog });
    gate.hold('cannot open');
    gate.onSpaceBack(() => back++);
    gate.check();
    gate.succeeded();
    expect(gate.readOnly).toBe('cannot open');
    expect(back).toBe(1);
  });

  it("runs a timer's write: put off while read-only, a disk fault turned into read-only, other errors thrown", () => {
    const metrics = new Registry();
    const gate = new WriteGate({ dataDir: dir, minFreeBytes: 0, log: silentLog, metrics });
    expect(gate.write('evidence-checkpoint', () => 7)).toBe(7);
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    expect(
      gate.write('evidence-checkpoint', () => {
        throw full;
      }),
    ).toBeUndefined();
    expect(gate.readOnly).toMatch(/store writes fail: database or disk is full/);
    let ran = false;
    expect(gate.write('retention', () => (ran = true))).toBeUndefined();
    expect(ran).toBe(false);
    const text = metrics.render();
    expect(text).toContain('gateway_store_write_failures_total{where="evidence-checkpoint"} 1');
    expect(text).toContain('gateway_store_writes_deferred_total{where="retention"} 1');
    const open = new WriteGate({ dataDir: dir, minFreeBytes: 0, log: silentLog });
    expect(() =>
      open.write('retention', () => {
        throw new Error('a bug, not the disk');
      }),
    ).toThrow('a bug, not the disk');
    expect(open.readOnly).toBeUndefined();
  });
});
