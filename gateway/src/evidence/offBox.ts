/**
 * The start-up comparison with the copies of the checkpoints kept off the box, and what it lets the
 * gateway say about the tail of its log.
 *
 * A store copied, cut at its newest entries (records, log and the checkpoints above the cut) and put back
 * agrees with itself: only a checkpoint kept elsewhere can show that the log once was longer. So each
 * copy the gateway can read back (the retained message on an external broker, InfluxDB 1.x, a witness
 * that answers with its latest checkpoint) is read at start and compared with the log as it was then.
 * Where no copy could be read, health says that a truncation of the tail cannot be ruled out.
 */

import { openNote } from '../ledger/checkpoint.ts';
import type { Log } from '../pipeline.ts';
import type { CheckpointPublisher } from './publisher.ts';

export type OffBoxState = 'holds' | 'contradicts' | 'empty' | 'unreachable' | 'write-only';

export interface OffBoxCopy {
  name: string;
  /** Where the copy is, in plain words. */
  where: string;
  state: OffBoxState;
  /** The size of the checkpoint it holds (holds, contradicts). */
  size?: number;
  /** Why it could not be read, or what it contradicts. */
  reason?: string;
}

/** What a signed checkpoint says against the log: its size, or why it does not describe the log. */
export type Judgement = { size: number; reason?: string };

/** Reads back every copy off the box that can be read, and judges each checkpoint against the log. */
export async function readOffBox(
  publishers: readonly CheckpointPublisher[],
  ours: string,
  judge: (note: string) => Judgement,
  log: Log,
): Promise<OffBoxCopy[]> {
  const copies: OffBoxCopy[] = [];
  for (const p of publishers) {
    if (p.offBox === false) continue;
    const base = { name: p.name, where: p.where };
    if (!p.readBack) {
      copies.push({ ...base, state: 'write-only' });
      continue;
    }
    let note: string | undefined;
    try {
      note = await readBackWithRetries(p.readBack);
    } catch (e) {
      const reason = (e as Error).message;
      log.warn({ from: p.name, err: reason }, 'could not read the published checkpoint back');
      copies.push({ ...base, state: 'unreachable', reason });
      continue;
    }
    let signed = false;
    try {
      signed = note !== undefined && openNote(note).signatures.some((s) => s.name === ours);
    } catch (e) {
      log.warn({ from: p.name, err: (e as Error).message }, 'the published checkpoint is not a signed note');
    }
    if (!note || !signed) {
      copies.push({ ...base, state: 'empty' });
      continue;
    }
    const j = judge(note);
    copies.push(
      j.reason === undefined
        ? { ...base, state: 'holds', size: j.size }
        : { ...base, state: 'contradicts', size: j.size, reason: j.reason },
    );
  }
  return copies;
}

const ATTEMPTS = 3;
const RETRY_MS = 1000;

/** A server still starting, or a gateway busy starting on a slow box, gets two more tries. */
async function readBackWithRetries(read: () => Promise<string | undefined>): Promise<string | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (e) {
      if (attempt >= ATTEMPTS) throw e;
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  }
}

export type TailVerdict = 'checking' | 'ruled-out' | 'not-ruled-out';

const count = (n: number) => n.toLocaleString('en-US');

const HOW =
  'keep a copy off the box: an external MQTT broker, InfluxDB 1.x, or a witness the gateway can read back (see docs/truncation-and-witnesses.md)';

/** Whether the newest entries could have been cut off unseen, as a plain sentence. */
export function tailSentence(
  copies: readonly OffBoxCopy[] | undefined,
  sizeAtStart: number,
): { tail: TailVerdict; sentence: string } {
  if (copies === undefined)
    return { tail: 'checking', sentence: 'the copies of its checkpoints kept off the box are being read' };
  const held = copies.filter((c) => c.state === 'holds');
  if (held.length > 0) {
    const best = held.reduce((a, b) => ((b.size ?? 0) > (a.size ?? 0) ? b : a));
    const size = best.size ?? 0;
    const rest =
      size >= sizeAtStart
        ? 'the whole log as it was at start'
        : `only the ${count(sizeAtStart - size)} entries written after that checkpoint are not covered by it`;
    return {
      tail: 'ruled-out',
      sentence: `it holds all ${count(size)} entries of the newest checkpoint kept off the box, on ${best.where} (${rest})`,
    };
  }
  const why =
    copies.length === 0
      ? 'no copy of its checkpoints is kept off this box'
      : copies
          .map((c) => {
            if (c.state === 'write-only') return `${c.where} takes every checkpoint but cannot be read back`;
            if (c.state === 'unreachable') return `${c.where} could not be read (${c.reason ?? 'no answer'})`;
            return `${c.where} holds no checkpoint of this gateway yet`;
          })
          .join('; ');
  return {
    tail: 'not-ruled-out',
    sentence: `a truncation of its newest entries cannot be ruled out: ${why}. To rule it out, ${HOW}`,
  };
}
