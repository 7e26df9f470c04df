/**
 * A gateway process for the MQTT fuzzer and what is checked after a run: it is still up, its memory outside
 * the capped heap grew by at most a bound, a device it never saw in the run still gets a QoS 1 reading through, and every
 * outcome it counted has a known label.
 */
import { REJECT_REASONS } from '../../shared/src/telemetry.ts';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { device, faultConfig, metrics, publishOutcome, T } from '../helpers/faults.ts';
import { testHash } from '../helpers/gateway.ts';
import type { FuzzLogin } from './mqttFuzz.ts';

export const FUZZ_LOGINS: FuzzLogin[] = ['rg-1', 'rg-2', 'rg-3', 'trap-1'].map((d) => ({
  clientId: `maple-ridge/${d}`,
  username: `maple-ridge/${d}`,
  password: `pw-${d}`,
  siteId: 'maple-ridge',
  deviceId: d,
}));

/** A gateway whose rate limit does not hold fuzzed publishes back for long, and a device kept out of the run. */
export function startFuzzGateway(): Promise<GatewayChild> {
  return startGatewayChild(
    faultConfig({ ingest: { deviceRatePerSec: 100_000, deviceBurst: 100_000 } }, [
      { id: 'rg-9', kind: 'rain-gauge', inchesPerTip: 0.01, passwordHash: testHash('pw-rg-9') },
    ]),
  );
}

// Every outcome the gateway counts (a message held in the quarantine is one: docs/quarantine.md).
const RESULTS = new Set([
  'stored',
  'duplicate',
  'rejected',
  'refused',
  'dropped',
  'status',
  'ignored',
  'quarantined',
]);

/** The gateway's memory from one scrape of its /metrics, in MB: resident, the V8 heap committed, and outside it. */
export interface FuzzMemory {
  rssMb: number;
  heapTotalMb: number;
  externalMb: number;
}

export async function memoryOf(gw: GatewayChild): Promise<FuzzMemory> {
  const text = await metrics(gw.httpUrl);
  const mb = (re: RegExp) => {
    const m = re.exec(text);
    if (!m) throw new Error(`no ${re.source} in /metrics`);
    return Number(m[1]) / 1024 / 1024;
  };
  return {
    rssMb: mb(/^process_resident_memory_bytes (\S+)$/m),
    heapTotalMb: mb(/^nodejs_memory_bytes\{kind="heapTotal"\} (\S+)$/m),
    externalMb: mb(/^nodejs_memory_bytes\{kind="external"\} (\S+)$/m),
  };
}

/** How many one-second samples a run's memory gets to come back down before its growth counts as kept. */
const SETTLE_SAMPLES = 8;

/**
 * The gateway's memory once the run is over: a machine under load lets a run's peak (sockets still
 * draining, the allocator not yet given pages back) stand for a few seconds, which a single scrape
 * would take for a leak. A leak is what is still held when the process has gone quiet, so this samples
 * once a second and keeps the lowest growth, until it is within the bound or the samples run out.
 */
async function settledMemory(
  gw: GatewayChild,
  before: FuzzMemory,
  maxNativeGrowthMb: number,
): Promise<{ now: FuzzMemory; native: number }> {
  let best: { now: FuzzMemory; native: number } | undefined;
  for (let i = 0; i < SETTLE_SAMPLES; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 1000));
    const now = await memoryOf(gw);
    const native = now.rssMb - before.rssMb - (now.heapTotalMb - before.heapTotalMb);
    if (!best || native < best.native) best = { now, native };
    if (native <= maxNativeGrowthMb && now.externalMb - before.externalMb <= maxNativeGrowthMb / 2) break;
  }
  return best!;
}

/**
 * What is wrong with the gateway after a run (empty when nothing is). Memory: the V8 heap is capped
 * (`--max-old-space-size`, as `npm start` runs it), so it may fill with garbage towards the cap between
 * collections, and a leak in it ends the process, which is checked; what must stay bounded is the memory
 * outside it: the resident growth less the heap's own (`maxNativeGrowthMb`), and the buffers (`external`).
 */
export async function afterFuzz(
  gw: GatewayChild,
  before: FuzzMemory,
  maxNativeGrowthMb: number,
): Promise<string[]> {
  const problems: string[] = [];
  if (!gw.alive()) return [`the gateway exited: ${gw.output().slice(-2000)}`];
  const { now, native } = await settledMemory(gw, before, maxNativeGrowthMb);
  if (native > maxNativeGrowthMb)
    problems.push(
      `memory outside the heap grew by ${native.toFixed(1)} MB and stayed there for ${SETTLE_SAMPLES} s (resident ${before.rssMb.toFixed(1)} -> ${now.rssMb.toFixed(1)} MB, heap ${before.heapTotalMb.toFixed(1)} -> ${now.heapTotalMb.toFixed(1)} MB)`,
    );
  if (now.externalMb - before.externalMb > maxNativeGrowthMb / 2)
    problems.push(`buffers grew from ${before.externalMb.toFixed(1)} to ${now.externalMb.toFixed(1)} MB`);
  const c = await device(gw.mqttUrl, 'rg-9');
  const outcome = await publishOutcome(c, T('rg-9'), JSON.stringify({ seq: 1, rainTips: 1 }));
  c.end(true);
  if (outcome !== 'acknowledged') problems.push(`a device after the run: ${outcome}`);
  const text = await metrics(gw.httpUrl);
  for (const m of text.matchAll(/^gateway_messages_total\{result="([^"]+)"/gm))
    if (!RESULTS.has(m[1]!)) problems.push(`unknown outcome ${m[1]}`);
  for (const m of text.matchAll(/^gateway_rejections_total\{reason="([^"]+)"/gm))
    if (!(REJECT_REASONS as readonly string[]).includes(m[1]!)) problems.push(`unknown reason ${m[1]}`);
  if ((await fetch(`${gw.httpUrl}/api/health`)).status !== 200) problems.push('health is not ok');
  return problems;
}
