import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importFile, type ReadingSink } from '../../gateway/src/import/run.ts';
import type { Reading } from '../../shared/src/telemetry.ts';

/** A store stand-in with the gateway's duplicate rule: same device and seq, or same source timestamp. */
class MemorySink implements ReadingSink {
  readonly rows: Reading[] = [];
  calls = 0;
  private seen = new Set<string>();
  async ingestReadings(readings: Reading[]) {
    this.calls++;
    let stored = 0;
    let duplicates = 0;
    for (const r of readings) {
      const bySeq = `${r.siteId}/${r.deviceId}#${r.seq}`;
      const byTs = `${r.siteId}/${r.deviceId}@${r.ts}`;
      if (this.seen.has(bySeq) || this.seen.has(byTs)) {
        duplicates++;
        continue;
      }
      this.seen.add(bySeq);
      this.seen.add(byTs);
      this.rows.push(r);
      stored++;
    }
    return { stored, duplicates };
  }
}

const dir = mkdtempSync(join(tmpdir(), 'rain-import-'));
const file = join(dir, 'gauge.dat');
writeFileSync(
  file,
  [
    '"TOA5","Stn","CR6","5589","OS","CPU:x.CR6","1","Table3"',
    '"TIMESTAMP","RECORD","Rain_mm_Tot"',
    '"TS","RN","inch"',
    '"","","Tot"',
    '"2022-08-08 10:24:40",0,0.2',
    '"2022-08-11 19:46:40",1,0.2',
    '"2022-08-11 19:47:30",2,0.4',
    'not a date,3,0.2',
    '"2022-08-11 19:48:00",4,0',
    '"2022-08-11 19:49:00",5,0.2',
  ].join('\r\n'),
);

describe('importFile', () => {
  it('parses, converts, hands readings to the sink in chunks and summarises', async () => {
    const sink = new MemorySink();
    const s = await importFile(file, { siteId: 'site', deviceId: 'rg-1', chunkSize: 2, now: () => 42 }, sink);
    expect(s.format).toBe('toa5');
    expect(s.rawTips).toBe(5);
    expect(s.tips).toBe(4);
    expect(s.installationTips).toBe(1);
    expect(s.readings).toBe(4);
    expect(s.stored).toBe(4);
    expect(s.duplicates).toBe(0);
    expect(sink.calls).toBe(2);
    expect(s.firstTip).toBe('2022-08-11T19:46:40.000Z');
    expect(s.lastTip).toBe('2022-08-11T19:49:00.000Z');
    expect(s.skippedByReason).toEqual({ header: 4, installation: 1, 'bad-row': 1, 'no-rain': 1 });
    expect(s.problems).toEqual([expect.objectContaining({ line: 8, kind: 'bad-row' })]);
    expect(s.tipMm).toBe(0.2);
    expect(s.totalMm).toBe(0.8);
    expect(s.rows).toBe(6);
    expect(s.endCount).toBe(4);
    expect(s.nextSeq).toBe(4);
    expect(s.baselineAt).toBe('2022-08-08T10:24:40.000Z');
    expect(sink.rows.map((r) => [r.seq, r.values.rainTips, r.transport, r.deviceKind, r.receivedAt])).toEqual(
      [
        [0, 0, 'import', 'rain-gauge', 42],
        [1, 1, 'import', 'rain-gauge', 42],
        [2, 3, 'import', 'rain-gauge', 42],
        [3, 4, 'import', 'rain-gauge', 42],
      ],
    );
    expect(sink.rows[0]!.ts).toBe(Date.parse('2022-08-08T10:24:40Z'));
  });

  it('importing the same file twice gives identical readings, and the second import stores nothing', async () => {
    const sink = new MemorySink();
    const captured: Reading[][] = [];
    const spy: ReadingSink = {
      ingestReadings: async (r) => {
        captured.push(structuredClone(r));
        return sink.ingestReadings(r);
      },
    };
    const first = await importFile(file, { siteId: 'site', deviceId: 'rg-1', now: () => 1 }, spy);
    const second = await importFile(file, { siteId: 'site', deviceId: 'rg-1', now: () => 1 }, spy);
    expect(captured).toHaveLength(2);
    expect(captured[1]).toEqual(captured[0]);
    expect(first.stored).toBe(4);
    expect(second.stored).toBe(0);
    expect(second.duplicates).toBe(4);
    expect(sink.rows).toHaveLength(4);
  });

  it('a second file continues the counter and seq from the first summary', async () => {
    const sink = new MemorySink();
    const first = await importFile(file, { siteId: 'site', deviceId: 'rg-1' }, sink);
    const next = join(dir, 'next.dat');
    writeFileSync(
      next,
      [
        '"TOA5","Stn","CR6","5589","OS","CPU:x.CR6","1","Table3"',
        '"TIMESTAMP","RECORD","Rain_mm_Tot"',
        '"TS","RN","mm"',
        '"","","Tot"',
        '"2022-09-01 08:00:00",6,0.2',
        '"2022-09-01 08:05:00",7,0.2',
      ].join('\n'),
    );
    const second = await importFile(
      next,
      { siteId: 'site', deviceId: 'rg-1', startCount: first.endCount, startSeq: first.nextSeq },
      sink,
    );
    expect(second.stored).toBe(2);
    expect(second.baselineAt).toBeNull();
    expect(sink.rows.map((r) => [r.seq, r.values.rainTips])).toEqual([
      [0, 0],
      [1, 1],
      [2, 3],
      [3, 4],
      [4, 5],
      [5, 6],
    ]);
  });

  it('without an earlier row, the baseline is one second before the first tip; baseline: false omits it', async () => {
    const f = join(dir, 'cabin.dat');
    writeFileSync(
      f,
      [
        '"TOA5","Cabin","CR6","1","OS","CPU:x.CR6","1","Table3"',
        '"TIMESTAMP","RECORD","Rain_mm_Tot"',
        '"TS","RN","mm"',
        '"","","Tot"',
        '"2022-09-01 08:00:00",3587,0.2',
      ].join('\n'),
    );
    const sink = new MemorySink();
    const s = await importFile(f, { siteId: 'site', deviceId: 'rg-2' }, sink);
    expect(s.baselineAt).toBe('2022-09-01T07:59:59.000Z');
    expect(sink.rows.map((r) => r.values.rainTips)).toEqual([0, 1]);
    const none = await importFile(f, { siteId: 'site', deviceId: 'rg-3', baseline: false }, sink);
    expect(none.readings).toBe(1);
  });

  it('a sink failure names the position and says a re-import is safe', async () => {
    const failing: ReadingSink = {
      ingestReadings: async () => {
        throw new Error('disk full');
      },
    };
    await expect(importFile(file, { siteId: 'site', deviceId: 'rg-1' }, failing)).rejects.toThrow(
      /reading 0 of 4.*again is safe.*disk full/,
    );
  });
});
