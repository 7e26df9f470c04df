import { z } from 'zod';
import { RULE_IDS } from '../../../gateway/src/rules/index.ts';
import { ALARM_NAMES } from '../../../shared/src/telemetry.ts';
import { DURATION_RE, OFFSET_RE, WITHIN_RE } from '../util/time.ts';

const id = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'letters, digits, "_", "." and "-" only');
const offset = z.string().regex(OFFSET_RE, 'an offset from the scenario start, e.g. +2h or +1d6h');
const duration = z.string().regex(DURATION_RE, 'a duration, e.g. 90s, 15m, 36h, 1d12h');
const instant = z
  .string()
  .refine(
    (s) => OFFSET_RE.test(s) || WITHIN_RE.test(s) || Number.isFinite(Date.parse(s)),
    'ISO 8601, an offset such as +50h, or the end of days such as "within 5d of +2h"',
  );

export const rainSourceSchema = z.discriminatedUnion('type', [
  /** An NRCS Type III storm of `depthIn`, its 24-hour shape scaled to `duration`. */
  z.strictObject({
    type: z.literal('type-iii'),
    at: offset,
    depthIn: z.number().positive(),
    duration: duration.default('24h'),
  }),
  /** Rain at a constant intensity. */
  z.strictObject({ type: z.literal('uniform'), at: offset, depthIn: z.number().positive(), duration }),
  /** A real logger record (HOBO export), its tips shifted so that `from` (or its first tip) lands on `at`. */
  z.strictObject({
    type: z.literal('replay'),
    at: offset,
    file: z.string().min(1),
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
    maxTips: z.number().int().positive().optional(),
    /** The recording gauge's tip size (the shared records tip at 0.2 mm). */
    tipIn: z
      .number()
      .positive()
      .default(0.2 / 25.4),
  }),
]);

const common = {
  id,
  name: z.string().optional(),
  heartbeat: duration.default('15m'),
  transport: z.enum(['mqtt', 'serial']).default('mqtt'),
  /** MQTT login; defaults: username `siteId/deviceId`, password `sim-<siteId>-<deviceId>` (the demo passwords). */
  username: z.string().optional(),
  password: z.string().optional(),
  /** Copied into the gateway config (device-silent threshold). */
  silentAfterMinutes: z.number().positive().optional(),
  tsFormat: z.enum(['iso', 'epoch']).default('iso'),
  battery: z
    .strictObject({
      startV: z.number().positive(),
      dischargeVPerDay: z.number().min(0),
      solarSwingV: z.number().min(0).optional(),
      minV: z.number().min(0),
      maxV: z.number().positive(),
    })
    .optional(),
  rssi: z.strictObject({ meanDbm: z.number().max(0), sdDb: z.number().min(0) }).optional(),
  offline: z.array(z.strictObject({ at: offset, for: duration })).default([]),
  reboots: z.array(offset).default([]),
  bufferLimit: z.number().int().positive().optional(),
};

const alarmName = z.enum(ALARM_NAMES);
const panelEvent = z.union([
  z
    .strictObject({
      at: offset,
      type: z.literal('alarm'),
      alarm: alarmName,
      action: z.enum(['on', 'off', 'bounce']),
      seconds: z.number().positive().optional(),
    })
    .refine((e) => e.action !== 'bounce' || e.seconds !== undefined, 'a bounce needs `seconds`'),
  z.strictObject({
    at: offset,
    type: z.enum(['pump-fault', 'pump-repair', 'blower-fault', 'blower-repair', 'pump-out']),
  }),
]);

const septic = {
  liquidDepthIn: z.number().positive(),
  dosing: z
    .strictObject({
      pumpOnIn: z.number().positive(),
      pumpOffIn: z.number().positive(),
      highWaterIn: z.number().positive(),
      usageInPerDay: z.number().positive(),
      pumpInPerMin: z.number().positive(),
      startLevelIn: z.number().min(0).optional(),
    })
    .optional(),
  solids: z
    .strictObject({
      sludgeIn: z.number().min(0),
      scumIn: z.number().min(0),
      sludgeInPerDay: z.number().min(0),
      scumInPerDay: z.number().min(0),
      noiseIn: z.number().min(0).optional(),
    })
    .optional(),
  events: z.array(panelEvent).default([]),
  alarmReport: duration.default('60s'),
};

