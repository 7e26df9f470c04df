/**
 * What the InfluxDB writer talks to: a queue of lines to drain (InfluxSource: the readings after the
 * writer's cursor and the queued alert changes, or the outbox alone) and a client that sends a batch of
 * them (WriteClient: the InfluxDB 1 or 2 write API).
 */

/** Sends one batch of lines in one request. Rejects with RetryableWriteError or PermanentWriteError. */
export interface WriteClient {
  write(lines: readonly string[]): Promise<void>;
}

/**
 * A line waiting for InfluxDB. `line` may be '' (a reading with no field): it is settled without a
 * write. A source may also hand over several lines as one row (joined by newlines, `count` of them):
 * then it must be able to split that row into single lines, which the writer asks for when InfluxDB
 * rejects the batch the row is in.
 */
export interface SourceRow {
  id: number;
  line: string;
  /** How many lines `line` holds (default 1). */
  count?: number;
}

/**
 * Where the writer's lines come from: a queue read from its head. Rows are settled as a prefix of what
 * peek() returned (written, or moved to the dead letters), never out of order.
 */
export interface InfluxSource<R extends SourceRow = SourceRow> {
  /** The oldest `limit` waiting rows, in order. */
  peek(limit: number): R[];
  /** These rows (a prefix of the last peek) are in InfluxDB. */
  settle(rows: readonly R[]): void;
  /** InfluxDB rejected these rows for good: keep them with the reason, and settle them. */
  deadLetter(rows: readonly R[], reason: string, now: number): number;
  /** Rows waiting. */
  depth(): number;
  /** When the oldest waiting row was stored (epoch ms), or undefined when none waits. */
  oldestEnqueuedAt(): number | undefined;
  deadLetterCount(): number;
  /** A row holding several lines as rows of one line each (in order); sources that never group lines omit it. */
  split?(row: R): R[];
}
