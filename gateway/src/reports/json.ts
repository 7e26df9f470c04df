/**
 * The compliance report as JSON text, serialised in slices: its cited entries (most of its size) a few
 * hundred at a time with the event loop free between them, so that a report of thousands of records
 * does not hold the gateway up while it is written. The text is what JSON.stringify gives.
 */
import type { ComplianceReport } from './report.ts';

const MARK = '"\\u0000entries\\u0000"';
const PER_SLICE = 100;

export async function reportToJson(r: ComplianceReport): Promise<string> {
  const head = JSON.stringify({ ...r, evidence: { ...r.evidence, entries: '\u0000entries\u0000' } });
  const at = head.indexOf(MARK);
  const parts = [head.slice(0, at), '['];
  const entries = r.evidence.entries;
  for (let i = 0; i < entries.length; i += PER_SLICE) {
    if (i > 0) {
      parts.push(',');
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    parts.push(
      entries
        .slice(i, i + PER_SLICE)
        .map((e) => JSON.stringify(e))
        .join(','),
    );
  }
  parts.push(']', head.slice(at + MARK.length));
  return parts.join('');
}
