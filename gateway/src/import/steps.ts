/**
 * Reading a large logger file takes longer than the gateway may keep its event loop: the row readers are
 * generators that pause every few thousand rows. runToEnd reads a file in one go (the command-line
 * import, tests); runSliced gives the event loop back between slices of at most `sliceMs`, so the API and
 * the brokers keep answering while an upload is read.
 */

/** A computation that may pause (yield) and returns its result. */
export type Stepped<T> = Generator<void, T, void>;

/** Rows read between two pauses. */
export const ROWS_PER_STEP = 2000;

/** Runs a stepped computation to its end without pausing. */
export function runToEnd<T>(steps: Stepped<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Gives the event loop its turn (I/O, timers) and then resolves. */
export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Runs a stepped computation, yielding to the event loop whenever a slice has taken `sliceMs`. */
export async function runSliced<T>(steps: Stepped<T>, sliceMs = 15): Promise<T> {
  let started = performance.now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() - started >= sliceMs) {
      await yieldToLoop();
      started = performance.now();
    }
  }
}
