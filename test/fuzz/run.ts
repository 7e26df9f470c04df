/** `npm run fuzz -- [inputs] [seed]`: the long fuzz run of the decoders. */
import { fuzzDecoders } from './decodeFuzz.ts';

const inputs = Number(process.argv[2] ?? 100_000);
const seed = Number(process.argv[3] ?? Date.now() % 1_000_000);
const t0 = performance.now();
const r = fuzzDecoders(inputs, seed);
process.stdout.write(
  `${JSON.stringify({ inputs, seed, seconds: +((performance.now() - t0) / 1000).toFixed(1), accepted: r.accepted, fastPath: r.quick, rejectedByReason: r.rejectedByReason, failures: r.failures.slice(0, 20) }, null, 2)}\n`,
);
process.exit(r.failures.length ? 1 : 0);
