/**
 * The rules' cost at the rates they allow: one rain gauge publishing at its allowed 50 msg/s with a
 * rising cumulative counter (a tip on every reading: one long storm, its alert updated by every tip), for
 * `seconds`. Measured: the CPU of the gateway process (utime + stime from /proc/<pid>/stat, as a share of
 * one core, per window of `windowSeconds`), and the latency of GET /api/health polled meanwhile.
 */
import { readFileSync } from 'node:fs';
import mqtt from 'mqtt';
import { hashPassword } from '../../shared/src/password.ts';
import { median, percentile, startBenchGateway } from './gatewayProcess.ts';

/** Clock ticks a second of /proc/<pid>/stat's times (USER_HZ: 100 on Linux). */
const CLK_TCK = 100;

/** The process's user and system CPU so far, in clock ticks. */
function cpuTicks(pid: number): { user: number; sys: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command (which may hold spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line: 11 and 12 after the state field.
  return { user: Number(fields[11]), sys: Number(fields[12]) };
}

export interface RulesBenchResult {
  ratePerSec: number;
  seconds: number;
  sent: number;
  acked: number;
  /** % of one core per window, in order. */
  windows: number[];
  /** Of which system time (median of the windows). */
  sysMedian: number;
  cpuMedian: number;
  healthP50: number;
  healthP99: number;
  healthMax: number;
  healthSamples: number;
}

export async function rulesBench(opts: {
  seconds: number;
  ratePerSec: number;
  windowSeconds: number;
}): Promise<RulesBenchResult> {
  const pw = hashPassword('bench');
  const gw = await startBenchGateway({
    gatewayId: 'bench-rules',
    sites: [
      {
        id: 'rules',
        kind: process.env.BENCH_RULES_SITE ?? 'construction',
        devices: [{ id: 'rg', kind: 'rain-gauge', inchesPerTip: 0.01, passwordHash: pw }],
      },
    ],
  });
  try {
    const c = await mqtt.connectAsync(gw.mqtt, {
      clientId: 'rules/rg',
      username: 'rules/rg',
      password: 'bench',
      reconnectPeriod: 0,
    });
    let sent = 0;
    let acked = 0;
    let stop = false;
    const started = performance.now();
    // Paced by the clock, so a slow gateway does not lower the offered rate.
    const publishing = (async () => {
      while (!stop) {
        const due = Math.floor(((performance.now() - started) / 1000) * opts.ratePerSec);
        while (sent < due) {
          const n = sent++;
          c.publish(
            'sites/rules/devices/rg/telemetry',
            JSON.stringify({
              ts: Date.now(),
              seq: n,
              rainTips: 1000 + (process.env.BENCH_RULES_FLAT ? 0 : n),
            }),
            { qos: 1 },
            (err) => {
              if (!err) acked++;
            },
          );
        }
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const health: number[] = [];
    const polling = (async () => {
      while (!stop) {
        const t0 = performance.now();
        const res = await fetch(`${gw.http}/api/health`);
        await res.arrayBuffer();
        health.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const windows: number[] = [];
    const sys: number[] = [];
    let ticks = cpuTicks(gw.pid);
    let at = performance.now();
    while (performance.now() - started < opts.seconds * 1000) {
      await new Promise((r) => setTimeout(r, opts.windowSeconds * 1000));
      const t = cpuTicks(gw.pid);
      const now = performance.now();
      const share = (ticksUsed: number) => (ticksUsed / CLK_TCK / ((now - at) / 1000)) * 100;
      windows.push(share(t.user - ticks.user + t.sys - ticks.sys));
      sys.push(share(t.sys - ticks.sys));
      process.stderr.write(`  rules: window ${windows.length}: ${windows.at(-1)!.toFixed(1)}% of a core\n`);
      ticks = t;
      at = now;
    }
    stop = true;
    await Promise.all([publishing, polling]);
    await c.endAsync();
    return {
      ratePerSec: opts.ratePerSec,
      seconds: opts.seconds,
      sent,
      acked,
      windows,
      cpuMedian: median(windows),
      sysMedian: median(sys),
      healthP50: percentile(health, 50),
      healthP99: percentile(health, 99),
      healthMax: Math.max(...health),
      healthSamples: health.length,
    };
  } finally {
    await gw.stop();
  }
}
