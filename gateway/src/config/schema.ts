import { z } from 'zod';
import { entityId, recipientBody, USER_ROLES } from '../../../shared/src/admin.ts';
import {
  developerInspectorsSchema,
  PRACTICES_MAX,
  practiceSchema,
} from '../../../shared/src/api/findings.ts';
import { partySchema } from '../../../shared/src/api/violations.ts';
import { lawOverridesSchema } from '../../../shared/src/lawFigures.ts';
import { looseFigures, looserWords } from '../../../shared/src/looser.ts';
import { deviceFacts, siteFacts } from '../rules/context.ts';
import { LAW_FIGURES } from '../rules/index.ts';
import { mergeParams } from '../rules/module.ts';
import { RULE_MODULES } from '../rules/registry.ts';
import { deviceTransportFields, integrationsSchema, modbusSchema, sdi12Schema } from './fieldbus.ts';
import { configFieldbusIssues } from './fieldbusChecks.ts';
import { homeAssistantSchema } from './homeassistant.ts';
import { configCollisions } from './identities.ts';
import {
  evidenceSchema,
  fleetSchema,
  httpSchema,
  influxSchema,
  ingestSchema,
  mqttSchema,
  notifySchema,
  photosSchema,
  reportsSchema,
  serialSchema,
  storageSchema,
} from './sections.ts';
import { enforcementSchema } from './town.ts';

const id = entityId;

const passwordHash = z
  .string()
  .regex(
    /^scrypt\$[0-9a-f]+\$[0-9a-f]+$/,
    'must be a hash from `npm run hash-password`, never a plain password',
  );

export const deviceSchema = z
  .strictObject({
    /** Its id, kind and name: the facts every rule reads (rules/context.ts). */
    ...deviceFacts,
    /**
     * The rules' device parameters (a gauge's calibration, a turbidity sensor's role, a tank's liquid
     * depth, a trap's design depth, a holding tank's high level, silence), from their modules.
     */
    ...mergeParams(RULE_MODULES, 'device'),
    username: z.string().min(1).optional().describe('MQTT login name (default `siteId/deviceId`).'),
    clientIds: z
      .array(z.string().min(1).max(200))
      .default([])
      .describe(
        "MQTT client ids this device may use besides its own `siteId/deviceId` (a trailing `*` matches any rest); each is the device's alone.",
      ),
    maxTipsPerMinute: z
      .number()
      .positive()
      .optional()
      .describe(
        'Rain gauges: the most tips a minute the gauge can count (default from ingest.maxRainInPerHour).',
      ),
    passwordHash: passwordHash
      .optional()
      .describe('MQTT password, as a hash made by `npm run hash-password`.'),
    /** LoRaWAN, Modbus, SDI-12: how the device speaks (fieldbus.ts). */
    ...deviceTransportFields,
  })
  .superRefine((d, ctx) => {
    if (d.kind === 'rain-gauge' && d.inchesPerTip === undefined)
      ctx.addIssue({ code: 'custom', path: ['inchesPerTip'], message: 'a rain gauge needs its calibration' });
    for (const m of RULE_MODULES)
      m.checkDevice?.(d, (key, message) => ctx.addIssue({ code: 'custom', path: [key], message }));
    if (d.kind === 'turbidity' && d.role === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['role'],
        message: 'a turbidity sensor needs role: background | outlet',
      });
  });
export type DeviceConfig = z.infer<typeof deviceSchema>;

export type { RecipientRole } from '../rules/context.ts';

export const recipientSchema = recipientBody;

export const siteSchema = z.strictObject({
  /** Its id, name, kind, time zone and whether it is active: the facts every rule reads. */
  ...siteFacts,
  /** The rules' site parameters (storm, routineInspectionDays, ...), from their modules (rules/README.md). */
  ...mergeParams(RULE_MODULES, 'site'),
  recipients: z.array(recipientSchema).default([]).describe('Who is told of the alerts, by role.'),
  practices: z
    .array(practiceSchema)
    .max(PRACTICES_MAX)
    .optional()
    .describe('Construction sites: the erosion and sediment control practices an inspection looks at.'),
  landowner: partySchema
    .optional()
    .describe('Construction sites: the landowner a notice of violation is directed to (name, address).'),
  developer: partySchema
    .optional()
    .describe('Construction sites: the developer or applicant a notice of violation is directed to.'),
  address: z
    .string()
    .trim()
    .min(1)
    .optional()
    .describe('The address, or a description, of the land (it appears on a notice of violation).'),
  developerInspectors: developerInspectorsSchema
    .optional()
    .describe(
      "The town's accounts that inspect for the developer or owner (an inspector they hired, a clerk entering their report on paper), each by its e-mail address or a configured API token's name: only these, and the accounts limited to the site, record the developer's side of an inspection; any other town account records the town's own.",
    ),
  devices: z.array(deviceSchema).default([]).describe("The site's devices."),
  lawOverrides: lawOverridesSchema.optional(),
});
export type SiteConfig = z.infer<typeof siteSchema>;

export const tokenSchema = z.strictObject({
  name: z.string().describe('Who holds the token, as the history shows it.'),
  role: z.enum(['viewer', 'inspector', 'engineer', 'admin']).describe('What the token may do.'),
  tokenSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .describe('sha256 hex of the bearer token: tokens are never stored in plain text.'),
});

