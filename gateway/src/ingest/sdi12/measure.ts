/**
 * One SDI-12 measurement, as the specification orders it: the measurement command (`aM!`, `aMC!`,
 * `aC!`, `aCC!`…) answered with the wait and the count of values; the wait honoured (an `M` sensor ends
 * it early with its service request, a `C` sensor is given all of it); then `aD0!`, `aD1!`, … until every
 * value is read. A command not answered is sent again, at most `attempts` times in all (the adapter sends
 * the break and the bus's own retries before each); a damaged answer too (a data line is sent again the
 * same, the sensor keeps its values until the next measurement). Nothing left: a gap, and the next
 * measurement waits for its schedule.
 */
import {
  isConcurrent,
  isServiceRequest,
  parseDataLine,
  parseMeasureAnswer,
  wantsCrc,
} from '../../decode/sdi12Protocol.ts';
import { sleep } from '../wait.ts';

/** What the measurement needs of its adapter. */
export interface Sdi12Bus {
  command(cmd: string, timeoutMs: number): Promise<string | undefined>;
  nextLine(timeoutMs: number): Promise<string | undefined>;
}

export interface MeasureOptions {
  /** How long a command's answer is waited for (the adapter's own break and retries included). */
  answerMs: number;
  /** How many times a command is sent before the sensor counts as not answering. */
  attempts: number;
  /** Each damaged or unexpected answer, in words. */
  badAnswer(text: string): void;
}

export type Measured = { ok: true; values: number[] } | { ok: false; noAnswer: boolean; text: string };

/** Sends `cmd` until it gets an answer `parse` accepts; the last failure in words otherwise. */
async function ask<T>(
  bus: Sdi12Bus,
  cmd: string,
  opts: MeasureOptions,
  parse: (line: string) => ({ ok: true } & T) | { ok: false; error: string },
): Promise<({ ok: true } & T) | { ok: false; noAnswer: boolean; text: string }> {
  let bad: string | undefined;
  for (let i = 0; i < opts.attempts; i++) {
    const line = await bus.command(cmd, opts.answerMs);
    if (line === undefined) continue;
    const parsed = parse(line);
    if (parsed.ok) return parsed;
    bad = parsed.error;
    opts.badAnswer(parsed.error);
  }
  const tries = `${opts.attempts} ${opts.attempts === 1 ? 'try' : 'tries'}`;
  return bad === undefined
    ? { ok: false, noAnswer: true, text: `no answer to ${cmd} (${tries})` }
    : { ok: false, noAnswer: false, text: `no usable answer to ${cmd} (${tries}): ${bad}` };
}

export async function measure(
  bus: Sdi12Bus,
  address: string,
  command: string,
  opts: MeasureOptions,
): Promise<Measured> {
  const started = await ask(bus, `${address}${command}!`, opts, (l) =>
    parseMeasureAnswer(l, address, command),
  );
  if (!started.ok) return started;
  const { waitSeconds, count } = started;
  if (count === 0)
    return { ok: false, noAnswer: false, text: `the sensor has no values to give (${address}${command}!)` };
  if (waitSeconds > 0) {
    const until = performance.now() + waitSeconds * 1000;
    if (isConcurrent(command)) await sleep(waitSeconds * 1000);
    else
      for (let left = waitSeconds * 1000; left > 0; left = until - performance.now()) {
        const line = await bus.nextLine(left);
        if (line === undefined || isServiceRequest(line, address)) break;
      }
  }
  const crc = wantsCrc(command);
  const values: number[] = [];
  for (let d = 0; d <= 9 && values.length < count; d++) {
    const got = await ask(bus, `${address}D${d}!`, opts, (l) => {
      const p = parseDataLine(l, address, crc);
      return p.ok && p.values.length === 0
        ? { ok: false as const, error: `the sensor had no values for ${address}D${d}!` }
        : p;
    });
    if (!got.ok) return got;
    values.push(...got.values);
  }
  if (values.length < count)
    return {
      ok: false,
      noAnswer: false,
      text: `the sensor announced ${count} values but gave ${values.length}`,
    };
  return { ok: true, values: values.slice(0, count) };
}