export const simDeviceSchema = z.discriminatedUnion('model', [
  z.strictObject({
    ...common,
    model: z.literal('rain-gauge'),
    inchesPerTip: z.number().positive().max(1),
    mode: z.enum(['counter', 'interval']).default('counter'),
    bounceProbability: z.number().min(0).max(1).default(0),
  }),
  z.strictObject({
    ...common,
    model: z.literal('sediment-trap'),
    designDepthIn: z.number().positive(),
    initialIn: z.number().min(0),
    sedimentPerRainIn: z.number().min(0),
    lag: duration.default('30m'),
    poolIn: z.number().min(0).default(18),
    cleanouts: z.array(z.strictObject({ at: offset, toIn: z.number().min(0) })).default([]),
  }),
  z.strictObject({
    ...common,
    model: z.literal('turbidity'),
    role: z.enum(['background', 'outlet']),
    baseNtu: z.number().min(0),
    ntuPerInPerHour: z.number().min(0),
  }),
  z.strictObject({ ...common, model: z.literal('septic-panel'), ...septic }),
  z.strictObject({ ...common, model: z.literal('septic-tank'), ...septic }),
  z.strictObject({
    ...common,
    model: z.literal('holding-tank'),
    tankDepthIn: z.number().positive(),
    highLevelIn: z.number().positive(),
    startLevelIn: z.number().min(0),
    usageInPerDay: z.number().positive(),
    pumpOuts: z.array(z.strictObject({ at: offset, toIn: z.number().min(0).optional() })).default([]),
  }),
]);
export type SimDeviceSpec = z.infer<typeof simDeviceSchema>;

export const simSiteSchema = z.strictObject({
  id,
  name: z.string().optional(),
  kind: z.enum(['construction', 'alternative-system', 'septic', 'holding-tank']),
  rain: z.array(rainSourceSchema).default([]),
  devices: z.array(simDeviceSchema).min(1),
});
export type SimSiteSpec = z.infer<typeof simSiteSchema>;

const alertStatus = z.enum(['open', 'acknowledged', 'resolved', 'active', 'any']);

export const expectedAlertSchema = z.strictObject({
  siteId: id,
  rule: z.enum(RULE_IDS),
  deviceId: id.optional(),
  count: z.number().int().min(0),
  /** The due time: ISO 8601, or an offset from the scenario start (`+50h`). */
  dueAt: instant.optional(),
  dueToleranceSeconds: z.number().min(0).default(120),
  /** `active` = open or acknowledged; `any` (default) counts every alert whatever its status. */
  status: alertStatus.default('any'),
});
export type ExpectedAlertSpec = z.infer<typeof expectedAlertSchema>;

export const noAlertSchema = z.strictObject({
  siteId: id.optional(),
  rule: z.enum(RULE_IDS),
  deviceId: id.optional(),
  status: alertStatus.default('any'),
  why: z.string().optional(),
});
export type NoAlertSpec = z.infer<typeof noAlertSchema>;

export const fleetSpecSchema = z.strictObject({
  devices: z.number().int().positive().default(10_000),
  connections: z.number().int().positive().default(4),
  qos: z.union([z.literal(0), z.literal(1)]).default(1),
  duration: duration.default('30s'),
  /** Unacknowledged publishes allowed per connection. */
  window: z.number().int().positive().default(1000),
  devicesPerSite: z.number().int().positive().default(100),
  sitePrefix: id.default('fleet'),
  /** Target total messages a second; absent = as fast as the broker acknowledges. */
  ratePerSec: z.number().positive().optional(),
});
export type FleetSpec = z.infer<typeof fleetSpecSchema>;

export const scenarioSchema = z
  .strictObject({
    name: id,
    description: z.string().default(''),
    /** ISO 8601, `now`, or `now-<duration>` (so a live run ends near the present: gateways reject future timestamps). */
    start: z.string().default('now-36h'),
    duration,
    /** Virtual ms per real ms (8640 = a day in 10 s), or `step` (as fast as possible). */
    speed: z.union([z.number().positive(), z.literal('step')]).default(8640),
    seed: z.number().int().min(0).default(1),
    sites: z.array(simSiteSchema).default([]),
    fleet: fleetSpecSchema.optional(),
    expect: z
      .strictObject({
        alerts: z.array(expectedAlertSchema).default([]),
        noAlerts: z.array(noAlertSchema).default([]),
        notes: z.string().optional(),
      })
      .prefault({}),
  })
  .superRefine((s, ctx) => {
    if (s.sites.length === 0 && !s.fleet)
      ctx.addIssue({ code: 'custom', path: ['sites'], message: 'a scenario needs sites or a fleet' });
    const seen = new Set<string>();
    s.sites.forEach((site, i) => {
      if (seen.has(site.id))
        ctx.addIssue({ code: 'custom', path: ['sites', i, 'id'], message: `duplicate site "${site.id}"` });
      seen.add(site.id);
    });
  });
export type Scenario = z.infer<typeof scenarioSchema>;
