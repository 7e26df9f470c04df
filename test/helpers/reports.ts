/**
 * What the report load tests and probes share: a rain gauge's months-long drizzle as a HOBO export
 * (generated, one tip every few minutes, so that it is one storm of tens of thousands of readings),
 * imported into a running gateway, and the slowest and 99th-percentile answers of /api/health sampled
 * while something else runs; and a report asked for once a checkpoint covers the whole log.
 */
import { createHash } from 'node:crypto';
import { waitFor } from './env.ts';

export const ENGINEER_TOKEN = 'reports-engineer-token';
export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** A gateway configuration with one construction site and its rain gauge `rg-1`, and an engineer token. */
export function drizzleConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...extra,
    gatewayId: 'reports',
    auth: { tokens: [{ name: 'Pat Engineer', role: 'engineer', tokenSha256: sha256(ENGINEER_TOKEN) }] },
    evidence: { checkpointIntervalSeconds: 1 },
    sites: [
      {
        id: 'hill-farm',
        kind: 'construction',
        devices: [{ id: 'rg-1', kind: 'rain-gauge', inchesPerTip: 0.01 }],
      },
    ],
  };
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `n` readings of a cumulative tip counter, one tip each `stepMin` minutes, the last one `endAgoMs` ago. */
export function drizzleHobo(n: number, stepMin: number, now: number, endAgoMs = 3_600_000): string {
  const first = now - endAgoMs - (n - 1) * stepMin * 60_000;
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const d = new Date(first + i * stepMin * 60_000);
    lines.push(
      `${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())}/${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())},${i}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Imports a HOBO text as rain gauge rg-1's, in downloads of `linesPer` lines; the readings stored. */
export async function importDrizzle(
  httpUrl: string,
  text: string,
  linesPer = 10_000,
): Promise<{ stored: number }> {
  const lines = text.trimEnd().split('\n');
  let stored = 0;
  for (let i = 0; i < lines.length; i += linesPer) {
    const res = await fetch(`${httpUrl}/api/import?siteId=hill-farm&deviceId=rg-1&utcOffsetMinutes=0`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', authorization: `Bearer ${ENGINEER_TOKEN}` },
      body: `${lines.slice(i, i + linesPer).join('\n')}\n`,
      signal: AbortSignal.timeout(280_000),
    });
    if (!res.ok) throw new Error(`import: ${res.status} ${await res.text()}`);
    stored += ((await res.json()) as { stored: number }).stored;
  }
  return { stored };
}

/** Asks /api/health every `everyMs` until `stop()`; the answers' times (ms), and how many failed. */
export function sampleHealth(httpUrl: string, everyMs = 50) {
  const times: number[] = [];
  let failed = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      try {
        const res = await fetch(`${httpUrl}/api/health`, { signal: AbortSignal.timeout(30_000) });
        await res.arrayBuffer();
        times.push(performance.now() - t0);
      } catch {
        failed++;
      }
      // The sampling interval.
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const sorted = [...times].sort((a, b) => a - b);
      const q = (p: number) =>
        Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0);
      return {
        samples: times.length,
        failed,
        p50: q(0.5),
        p99: q(0.99),
        max: Math.round(sorted.at(-1) ?? 0),
      };
    },
  };
}

/** Samples a process's resident memory (MB) until `stop()`; the highest seen. */
export function samplePeak(rssMb: () => number, everyMs = 50) {
  let peak = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMb());
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, rssMb());
    },
  };
}

/** One report request: its status, size, time, and Retry-After when refused. */
export async function getReport(httpUrl: string, query: string) {
  const t0 = performance.now();
  try {
    const res = await fetch(`${httpUrl}/api/reports/compliance?siteId=hill-farm&${query}`, {
      signal: AbortSignal.timeout(600_000),
    });
    const body = await res.text();
    return {
      status: res.status,
      bytes: body.length,
      ms: Math.round(performance.now() - t0),
      retryAfter: res.headers.get('retry-after'),
      body,
    };
  } catch (e) {
    return { status: 0, bytes: 0, ms: Math.round(performance.now() - t0), retryAfter: null, body: String(e) };
  }
}

/**
 * The compliance report of `query` (`siteId=…&from=…&format=…`) as its text, asked for once a signed
 * checkpoint covers the whole log (the gateway signs one a second with `evidence.checkpointIntervalSeconds:
 * 1`), so that every record it cites is provable. A refusal throws with the gateway's answer.
 */
export async function checkpointedReport(
  httpUrl: string,
  query: string,
  headers: Record<string, string> = {},
): Promise<string> {
  const evidence = async () =>
    (await (await fetch(`${httpUrl}/api/evidence`, { headers })).json()) as {
      size: number;
      checkpoint?: { size: number };
    };
  const logged = (await evidence()).size;
  await waitFor(
    async () => ((await evidence()).checkpoint?.size ?? 0) >= logged || undefined,
    10_000,
    'a checkpoint of the whole log',
  );
  const res = await fetch(`${httpUrl}/api/reports/compliance?${query}`, { headers });
  const text = await res.text();
  if (!res.ok) throw new Error(`the report: ${res.status} ${text}`);
  return text;
}
