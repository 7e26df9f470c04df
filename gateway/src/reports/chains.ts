/**
 * The alert tables' hash chains, verified for a report in segments of rows with the event loop free
 * between them (a chain of many thousand rows would otherwise hold the gateway up): the same result as
 * one verification of the whole chain, the first broken link found.
 */
import type { ChainedTable } from '../alerts/stores/chains.ts';
import type { ChainCheck, ChainHead } from '../store/chain.ts';

const SEGMENT = 500;

export async function verifyChainSliced(
  table: ChainedTable,
  verify: (fromSeq: number, toSeq: number, table: ChainedTable) => ChainCheck,
  head: ChainHead | null,
): Promise<ChainCheck> {
  const last = head?.seq ?? 0;
  let checked = 0;
  let result: ChainCheck | undefined;
  for (let from = 1; from <= last || result === undefined; from += SEGMENT) {
    const part = verify(from, Math.min(last, from + SEGMENT - 1), table);
    checked += part.checked;
    result = { ...part, checked };
    if (!part.ok || from + SEGMENT > last) break;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return result!;
}
