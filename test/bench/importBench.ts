/** Time to import and evaluate the whole 5-month HOBO record (13,911 tips) through a running gateway. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { startBenchGateway } from './gatewayProcess.ts';

export async function importBench(file: string) {
  const token = 'bench-engineer';
  const gw = await startBenchGateway({
    gatewayId: 'bench-import',
    auth: {
      tokens: [
        { name: 'bench', role: 'engineer', tokenSha256: createHash('sha256').update(token).digest('hex') },
      ],
    },
    sites: [
      {
        id: 'q',
        kind: 'construction',
        devices: [{ id: 'hobo', kind: 'rain-gauge', inchesPerTip: 0.2 / 25.4 }],
      },
    ],
  });
  try {
    const body = readFileSync(file, 'utf8');
    const t0 = performance.now();
    const res = await fetch(`${gw.http}/api/import?siteId=q&deviceId=hobo&utcOffsetMinutes=0`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', authorization: `Bearer ${token}` },
      body,
    });
    const ms = performance.now() - t0;
    const summary = (await res.json()) as { tips: number; stored: number };
    const storms = (await (
      await fetch(`${gw.http}/api/storms?siteId=q&from=2000-01-01T00:00:00Z`)
    ).json()) as Array<{ qualified: boolean }>;
    return {
      ms,
      tips: summary.tips,
      stored: summary.stored,
      storms: storms.length,
      qualifying: storms.filter((s) => s.qualified).length,
    };
  } finally {
    await gw.stop();
  }
}
