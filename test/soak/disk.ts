/**
 * `npm run soak:disk -- [seconds]` (default 60; as root, for the tmpfs): readings from three devices fill
 * a 48 MB data disk (all but 12 MB of it taken by a ballast file) until the store turns read-only; then the disk is filled to its last byte and the
 * gateway runs on it for `seconds` (the evidence checkpoint each second), is restarted on the full disk
 * and runs `seconds` more, and space is given back. Before, the checkpoint timer's insert threw
 * SQLITE_FULL uncaught and the process exited, and again about 10 s after each restart. Prints the
 * figures (readings acknowledged and stored, exits, health on the full disk, the write failures and the
 * writes put off, by path) and exits 1 if the gateway exited on its own, lost an acknowledged reading, or
 * took no data once space was back. The suite runs a short form (test/e2e/diskFaults.test.ts).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { makeDisk } from '../helpers/disk.ts';
import { waitFor } from '../helpers/env.ts';
import { device, faultConfig, metrics, publishOutcome, sleep, T } from '../helpers/faults.ts';
import { printFigures } from './main.ts';

const DEVICES = ['rg-1', 'rg-2', 'rg-3'];

export async function diskSoak(seconds: number) {
  const disk = makeDisk(48);
  const dataDir = join(disk.dir, 'data');
  mkdirSync(dataDir);
  const config = faultConfig({
    storage: { minFreeMb: disk.minFreeMb },
    evidence: { checkpointIntervalSeconds: 1 },
  });
  const opts = { dataDir, bundle: true, env: { LOG_LEVEL: 'error' } };
  const problems: string[] = [];
  let gw: GatewayChild | undefined;
  const status = async (g: GatewayChild) => (await fetch(`${g.httpUrl}/api/health`)).status;
  const counted = async (g: GatewayChild) =>
    (await metrics(g.httpUrl))
      .split('\n')
      .filter((l) => /^gateway_store_(write_failures|writes_deferred)_total\{/.test(l));
  try {
    gw = await startGatewayChild(config, opts);
    // A ballast file leaves the readings 12 MB to fill: given back at the end with the rest.
    disk.fill('ballast', disk.minFreeMb + 12);
    const t0 = Date.now() - 30 * 86_400_000;
    const acked = new Map<string, number[]>(DEVICES.map((d) => [d, []]));
    const start = performance.now();
    await Promise.all(
      DEVICES.map(async (id) => {
        const c = await device(gw!.mqttUrl, id, { reconnectPeriod: 0 });
        for (let i = 0; ; i++) {
          const body = JSON.stringify({ seq: i, ts: t0 + i * 10_000, rainTips: i });
          if ((await publishOutcome(c, T(id), body)) !== 'acknowledged') break;
          acked.get(id)!.push(i);
        }
        c.end(true);
      }),
    );
    const fillSeconds = (performance.now() - start) / 1000;
    disk.fill('filler');
    const exits: Array<number | null> = [];
    const onFullDisk: number[] = [];
    for (let round = 0; round < 2; round++) {
      if (round === 1) {
        exits.push(await gw.stop());
        gw = await startGatewayChild(config, opts);
      }
      const end = Date.now() + seconds * 1000;
      while (Date.now() < end) {
        if (!gw.alive()) {
          problems.push(
            `the gateway exited on the full disk (round ${round + 1}): ${gw.output().slice(-500)}`,
          );
          break;
        }
        onFullDisk.push(await status(gw));
        await sleep(1000);
      }
    }
    const writes = gw.alive() ? await counted(gw) : [];
    disk.free('filler');
    disk.free('ballast');
    await waitFor(async () => (await status(gw!)) === 200 || undefined, 90_000, 'health green again').catch(
      async (e: Error) => {
        throw new Error(`${e.message}: ${await (await fetch(`${gw!.httpUrl}/api/health`)).text()}`);
      },
    );
    const c = await device(gw.mqttUrl, 'rg-1', { reconnectPeriod: 0 });
    const after = await publishOutcome(
      c,
      T('rg-1'),
      JSON.stringify({ seq: 1e6, ts: Date.now(), rainTips: 1 }),
    );
    c.end(true);
    if (after !== 'acknowledged') problems.push(`no data taken once space was back (${after})`);
    await gw.stop();
    const db = new Database(join(dataDir, 'gateway.db'), { readonly: true });
    const stored = new Set(
      (db.prepare("SELECT device_id || '/' || seq AS k FROM readings").all() as Array<{ k: string }>).map(
        (r) => r.k,
      ),
    );
    db.close();
    let ackedN = 0;
    let lost = 0;
    for (const [id, seqs] of acked)
      for (const s of seqs) {
        ackedN++;
        if (!stored.has(`${id}/${s}`)) lost++;
      }
    if (lost > 0) problems.push(`${lost} acknowledged readings not stored`);
    if (!onFullDisk.every((s) => s === 503)) problems.push('health was not red on the full disk');
    return {
      tmpfs: disk.mounted,
      fillSeconds: Math.round(fillSeconds),
      acknowledged: ackedN,
      stored: stored.size,
      lost,
      stopExitCodes: exits,
      healthOnFullDisk: [...new Set(onFullDisk)],
      writes,
      problems,
    };
  } finally {
    await gw?.cleanup();
    disk.dispose();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printFigures(() => diskSoak(Number(process.argv[2] ?? 60)));
}
