/**
 * Point 4: one device floods invalid messages (QoS 0, as fast as the socket takes them) for SECONDS
 * (default 20). Figures: rejections counted and their rate, rejection rows stored, growth of the store
 * files in MB. DISK=8 puts the data directory on an 8 MB tmpfs and reports how long until commits fail
 * and how many of another device's QoS 1 readings were then refused or lost.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { baseConfig, report, sleep, sqlCount, startChild, T, THIS_RELEASE } from './support.ts';

const seconds = Number(process.env.SECONDS ?? 20);
const diskMb = process.env.DISK ? Number(process.env.DISK) : undefined;
let dataDir: string | undefined;
if (diskMb) {
  dataDir = mkdtempSync(join(tmpdir(), 'probe-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${diskMb}m`, 'tmpfs', dataDir]);
  mkdirSync(join(dataDir, 'd'));
  dataDir = join(dataDir, 'd');
}
const size = (dir: string) =>
  readdirSync(dir).reduce((n, f) => n + (f.startsWith('gateway.db') ? statSync(join(dir, f)).size : 0), 0);
// This release: an 8 MB disk needs a lower free-space floor than the default 16 MB.
const gw = await startChild(
  baseConfig(THIS_RELEASE && diskMb ? { storage: { minFreeMb: 1 } } : {}),
  dataDir ? { dataDir } : {},
);
const metric = async (re: RegExp) =>
  Number(re.exec(await (await fetch(`${gw.httpUrl}/metrics`)).text())?.[1] ?? 0);
try {
  await sleep(1500);
  const size0 = size(gw.dataDir);
  const flooder = await mqtt.connectAsync(gw.mqttUrl, {
    clientId: 'maple-ridge/rg-1',
    username: 'maple-ridge/rg-1',
    password: 'pw-rg-1',
    reconnectPeriod: 0,
  });
  const other = await mqtt.connectAsync(gw.mqttUrl, {
    clientId: 'maple-ridge/trap-1',
    username: 'maple-ridge/trap-1',
    password: 'pw-trap-1',
    reconnectPeriod: 0,
  });
  flooder.on('error', () => {});
  other.on('error', () => {});
  const t0 = Date.now();
  let firstFailureMs: number | undefined;
  let otherAcked = 0;
  let otherFailed = 0;
  const otherLoop = (async () => {
    for (let i = 0; Date.now() - t0 < seconds * 1000; i++) {
      if (other.disconnected) break;
      const ok = await Promise.race([
        other.publishAsync(T('trap-1'), JSON.stringify({ seq: i, sedimentIn: 2 }), { qos: 1 }).then(
          () => true,
          () => false,
        ),
        sleep(2000).then(() => false),
      ]);
      if (ok) otherAcked++;
      else otherFailed++;
      await sleep(100);
    }
  })();
  const payload = '{"rainTips": not json at all, padding padding padding padding padding padding}';
  while (Date.now() - t0 < seconds * 1000 && !flooder.disconnected) {
    await Promise.race([
      new Promise<void>((r) => {
        flooder.publish(T('rg-1'), payload, { qos: 0 }, () => r());
      }),
      sleep(1000),
    ]);
    if (firstFailureMs === undefined && /store commit failed/.test(gw.output()))
      firstFailureMs = Date.now() - t0;
  }
  const floodMs = Date.now() - t0;
  await otherLoop;
  await sleep(1500);
  if (firstFailureMs === undefined && /store commit failed/.test(gw.output())) firstFailureMs = floodMs;
  const counted = await metric(/gateway_rejections_total\{reason="malformed_json"\} (\d+)/);
  const health = await (await fetch(`${gw.httpUrl}/api/health`)).json().catch(() => ({}));
  const size1 = size(gw.dataDir);
  flooder.end(true);
  other.end(true);
  await gw.stop();
  const rows = await sqlCount(gw.dataDir, 'SELECT COUNT(*) AS n FROM rejections');
  report('flood', {
    seconds: floodMs / 1000,
    rejectionsCounted: counted,
    perSecond: Math.round(counted / (floodMs / 1000)),
    rejectionRowsStored: rows,
    storeGrowthMb: Math.round(((size1 - size0) / 1048576) * 10) / 10,
    diskMb,
    firstCommitFailureMs: firstFailureMs ?? null,
    otherDeviceAcked: otherAcked,
    otherDeviceRefusedOrLost: otherFailed,
    healthStatus: (health as { status?: string }).status,
  });
} finally {
  await gw.stop();
  if (diskMb && dataDir) execFileSync('umount', ['-l', join(dataDir, '..')]);
}
