/**
 * Point 6: faults of the box. CASE=full: the data directory on an 8 MB tmpfs, filled up while a device
 * publishes QoS 1: PUBACKs received, readings stored, failed commits logged, what health said. Then the
 * gateway is restarted on the full disk (exit code or up), and space is freed (does it resume?).
 * CASE=sigterm: SIGTERM with one idle MQTT client connected: seconds until the process exits.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { baseConfig, type Child, report, sleep, sqlCount, startChild, T, THIS_RELEASE } from './support.ts';

const which = process.env.CASE ?? 'full';

/** Writes `file` until the disk has no byte left. */
function fill(file: string): number {
  const fd = openSync(file, 'w');
  let n = 0;
  try {
    for (const size of [64 * 1024, 4096, 512, 1]) {
      const chunk = Buffer.alloc(size, 1);
      try {
        for (;;) n += writeSync(fd, chunk);
      } catch {
        // ENOSPC at this size: go on with a smaller one
      }
    }
  } finally {
    closeSync(fd);
  }
  return n;
}

/** Starts the gateway and says whether it came up (with its health) or exited (with its code). */
async function startOrExit(
  config: Record<string, unknown>,
  dataDir: string,
): Promise<{ gw: Child; outcome: string }> {
  const gw = await startChild(config, { dataDir, waitReady: false });
  for (const end = Date.now() + 30_000; Date.now() < end; await sleep(200)) {
    if (!gw.alive())
      return {
        gw,
        outcome: `exited ${gw.proc.exitCode}: ${gw
          .output()
          .split('\n')
          .find((l) => /failed/.test(l))
          ?.slice(0, 160)}`,
      };
    const h = await health(gw.httpUrl);
    if (!h.startsWith('error')) return { gw, outcome: `up: ${h}` };
  }
  return { gw, outcome: 'neither up nor exited in 30 s' };
}

const health = async (url: string) => {
  try {
    const r = await fetch(`${url}/api/health`);
    const b = (await r.json()) as {
      status: string;
      components: Array<{ name: string; ok: boolean; detail?: string }>;
    };
    return `${r.status} ${b.status} ${b.components
      .filter((c) => !c.ok)
      .map((c) => `${c.name}: ${c.detail}`)
      .join('; ')}`;
  } catch (e) {
    return `error ${(e as Error).message}`;
  }
};

if (which === 'full') {
  const mnt = mkdtempSync(join(tmpdir(), 'probe-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mnt]);
  const dataDir = join(mnt, 'data');
  mkdirSync(dataDir);
  const config = baseConfig(THIS_RELEASE ? { storage: { minFreeMb: 1 } } : {});
  let gw = await startChild(config, { dataDir });
  try {
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
      reconnectPeriod: 100,
    });
    c.on('error', () => {});
    const t0 = Date.now() - 1_000_000;
    let acked = 0;
    let i = 0;
    const send = async (n: number) => {
      let ok = 0;
      for (let k = 0; k < n; k++, i++) {
        const r = await Promise.race([
          c
            .publishAsync(
              T('rg-1'),
              JSON.stringify({ ts: t0 + i * 1000, seq: i, rainTips: i, batteryV: 3.7 }),
              { qos: 1 },
            )
            .then(
              () => true,
              () => false,
            ),
          sleep(1000).then(() => false),
        ]);
        if (r) ok++;
      }
      return ok;
    };
    acked += await send(200);
    const filler = join(mnt, 'filler');
    fill(filler);
    const healthAtFull = await health(gw.httpUrl);
    const ackedWhileFull = await send(300);
    const healthAfter = await health(gw.httpUrl);
    const failedCommits = (gw.output().match(/store commit failed/g) ?? []).length;
    c.end(true);
    await gw.stop();
    const storedTotal = await sqlCount(dataDir, "SELECT COUNT(*) AS n FROM readings WHERE device_id='rg-1'");
    // Start again on the full disk.
    fill(join(mnt, 'filler2'));
    const again = await startOrExit(config, dataDir);
    gw = again.gw;
    const restart = again.outcome;
    let resumed = 'not running';
    if (gw.alive()) {
      rmSync(filler);
      rmSync(join(mnt, 'filler2'));
      await sleep(3000);
      const c2 = await mqtt
        .connectAsync(gw.mqttUrl, {
          clientId: 'maple-ridge/rg-1',
          username: 'maple-ridge/rg-1',
          password: 'pw-rg-1',
          reconnectPeriod: 0,
        })
        .catch(() => undefined);
      const ok = c2
        ? await c2.publishAsync(T('rg-1'), JSON.stringify({ seq: 999_999, rainTips: 1 }), { qos: 1 }).then(
            () => true,
            () => false,
          )
        : false;
      c2?.end(true);
      resumed = `${ok ? 'acknowledged' : 'refused'}; ${await health(gw.httpUrl)}`;
      await gw.stop();
    } else {
      rmSync(join(mnt, 'filler2'));
    }
    // A first start with an empty data directory on a full disk.
    mkdirSync(join(mnt, 'fresh'));
    fill(join(mnt, 'filler3'));
    const first = await startOrExit(config, join(mnt, 'fresh'));
    gw = first.gw;
    const fresh = first.outcome;
    await gw.stop();
    report('box', {
      case: which,
      freshStartOnFullDisk: fresh,
      ackedBeforeFull: acked,
      healthAtFull,
      ackedWhileFull,
      of: 300,
      healthAfter,
      failedCommits,
      storedTotal,
      restartOnFullDisk: restart,
      afterSpaceFreed: resumed,
    });
  } finally {
    await gw.stop();
    execFileSync('umount', ['-l', mnt]);
  }
} else {
  const gw = await startChild(baseConfig());
  const c = await mqtt.connectAsync(gw.mqttUrl, {
    clientId: 'maple-ridge/rg-1',
    username: 'maple-ridge/rg-1',
    password: 'pw-rg-1',
    reconnectPeriod: 0,
  });
  c.on('error', () => {});
  await sleep(500);
  const t0 = Date.now();
  gw.proc.kill('SIGTERM');
  const code = await Promise.race([gw.exited, sleep(90_000).then(() => 'still running after 90 s')]);
  report('box', { case: which, exit: code, seconds: (Date.now() - t0) / 1000 });
  c.end(true);
  await gw.stop('SIGKILL');
}
