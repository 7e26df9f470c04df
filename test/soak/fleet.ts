/**
 * `npm run soak:fleet -- [minutes] [devices] [msg/s]` (defaults 60, 10,000, 1,000): the simulator's fleet
 * publishes QoS 1 readings at a steady total rate (each device every devices/rate seconds) into the gateway
 * process `npm start` runs, and every `SOAK_SAMPLE_SECONDS` (60) the gateway's resident memory and open
 * file handles are recorded. Passes when every acknowledged reading is stored and, after the first fifth
 * of the run, memory stays within 30 MB and handles within 10 of where they stood then. Prints one JSON
 * line of figures; exits 1 when it fails. The suite runs a short form (test/soak/fleet.test.ts).
 */
import { readdirSync } from 'node:fs';
import { runFleet } from '../../firmware-sim/src/fleet.ts';
import { fleetGatewayConfig } from '../../firmware-sim/src/gatewayConfig.ts';
import { startGatewayChild } from '../helpers/child.ts';

export interface FleetSoakFigures {
  minutes: number;
  devices: number;
  ratePerSec: number;
  sent: number;
  acked: number;
  stored: number;
  errors: number;
  samples: Array<{ atS: number; rssMb: number; handles: number }>;
  rssMb: { afterWarmup: number; max: number; end: number };
  handles: { afterWarmup: number; max: number; end: number };
  problems: string[];
}

const handlesOf = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

export async function fleetSoak(opts: {
  minutes: number;
  devices: number;
  ratePerSec: number;
  sampleSeconds: number;
  /** Run the bundle `npm start` runs (dist/gateway.mjs) rather than the sources. */
  bundle?: boolean;
  /** Told each sample as it is taken. */
  progress?: (s: FleetSoakFigures['samples'][number]) => void;
}): Promise<FleetSoakFigures> {
  const gw = await startGatewayChild(
    {
      ...fleetGatewayConfig({ devices: opts.devices }),
      ingest: { deviceRatePerSec: 1000, deviceBurst: 1000 },
    },
    { env: { LOG_LEVEL: 'error' }, ...(opts.bundle ? { bundle: true } : {}) },
  );
  try {
    const durationMs = opts.minutes * 60_000;
    const started = Date.now();
    const samples: FleetSoakFigures['samples'] = [];
    let died: string | undefined;
    const sample = () => {
      if (died !== undefined) return;
      if (!gw.alive()) {
        died = gw.output().slice(-3000);
        return;
      }
      const s = {
        atS: Math.round((Date.now() - started) / 1000),
        rssMb: Math.round(gw.rssMb() * 10) / 10,
        handles: handlesOf(gw.pid),
      };
      samples.push(s);
      opts.progress?.(s);
    };
    sample();
    const timer = setInterval(sample, opts.sampleSeconds * 1000);
    const r = await runFleet({
      mqttUrl: gw.mqttUrl,
      devices: opts.devices,
      durationMs,
      qos: 1,
      ratePerSec: opts.ratePerSec,
    }).finally(() => clearInterval(timer));
    sample();
    const health = died
      ? { components: [] }
      : ((await (await fetch(`${gw.httpUrl}/api/health`)).json()) as {
          components: Array<{ name: string; readings?: number }>;
        });
    const stored = health.components.find((c) => c.name === 'store')?.readings ?? 0;
    const warm = samples.find((s) => s.atS * 1000 >= durationMs / 5) ?? samples.at(-1)!;
    const later = samples.filter((s) => s.atS >= warm.atS);
    const fig: FleetSoakFigures = {
      minutes: opts.minutes,
      devices: opts.devices,
      ratePerSec: opts.ratePerSec,
      sent: r.sent,
      acked: r.acked,
      stored,
      errors: r.errors,
      samples,
      rssMb: {
        afterWarmup: warm.rssMb,
        max: Math.max(...later.map((s) => s.rssMb)),
        end: samples.at(-1)!.rssMb,
      },
      handles: {
        afterWarmup: warm.handles,
        max: Math.max(...later.map((s) => s.handles)),
        end: samples.at(-1)!.handles,
      },
      problems: [],
    };
    if (died !== undefined) fig.problems.push(`the gateway exited after ${samples.at(-1)!.atS} s: ${died}`);
    else if (stored < r.acked) fig.problems.push(`${r.acked - stored} acknowledged readings are not stored`);
    if (fig.rssMb.max > fig.rssMb.afterWarmup + 30)
      fig.problems.push(`memory grew from ${fig.rssMb.afterWarmup} MB to ${fig.rssMb.max} MB`);
    if (fig.handles.max > fig.handles.afterWarmup + 10)
      fig.problems.push(`open handles grew from ${fig.handles.afterWarmup} to ${fig.handles.max}`);
    return fig;
  } finally {
    await gw.cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [minutes = '60', devices = '10000', rate = '1000'] = process.argv.slice(2);
  const fig = await fleetSoak({
    minutes: Number(minutes),
    devices: Number(devices),
    ratePerSec: Number(rate),
    sampleSeconds: Number(process.env.SOAK_SAMPLE_SECONDS ?? 60),
    bundle: true,
    progress: (s) => process.stderr.write(`${JSON.stringify(s)}\n`),
  });
  process.stdout.write(`${JSON.stringify(fig)}\n`);
  process.exit(fig.problems.length ? 1 : 0);
}