/** An account seeded from the configuration at first start (the store keeps it from then on). */
export const accountSchema = z.strictObject({
  name: z.string().min(1).describe("The person's name."),
  email: z.email().describe('The e-mail address they sign in with.'),
  role: z.enum(USER_ROLES).describe('What they may do.'),
  sites: z.array(id).default([]).describe('The sites an owner, developer or officer account sees.'),
  passwordHash: passwordHash.describe('A hash made by `npm run hash-password`.'),
});

export const configSchema = z
  .strictObject({
    gatewayId: id.describe('This gateway; unique among the gateways sharing a broker.'),
    timezone: z
      .string()
      .default('America/New_York')
      .describe('Sites show and schedule in this zone unless they set their own.'),
    dataDir: z
      .string()
      .default('./data')
      .describe('Where the store, its evidence log and the signing key live.'),
    http: httpSchema,
    mqtt: mqttSchema,
    serial: serialSchema,
    integrations: integrationsSchema,
    modbus: modbusSchema,
    sdi12: sdi12Schema,
    ingest: ingestSchema,
    storage: storageSchema,
    photos: photosSchema,
    influx: influxSchema,
    auth: z
      .strictObject({
        tokens: z
          .array(tokenSchema)
          .default([])
          .describe('API bearer tokens, stored as sha256; GATEWAY_ADMIN_TOKEN adds an admin token.'),
        users: z
          .array(accountSchema)
          .default([])
          .describe('Accounts seeded into the store at first start (with the sites and devices).'),
      })
      .prefault({})
      .describe('Who may use the API.'),
    notify: notifySchema,
    evidence: evidenceSchema,
    reports: reportsSchema,
    enforcement: enforcementSchema,
    sites: z
      .array(siteSchema)
      .default([])
      .describe('Seeds the store at first start; after that the store (changed through the API) holds them.'),
    fleet: fleetSchema,
    homeassistant: homeAssistantSchema,
  })
  .superRefine((c, ctx) => {
    const siteIds = new Set<string>();
    c.sites.forEach((s, i) => {
      if (siteIds.has(s.id))
        ctx.addIssue({ code: 'custom', path: ['sites', i, 'id'], message: `duplicate site id "${s.id}"` });
      siteIds.add(s.id);
      for (const p of unexplainedFigures(s))
        ctx.addIssue({ code: 'custom', path: ['sites', i, ...p.path], message: p.message });
      const devIds = new Set<string>();
      s.devices.forEach((d, j) => {
        if (devIds.has(d.id))
          ctx.addIssue({
            code: 'custom',
            path: ['sites', i, 'devices', j, 'id'],
            message: `duplicate device id "${d.id}"`,
          });
        devIds.add(d.id);
      });
    });
    for (const { path, message } of configCollisions(c.sites, c.mqtt.users))
      ctx.addIssue({ code: 'custom', path, message });
    for (const { path, message } of configFieldbusIssues(c)) ctx.addIssue({ code: 'custom', path, message });
    if (c.http.authenticateReads === true && c.http.publicView)
      ctx.addIssue({
        code: 'custom',
        path: ['http', 'authenticateReads'],
        message:
          'authenticateReads: true (reads need a sign-in) contradicts publicView: true; remove authenticateReads, the former setting',
      });
    if (c.mqtt.url !== undefined && c.mqtt.urls !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['mqtt', 'urls'],
        message: 'set mqtt.url or mqtt.urls, not both',
      });
    if (c.fleet.follow.length > 0 && externalBrokerUrls(c.mqtt).length === 0)
      ctx.addIssue({
        code: 'custom',
        path: ['fleet', 'follow'],
        message: 'following other gateways needs a shared broker (mqtt.url or mqtt.urls)',
      });
    if (c.fleet.follow.includes(c.gatewayId))
      ctx.addIssue({
        code: 'custom',
        path: ['fleet', 'follow'],
        message: 'a gateway does not follow itself',
      });
    if (!c.mqtt.plaintext && !c.mqtt.tls && externalBrokerUrls(c.mqtt).length === 0)
      ctx.addIssue({
        code: 'custom',
        path: ['mqtt', 'plaintext'],
        message: 'with the plain listener off the embedded broker needs mqtt.tls',
      });
    if (c.influx.url !== undefined && c.influx.bucket === undefined && c.influx.db === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['influx'],
        message: 'set bucket (InfluxDB 2/3 API) or db (InfluxDB 1 API)',
      });
  });
export type Config = z.infer<typeof configSchema>;

/**
 * A site's figures set looser than the law with no reason for the override: each with the path of its
 * parameter and why it is refused, in words (the file and the API refuse them alike).
 */
export function unexplainedFigures(
  site: Readonly<Record<string, unknown>>,
): Array<{ path: string[]; message: string }> {
  return looseFigures(site, LAW_FIGURES)
    .filter((x) => x.reason === undefined)
    .map(({ figure, value }) => ({
      path: figure.param.split('.'),
      message: `${looserWords(figure, value)} Give the reason as lawOverrides: { ${figure.id}: "…" }.`,
    }));
}

/** The external broker's URLs (`mqtt.urls`, or the one `mqtt.url`); none: the embedded broker. */
export function externalBrokerUrls(mqtt: {
  url?: string | undefined;
  urls?: string[] | undefined;
}): string[] {
  return mqtt.urls ?? (mqtt.url ? [mqtt.url] : []);
}
export type ConfigInput = z.input<typeof configSchema>;
