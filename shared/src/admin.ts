/**
 * The bodies of the people and administration API (accounts, sessions, personal tokens, sites, devices,
 * change records), shared by the gateway, which validates every request with them, and the dashboard,
 * whose forms validate with the same schemas. A site's and a device's rule parameters (storm threshold,
 * design depth, high level, silence interval, …) pass through here as further keys; the gateway checks
 * them against the rule modules' own schemas.
 */
import { z } from 'zod';
import { developerInspectorsSchema, PRACTICES_MAX, practiceSchema } from './api/findings.ts';
import { partySchema } from './api/violations.ts';
import { boundedKeys, MAX, ruleParamValue, timeText } from './bounds.ts';
import { deviceTransportShape, profileName } from './fieldbus.ts';
import { lawOverridesSchema } from './lawFigures.ts';
import { DEVICE_KINDS } from './telemetry.ts';

/**
 * Who a person is to the gateway. viewer < inspector < engineer < admin see every site; an owner and a
 * contractor see and act only on the sites they are given. An owner acts on the alerts of their system as
 * an inspector would (acknowledge, resolve); a contractor additionally records inspections at their sites.
 */
export const USER_ROLES = ['viewer', 'inspector', 'engineer', 'admin', 'owner', 'contractor'] as const;
export type UserRole = (typeof USER_ROLES)[number];
/** The roles limited to their own sites. */
export const SCOPED_ROLES: readonly UserRole[] = ['owner', 'contractor'];

/** Site and device ids: letters, digits, "_", "." and "-" (they appear in MQTT topics). */
export const entityId = z
  .string()
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'letters, digits, "_", "." and "-" only (no "/", "+" or "#")');

const isoTime = timeText();
const email = () => z.email().max(MAX.email);
const password = z.string().min(10, 'at least 10 characters').max(1024);

export const loginBody = z.strictObject({ email: email(), password: z.string().min(1).max(1024) });
export type LoginBody = z.infer<typeof loginBody>;

/** The signed-in person (POST /api/auth/login, GET /api/auth/me). `sites` is null for every site. */
export const meResponse = z.object({
  name: z.string(),
  role: z.enum(USER_ROLES),
  sites: z.array(z.string()).nullable(),
  email: z.string().optional(),
  /** How the request was authenticated. */
  via: z.enum(['session', 'token', 'configuration']),
  /** The personal or configured token's name, when it came through a token. */
  tokenName: z.string().optional(),
  /** Send it back as `x-csrf-token` with every write made with the session cookie. */
  csrfToken: z.string().optional(),
});
export type MeResponse = z.infer<typeof meResponse>;

/**
 * POST /api/auth/password: a person changes their own password. Their other sessions end; the one they
 * change it in stays signed in, and their personal tokens keep working (each can be revoked).
 */
export const passwordChangeBody = z.strictObject({
  currentPassword: z.string().min(1).max(1024),
  newPassword: password,
});
export type PasswordChangeBody = z.infer<typeof passwordChangeBody>;

/** POST /api/setup: the first admin, with the one-time code the gateway logged. */
export const setupBody = z.strictObject({
  code: z.string().min(1).max(MAX.id),
  name: z.string().trim().min(1).max(200),
  email: email(),
  password,
});

export const userCreateBody = z.strictObject({
  name: z.string().trim().min(1).max(200),
  email: email(),
  role: z.enum(USER_ROLES),
  password,
  /** An owner's or contractor's sites; for other roles, the sites whose notifications they receive. */
  sites: z.array(entityId).max(1000).default([]),
});
export type UserCreateBody = z.infer<typeof userCreateBody>;

export const userPatchBody = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  email: email().optional(),
  role: z.enum(USER_ROLES).optional(),
  password: password.optional(),
  sites: z.array(entityId).max(1000).optional(),
  /** A disabled account cannot sign in; its sessions and tokens stop working at once. */
  disabled: z.boolean().optional(),
});
export type UserPatchBody = z.infer<typeof userPatchBody>;

