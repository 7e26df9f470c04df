/**
 * Preloaded into the gateway process to see what it allocates, collected or not (V8's sampling heap
 * profiler, keeping the samples of objects the collector freed): `BENCH_GATEWAY_NODE_OPTIONS='--import
 * ./test/bench/allocSampling.mjs' npm run bench`, then `kill -USR2 <the gateway's pid>` during the run
 * writes `alloc-<pid>-<n>.heapprofile` in ALLOC_PROFILE_DIR (the working directory by default);
 * `npx tsx test/bench/allocSummary.ts FILE` sums it by function.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const session = new Session();
session.connect();
const post = (method, params) =>
  new Promise((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));
await post('HeapProfiler.enable');
await post('HeapProfiler.startSampling', {
  samplingInterval: 16384,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
let written = 0;
process.on('SIGUSR2', () => {
  post('HeapProfiler.stopSampling').then(
    ({ profile }) => {
      const file = join(
        process.env.ALLOC_PROFILE_DIR ?? '.',
        `alloc-${process.pid}-${written++}.heapprofile`,
      );
      writeFileSync(file, JSON.stringify(profile));
      process.stderr.write(`allocation profile written to ${file}\n`);
    },
    (e) => process.stderr.write(`allocation profile failed: ${e.message}\n`),
  );
});
