/**
 * The comparison with the copies kept off the box (pure logic, with publishers made up in the test; the
 * real ones are in test/e2e/truncation.test.ts): each copy's state, the retries of a copy that fails, and
 * the plain sentence health gives about the tail of the log.
 */
import { describe, expect, it } from 'vitest';
import { readOffBox, tailSentence } from '../../gateway/src/evidence/offBox.ts';
import type { CheckpointPublisher } from '../../gateway/src/evidence/stage.ts';
import { silentLog } from '../../gateway/src/pipeline.ts';

const note = (signer: string, size: number) => `o\n${size}\nroot\n\n\u2014 ${signer} AAAAAAAAAAAA\n`;
const copy = (name: string, readBack?: () => Promise<string | undefined>): CheckpointPublisher => ({
  name,
  where: `the ${name}`,
  publish: async () => {},
  ...(readBack ? { readBack } : {}),
});

describe('copies of the checkpoints kept off the box', () => {
  it('tells apart a copy that holds, contradicts, holds nothing, cannot be read or cannot be read back', async () => {
    let tries = 0;
    const copies = await readOffBox(
      [
        copy('broker', async () => note('gw', 10)),
        copy('influx', async () => note('gw', 17)),
        copy('empty', async () => undefined),
        copy('foreign', async () => note('someone-else', 99)),
        copy('down', async () => {
          tries++;
          throw new Error('connection refused');
        }),
        copy('write-only'),
        { ...copy('embedded', async () => note('gw', 1)), offBox: false },
      ],
      'gw',
      (n) => {
        const size = Number(n.split('\n')[1]);
        return size > 12 ? { size, reason: 'it was truncated' } : { size };
      },
      silentLog,
    );
    expect(copies.map((c) => [c.name, c.state, c.size])).toEqual([
      ['broker', 'holds', 10],
      ['influx', 'contradicts', 17],
      ['empty', 'empty', undefined],
      ['foreign', 'empty', undefined],
      ['down', 'unreachable', undefined],
      ['write-only', 'write-only', undefined],
    ]);
    expect(tries).toBe(3);
    expect(copies.find((c) => c.name === 'down')?.reason).toBe('connection refused');
  });

  it('says in plain words whether a truncation of the tail is ruled out', () => {
    expect(tailSentence(undefined, 5).tail).toBe('checking');
    const none = tailSentence([], 12);
    expect(none.tail).toBe('not-ruled-out');
    expect(none.sentence).toMatch(
      /^a truncation of its newest entries cannot be ruled out: no copy of its checkpoints is kept off this box\./,
    );
    const unread = tailSentence(
      [
        { name: 'influxdb', where: 'InfluxDB 2', state: 'write-only' },
        { name: 'mqtt', where: 'the external MQTT broker', state: 'unreachable', reason: 'timed out' },
      ],
      12,
    );
    expect(unread.sentence).toMatch(
      /InfluxDB 2 takes every checkpoint but cannot be read back; the external MQTT broker could not be read \(timed out\)/,
    );
    const held = tailSentence(
      [
        { name: 'mqtt', where: 'the external MQTT broker', state: 'holds', size: 1000 },
        { name: 'influxdb', where: 'InfluxDB', state: 'holds', size: 1200 },
      ],
      1250,
    );
    expect(held.tail).toBe('ruled-out');
    expect(held.sentence).toBe(
      'it holds all 1,200 entries of the newest checkpoint kept off the box, on InfluxDB (only the 50 entries written after that checkpoint are not covered by it)',
    );
  });
});
