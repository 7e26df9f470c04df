/**
 * Fuzzing of the device status path: random, mutated and near-valid status payloads must each give a
 * status or a known problem (and, through statusRejection, a known rejection reason), never an exception.
 * Used by the suite (2,000 inputs) and by `npm run fuzz`.
 */
import { decodeDeviceStatus, statusRejection } from '../../gateway/src/decode/status.ts';
import { REJECT_REASONS } from '../../shared/src/telemetry.ts';
import { randomPayload, rng } from './decodeFuzz.ts';

const PROBLEMS = ['empty', 'too_long', 'malformed_json', 'not_a_status'];
const NEAR = [
  'online',
  'offline',
  ' online\n',
  'ONLINE',
  '"online"',
  '"offline',
  '{"status":"online"}',
  '{"status":"offline","ts":1714564800000}',
  '{"status":"offline","ts":"2026-05-01T00:00:00Z"}',
  '{"status":"online","ts":"not a time"}',
  '{"status":"asleep"}',
  '{"status":"online","extra":1}',
  '{"status":null}',
  '[]',
  '',
  '\u0000online',
];

export interface StatusFuzzResult {
  inputs: number;
  statuses: Record<string, number>;
  problems: Record<string, number>;
  failures: string[];
}

export function fuzzStatus(inputs: number, seed = 1): StatusFuzzResult {
  const r = rng(seed);
  const out: StatusFuzzResult = { inputs, statuses: {}, problems: {}, failures: [] };
  const now = Date.now();
  for (let i = 0; i < inputs; i++) {
    let text: string;
    const mode = Math.floor(r() * 4);
    if (mode === 0) text = NEAR[Math.floor(r() * NEAR.length)]!;
    else if (mode === 1) {
      const base = [...NEAR[Math.floor(r() * NEAR.length)]!];
      for (let k = 0; k < 1 + Math.floor(r() * 3) && base.length; k++)
        base[Math.floor(r() * base.length)] = String.fromCharCode(Math.floor(r() * 256));
      text = base.join('');
    } else text = randomPayload(r);
    const payload = r() < 0.5 ? Buffer.from(text, 'latin1') : text;
    try {
      const d = decodeDeviceStatus(payload, now, r() < 0.2 ? 64 : Number.POSITIVE_INFINITY);
      if (d.ok) {
        if ((d.status !== 'online' && d.status !== 'offline') || !Number.isFinite(d.at))
          out.failures.push(`odd status ${JSON.stringify(d)} for ${JSON.stringify(text.slice(0, 80))}`);
        out.statuses[d.status] = (out.statuses[d.status] ?? 0) + 1;
      } else {
        if (!PROBLEMS.includes(d.problem)) out.failures.push(`unknown problem ${d.problem}`);
        const rej = statusRejection(d);
        if (!(REJECT_REASONS as readonly string[]).includes(rej.reason) || !rej.detail)
          out.failures.push(`unknown rejection ${rej.reason} for ${JSON.stringify(text.slice(0, 80))}`);
        out.problems[d.problem] = (out.problems[d.problem] ?? 0) + 1;
      }
    } catch (e) {
      out.failures.push(`threw ${(e as Error).message} for ${JSON.stringify(text.slice(0, 80))}`);
    }
  }
  return out;
}
