import type { SimDevice } from '../devices/base.ts';
import { HoldingTank } from '../devices/holdingTank.ts';
import { RainGauge } from '../devices/rainGauge.ts';
import { SedimentTrap } from '../devices/sedimentTrap.ts';
import { type PanelEvent, SepticPanel } from '../devices/septicPanel.ts';
import { Turbidity } from '../devices/turbidity.ts';
import { RainCurve, tipsToCurve, typeIIIStorm, uniformRain } from '../rain/curve.ts';
import { replayHobo } from '../rain/hobo.ts';
import { parseDuration, parseOffset } from '../util/time.ts';
import { resolveDataFile } from './load.ts';
import type { Scenario, SimDeviceSpec, SimSiteSpec } from './schema.ts';

/** The demo password of a simulated device (documented in firmware-sim/scenarios/gateway.yaml). */
export const demoPassword = (siteId: string, deviceId: string) => `sim-${siteId}-${deviceId}`;

export interface SimDeviceEntry {
  device: SimDevice;
  site: SimSiteSpec;
  spec: SimDeviceSpec;
  username: string;
  password: string;
}

export interface BuiltScenario {
  scenario: Scenario;
  start: number;
  end: number;
  seed: number;
  entries: SimDeviceEntry[];
  rain: Map<string, RainCurve>;
}

/** The rain that falls on a site over the scenario. */
export function siteRain(site: SimSiteSpec, start: number, scenarioPath: string): RainCurve {
  return RainCurve.sum(
    site.rain.map((r) => {
      const at = start + parseOffset(r.at);
      if (r.type === 'type-iii') return typeIIIStorm(at, r.depthIn, parseDuration(r.duration));
      if (r.type === 'uniform') return uniformRain(at, r.depthIn, parseDuration(r.duration));
      const tips = replayHobo(resolveDataFile(r.file, scenarioPath), {
        at,
        ...(r.from ? { from: Date.parse(r.from) } : {}),
        ...(r.to ? { to: Date.parse(r.to) } : {}),
        ...(r.maxTips ? { maxTips: r.maxTips } : {}),
      });
      return tipsToCurve(tips, r.tipIn);
    }),
  );
}

/** Builds the device models of a scenario at a concrete start time and seed. Deterministic. */
export function buildScenario(
  scenario: Scenario,
  opts: { start: number; seed?: number; scenarioPath: string },
): BuiltScenario {
  const start = opts.start;
  const seed = opts.seed ?? scenario.seed;
  const rain = new Map<string, RainCurve>();
  const entries: SimDeviceEntry[] = [];
  for (const site of scenario.sites) {
    const curve = siteRain(site, start, opts.scenarioPath);
    rain.set(site.id, curve);
    for (const spec of site.devices) {
      const common = {
        siteId: site.id,
        deviceId: spec.id,
        start,
        seed,
        heartbeatMs: parseDuration(spec.heartbeat),
        tsFormat: spec.tsFormat,
        offline: spec.offline.map((w) => {
          const at = start + parseOffset(w.at);
          return { at, until: at + parseDuration(w.for) };
        }),
        reboots: spec.reboots.map((r) => start + parseOffset(r)),
        ...(spec.battery ? { battery: spec.battery } : {}),
        ...(spec.rssi ? { rssi: spec.rssi } : {}),
        ...(spec.bufferLimit ? { bufferLimit: spec.bufferLimit } : {}),
      };
      let device: SimDevice;
      switch (spec.model) {
        case 'rain-gauge':
          device = new RainGauge({
            ...common,
            inchesPerTip: spec.inchesPerTip,
            mode: spec.mode,
            rain: curve,
            bounceProbability: spec.bounceProbability,
          });
          break;
        case 'sediment-trap':
          device = new SedimentTrap({
            ...common,
            designDepthIn: spec.designDepthIn,
            initialIn: spec.initialIn,
            sedimentPerRainIn: spec.sedimentPerRainIn,
            rain: curve,
            lagMs: parseDuration(spec.lag),
            poolIn: spec.poolIn,
            cleanouts: spec.cleanouts.map((c) => ({ at: start + parseOffset(c.at), toIn: c.toIn })),
          });
          break;
        case 'turbidity':
          device = new Turbidity({
            ...common,
            role: spec.role,
            baseNtu: spec.baseNtu,
            ntuPerInPerHour: spec.ntuPerInPerHour,
            rain: curve,
          });
          break;
        case 'septic-panel':
        case 'septic-tank':
          device = new SepticPanel({
            ...common,
            kind: spec.model,
            liquidDepthIn: spec.liquidDepthIn,
            ...(spec.dosing ? { dosing: spec.dosing } : {}),
            ...(spec.solids ? { solids: spec.solids } : {}),
            alarmReportMs: parseDuration(spec.alarmReport),
            events: spec.events.map((e): PanelEvent => {
              const at = start + parseOffset(e.at);
              if (e.type !== 'alarm') return { at, type: e.type };
              if (e.action === 'bounce')
                return { at, type: 'alarm', alarm: e.alarm, action: 'bounce', seconds: e.seconds ?? 10 };
              return { at, type: 'alarm', alarm: e.alarm, action: e.action };
            }),
          });
          break;
        case 'holding-tank':
          device = new HoldingTank({
            ...common,
            tankDepthIn: spec.tankDepthIn,
            highLevelIn: spec.highLevelIn,
            startLevelIn: spec.startLevelIn,
            usageInPerDay: spec.usageInPerDay,
            pumpOuts: spec.pumpOuts.map((p) => ({
              at: start + parseOffset(p.at),
              ...(p.toIn !== undefined ? { toIn: p.toIn } : {}),
            })),
          });
          break;
      }
      entries.push({
        device,
        site,
        spec,
        username: spec.username ?? `${site.id}/${spec.id}`,
        password: spec.password ?? demoPassword(site.id, spec.id),
      });
    }
  }
  return { scenario, start, end: start + parseDuration(scenario.duration), seed, entries, rain };
}
