/**
 * `npm run soak:flood -- [minutes]` (default 10): one device floods the gateway with invalid messages
 * (QoS 0, as fast as its socket takes them) and valid ones (QoS 1, slowed down to its rate) while five
 * other devices publish QoS 1 readings steadily. Every acknowledged reading of every device must be stored,
 * and the gateway's resident memory must stay flat (at most 20 MB above where it stood after the first
 * fifth of the run). Prints the figures; exits 1 when either fails. The suite runs it for 15 s
 * (test/soak/flood.test.ts); the script runs the bundle `npm start` runs.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { GatewayChild } from '../helpers/child.ts';
import { device, faultConfig, metrics, metricValue, sleep, T } from '../helpers/faults.ts';
import { testHash } from '../helpers/gateway.ts';
import { onBundledGateway, printFigures } from './main.ts';

const OTHERS = ['o-1', 'o-2', 'o-3', 'o-4', 'o-5'];

export function floodConfig(): Record<string, unknown> {
  return faultConfig(
    {},
    OTHERS.map((id) => ({
      id,
      kind: 'sediment-trap',
      designDepthIn: 24,
      passwordHash: testHash(`pw-${id}`),
    })),
  );
}

export interface FloodFigures {
  seconds: number;
  invalidSent: number;
  invalidCounted: number;
  flooderValidAcked: number;
  flooderValidStored: number;
  othersAcked: number;
  othersStored: number;
  rejectionRows: number;
  rssMb: { start: number; afterWarmup: number; max: number; end: number };
  /** Why the run failed; empty when it passed. */
  problems: string[];
}

export async function floodSoak(gw: GatewayChild, seconds: number): Promise<FloodFigures> {
  const flooder = await device(gw.mqttUrl, 'rg-1');
  const others = await Promise.all(OTHERS.map((id) => device(gw.mqttUrl, id)));
  const start = Date.now();
  const end = start + seconds * 1000;
  const rss = { start: gw.rssMb(), afterWarmup: 0, max: 0, end: 0 };
  const t0 = start - 7 * 86_400_000;
  let invalidSent = 0;
  let flooderValidAcked = 0;
  let othersAcked = 0;
  const sampler = (async () => {
    while (Date.now() < end) {
      await sleep(1000);
      const v = gw.rssMb();
      rss.max = Math.max(rss.max, v);
      if (!rss.afterWarmup && Date.now() - start >= (seconds * 1000) / 5) rss.afterWarmup = v;
    }
  })();
  const invalid = (async () => {
    const bad = ['{"rainTips": not json', '{"rainTips": -5}', '{"rainTips": 1, "colour": "red"}', '[1,2,3]'];
    while (Date.now() < end) {
      await new Promise<void>((r) =>
        flooder.publish(T('rg-1'), bad[invalidSent % bad.length]!, { qos: 0 }, () => r()),
      );
      invalidSent++;
    }
  })();
  const valid = (async () => {
    for (let i = 0; Date.now() < end; i++) {
      const msg = JSON.stringify({ seq: i, ts: t0 + i * 60_000, rainTips: i });
      await flooder.publishAsync(T('rg-1'), msg, { qos: 1 });
      flooderValidAcked++;
    }
  })();
  const steady = others.map(async (c, k) => {
    for (let i = 0; Date.now() < end; i++) {
      await c.publishAsync(T(OTHERS[k]!), JSON.stringify({ seq: i, ts: t0 + i * 1000, sedimentIn: 3 }), {
        qos: 1,
      });
      othersAcked++;
      await sleep(200);
    }
  });
  await Promise.all([sampler, invalid, valid, ...steady]);
  // The flooder's socket still holds what it sent faster than it was let in: wait for all of it (2 min at most).
  let invalidCounted = 0;
  for (let k = 0; k < 1200; k++) {
    const m = await metrics(gw.httpUrl);
    invalidCounted = ['malformed_json', 'out_of_range', 'unknown_field', 'not_an_object'].reduce(
      (n, reason) => n + metricValue(m, 'gateway_rejections_total', `reason="${reason}"`),
      0,
    );
    if (invalidCounted >= invalidSent) break;
    await sleep(100);
  }
  rss.end = gw.rssMb();
  for (const c of [flooder, ...others]) c.end(true);
  const db = new Database(join(gw.dataDir, 'gateway.db'), { readonly: true });
  const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  const flooderValidStored = n("SELECT count(*) AS n FROM readings WHERE device_id = 'rg-1'");
  const othersStored = n(
    `SELECT count(*) AS n FROM readings WHERE device_id IN (${OTHERS.map((o) => `'${o}'`).join(',')})`,
  );
  const rejectionRows = n('SELECT count(*) AS n FROM rejections');
  db.close();
  const problems: string[] = [];
  if (othersStored !== othersAcked)
    problems.push(`others: ${othersAcked} acknowledged, ${othersStored} stored`);
  if (flooderValidStored !== flooderValidAcked)
    problems.push(`flooder: ${flooderValidAcked} valid acknowledged, ${flooderValidStored} stored`);
  if (invalidCounted !== invalidSent) problems.push(`${invalidSent} invalid sent, ${invalidCounted} counted`);
  if (rss.max - rss.afterWarmup > 20)
    problems.push(`RSS rose from ${rss.afterWarmup} to ${rss.max} MB after warm-up`);
  return {
    seconds: (Date.now() - start) / 1000,
    invalidSent,
    invalidCounted,
    flooderValidAcked,
    flooderValidStored,
    othersAcked,
    othersStored,
    rejectionRows,
    rssMb: rss,
    problems,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const minutes = Number(process.argv[2] ?? 10);
  printFigures(() => onBundledGateway(floodConfig(), (gw) => floodSoak(gw, minutes * 60)));
}
