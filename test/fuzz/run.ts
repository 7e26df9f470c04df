/**
 * `npm run fuzz -- [inputs] [seed]`: the long fuzz run. The decoders and the status path get `inputs`
 * payloads each; the embedded broker of a gateway process gets `inputs` whole MQTT packets (random and
 * mutated, over raw sockets), after which the gateway must be up, its memory grown by at most 64 MB, and
 * a device must still get through. Exits 1 on any failure.
 */
import { fuzzDecoders } from './decodeFuzz.ts';
import { afterFuzz, FUZZ_LOGINS, memoryOf, startFuzzGateway } from './fuzzGateway.ts';
import { fuzzBroker } from './mqttFuzz.ts';
import { fuzzStatus } from './statusFuzz.ts';

const inputs = Number(process.argv[2] ?? 100_000);
const seed = Number(process.argv[3] ?? Date.now() % 1_000_000);
const secs = (t: number) => +((performance.now() - t) / 1000).toFixed(1);

let t0 = performance.now();
const d = fuzzDecoders(inputs, seed);
const decoders = {
  seconds: secs(t0),
  accepted: d.accepted,
  fastPath: d.quick,
  rejectedByReason: d.rejectedByReason,
  failures: d.failures.slice(0, 20),
};
t0 = performance.now();
const s = fuzzStatus(inputs, seed);
const status = {
  seconds: secs(t0),
  statuses: s.statuses,
  problems: s.problems,
  failures: s.failures.slice(0, 20),
};

const gw = await startFuzzGateway();
let packets: Record<string, unknown>;
let failures = d.failures.length + s.failures.length;
try {
  const memoryBefore = await memoryOf(gw);
  t0 = performance.now();
  const m = await fuzzBroker({ port: gw.mqttPort, packets: inputs, seed, logins: FUZZ_LOGINS });
  const seconds = secs(t0);
  const after = await afterFuzz(gw, memoryBefore, 64);
  failures += m.failures.length + after.length;
  packets = {
    seconds,
    ...m,
    failures: m.failures.slice(0, 20),
    memoryBefore,
    memoryAfter: await memoryOf(gw),
    gatewayProblems: after,
  };
} finally {
  await gw.cleanup();
}
process.stdout.write(`${JSON.stringify({ inputs, seed, decoders, status, packets }, null, 2)}\n`);
process.exit(failures ? 1 : 0);