export const userResponse = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  role: z.enum(USER_ROLES),
  sites: z.array(z.string()),
  disabled: z.boolean(),
  createdAt: z.string(),
});
export type UserResponse = z.infer<typeof userResponse>;

export const tokenCreateBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  /** When the token stops working (default 90 days from now, at most 2 years). */
  expiresAt: isoTime.optional(),
});
export type TokenCreateBody = z.infer<typeof tokenCreateBody>;

export const tokenResponse = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
/** POST /api/tokens: the token itself, shown this once (only its hash is kept). */
export const tokenCreatedResponse = tokenResponse.extend({ token: z.string() });

export const SITE_KINDS = ['construction', 'alternative-system', 'septic', 'holding-tank'] as const;
export const RECIPIENT_ROLES = ['officer', 'owner', 'engineer', 'developer'] as const;

export const recipientBody = z.strictObject({
  role: z
    .enum(RECIPIENT_ROLES)
    .describe('Who the recipient is to the site; rules name the roles that must act.'),
  name: z.string().max(MAX.name).optional().describe('A name people read.'),
  email: email().optional().describe('Alerts and reminders go to this address (needs notify.smtp).'),
  webhook: z
    .url()
    .max(MAX.url)
    .optional()
    .describe('Alerts are POSTed here, signed with notify.webhookSecret.'),
});

/**
 * A site's history from before the gateway knew it: the last of each event a duty's clock counts from,
 * each a time (ISO 8601 with its offset). The clocks start from it rather than from the day the site was
 * added; each entry is a change record of its own (entity `history`, effective at the event's time).
 */
export const siteHistory = z
  .strictObject({
    lastRoutineInspection: isoTime
      .optional()
      .describe(
        'Construction sites: the last erosion and sediment control inspection; the 7-day clock runs from it.',
      ),
    lastAnnualInspection: isoTime
      .optional()
      .describe("Alternative systems: the last engineer's annual inspection; it meets that year's duty."),
    annualLetter: isoTime
      .optional()
      .describe(
        "Alternative systems: the day the town's letter of that year went out, if not the usual one.",
      ),
    lastPumpOut: isoTime
      .optional()
      .describe('Septic tanks: the last pump-out; the years between pump-outs count from it.'),
  })
  .describe("The site's history on record: the last inspections and pump-out before the gateway.");
export type SiteHistory = z.infer<typeof siteHistory>;
/** The events of a site's history, in the order forms show them. */
export const SITE_HISTORY_KEYS = Object.keys(siteHistory.shape) as Array<keyof SiteHistory>;

/** POST /api/sites: further keys are the rules' site parameters (`storm`, `routineInspectionDays`, …). */
const siteShape = z
  .object({
    id: entityId,
    name: z.string().trim().min(1).max(200).optional(),
    kind: z.enum(SITE_KINDS),
    timezone: z.string().min(1).max(64).optional(),
    active: z.boolean().optional(),
    recipients: z.array(recipientBody).max(50).optional(),
    history: siteHistory.optional(),
    /** Construction sites: the erosion and sediment control practices an inspection looks at. */
    practices: z.array(practiceSchema).max(PRACTICES_MAX).optional(),
    /** Construction sites: to whom a notice of violation is directed (law 001, Enforcement A(1)). */
    landowner: partySchema.optional(),
    developer: partySchema.optional(),
    /** The address, or a description, of the land (law 001, Enforcement A(2)). */
    address: z.string().trim().min(1).max(500).optional(),
    /** The town's accounts that inspect for the developer (their e-mail, or a configured token's name). */
    developerInspectors: developerInspectorsSchema.optional(),
    /** Why a figure is set looser than the law, by the figure's id (`lawFigures.ts`). */
    lawOverrides: lawOverridesSchema.optional(),
  })
  .catchall(ruleParamValue);
export const siteCreateBody = boundedKeys(siteShape);
export type SiteCreateBody = z.infer<typeof siteCreateBody>;

/**
 * PATCH /api/sites/{id}: the keys to change (a rule parameter replaces the whole parameter; `history`
 * adds to the history: each event given replaces that event, the others stay).
 */
