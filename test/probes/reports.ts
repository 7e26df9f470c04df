/**
 * Reports of a months-long storm: imports N readings of one gauge (default 66,000, one tip each 10 min,
 * about 15 months), then measures a 5-day report (size, time, peak RSS, the slowest /api/health answer
 * meanwhile), a 2-year report, three 2-year reports at once (their statuses, whether the process
 * lives), and /api/health's p99 while two 2-year reports are built. One JSON line per step. The readings
 * are imported in downloads of 10,000 lines (`PER`).
 */
import { startGatewayChild } from '../helpers/child.ts';
import {
  drizzleConfig,
  drizzleHobo,
  getReport,
  importDrizzle,
  sampleHealth,
  samplePeak,
} from '../helpers/reports.ts';
import { ROOT } from './support.ts';

const N = Number(process.env.N ?? 66_000);
const gw = await startGatewayChild(drizzleConfig(), { root: ROOT });
const print = (step: string, o: Record<string, unknown>) =>
  process.stdout.write(`${JSON.stringify({ step, alive: gw.alive(), rssMb: gw.rssMb(), ...o })}\n`);
try {
  const now = Date.now();
  const t0 = performance.now();
  const imported = await importDrizzle(
    gw.httpUrl,
    drizzleHobo(N, 10, now),
    Number(process.env.PER ?? 10_000),
  );
  print('import', { readings: N, stored: imported.stored, ms: Math.round(performance.now() - t0) });
  // The rules may still be catching up with the import: /api/health alone, as a baseline.
  const idle = sampleHealth(gw.httpUrl);
  await new Promise((r) => setTimeout(r, 10_000));
  print('health alone', { health: await idle.stop() });
  const day = (ms: number) => new Date(now - ms).toISOString().slice(0, 10);
  const measure = async (step: string, queries: string[]) => {
    const health = sampleHealth(gw.httpUrl);
    const peak = samplePeak(() => gw.rssMb());
    const rs = await Promise.all(queries.map((q) => getReport(gw.httpUrl, q)));
    print(step, {
      reports: rs.map((r) => ({ status: r.status, bytes: r.bytes, ms: r.ms, retryAfter: r.retryAfter })),
      peakRssMb: peak.stop(),
      health: await health.stop(),
    });
  };
  const fiveDays = `from=${day(5 * 86_400_000)}&to=${day(0)}`;
  const twoYears = `from=${day(730 * 86_400_000)}&to=${day(0)}`;
  await measure('one 5-day report', [fiveDays]);
  if (gw.alive()) await measure('one 2-year report', [twoYears]);
  if (gw.alive()) await measure('two 2-year reports', [twoYears, twoYears]);
  if (gw.alive()) await measure('three 2-year reports', [twoYears, twoYears, twoYears]);
  print('end', { exit: gw.alive() ? null : gw.proc.exitCode, signal: gw.proc.signalCode });
} finally {
  await gw.cleanup();
}