export const sitePatchBody = boundedKeys(siteShape.omit({ id: true }).partial());
export type SitePatchBody = z.infer<typeof sitePatchBody>;

/**
 * POST /api/sites/{siteId}/devices: further keys are the rules' device parameters (`designDepthIn` or
 * `stageStorage` for a trap, `highLevelIn` for a holding tank, `silentAfterMinutes`, …).
 */
const deviceShape = z
  .object({
    id: entityId,
    kind: z.enum(DEVICE_KINDS),
    name: z.string().trim().min(1).max(200).optional(),
    /** Rain gauges: inches per tip (0.01 in, or 0.2 mm = 0.007874 in). */
    inchesPerTip: z.number().positive().max(1).optional(),
    role: z.enum(['background', 'outlet']).optional(),
    liquidDepthIn: z.number().positive().optional(),
    maxTipsPerMinute: z.number().positive().optional(),
    clientIds: z.array(z.string().min(1).max(200)).max(20).optional(),
    /**
     * LoRaWAN, Modbus RTU, SDI-12: how it speaks (`transport`), the library's profile that maps what it
     * sends (`profile`, by name; a profile written out is the configuration file's alone) and what the
     * transport needs (`devEui`, `modbus`, `sdi12`, `mountHeightIn`). Checked as the configuration is.
     */
    ...deviceTransportShape,
    profile: profileName.optional(),
  })
  .catchall(ruleParamValue);
export const deviceCreateBody = boundedKeys(deviceShape);
export type DeviceCreateBody = z.infer<typeof deviceCreateBody>;

/**
 * PATCH /api/sites/{siteId}/devices/{deviceId}: the keys to change. A new `inchesPerTip` applies to
 * readings from `effectiveAt` on (default now); readings before it keep their calibration. `retired: true`
 * retires the device: it can no longer log in or send, its history stays.
 */
export const devicePatchBody = boundedKeys(
  deviceShape
    .omit({ id: true, kind: true })
    .partial()
    .extend({ effectiveAt: isoTime.optional(), retired: z.literal(true).optional() }),
);
export type DevicePatchBody = z.infer<typeof devicePatchBody>;

/** A device's MQTT credentials, shown once (POST devices; the secret rotation returns `password` only). */
export const deviceCredentials = z.object({
  username: z.string(),
  clientId: z.string(),
  password: z.string(),
});
/**
 * POST devices of a native transport (LoRaWAN, Modbus RTU, SDI-12): no MQTT login, since the gateway
 * hears the device through its network server or polls it; the answer says so in words.
 */
export const deviceAddedResponse = z.object({
  siteId: z.string(),
  deviceId: z.string(),
  transport: z.enum(['lorawan', 'modbus', 'sdi12']),
  /** How the gateway hears it, in words. */
  message: z.string(),
});
/** POST /api/sites/{siteId}/devices: the MQTT login of a device of the gateway's own JSON, or how a native one is heard. */
export const deviceCreatedResponse = z.union([deviceCredentials, deviceAddedResponse]);
export const secretResponse = z.object({ password: z.string() });

export const CHANGE_ENTITIES = [
  'site',
  'device',
  'recipients',
  'user',
  'token',
  'secret',
  'quarantine',
  'history',
  // A figure of the law set looser (`set`) with its reason, or back within the law (`withdraw`).
  'override',
] as const;

/** A change record (GET /api/changes): who, when, the old and new value, and when it takes effect. */
export const changeResponse = z.object({
  id: z.number(),
  at: z.string(),
  effectiveAt: z.string(),
  by: z.string(),
  entity: z.enum(CHANGE_ENTITIES),
  action: z.string(),
  siteId: z.string().nullable(),
  deviceId: z.string().nullable(),
  ref: z.string().nullable(),
  old: z.unknown(),
  new: z.unknown(),
  logIndex: z.number(),
  leafHash: z.string(),
});
export type ChangeResponse = z.infer<typeof changeResponse>;

export const changesQuery = z.strictObject({
  siteId: z.string().max(MAX.id).optional(),
  from: z.string().max(MAX.time).optional(),
  to: z.string().max(MAX.time).optional(),
});
