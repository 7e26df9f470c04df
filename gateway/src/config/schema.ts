import { z } from 'zod';
import { entityId, recipientBody, USER_ROLES } from '../../../shared/src/admin.ts';
import { deviceFacts, siteFacts } from '../rules/context.ts';
import { mergeParams } from '../rules/module.ts';
import { RULE_MODULES } from '../rules/registry.ts';
import { homeAssistantSchema } from './homeassistant.ts';
import { configCollisions } from './identities.ts';

const id = entityId;

/** One node of an external broker cluster: mqtt:// or mqtts://, host and port. */
const brokerNodeUrl = z
  .string()
  .regex(/^(mqtts?|tcp|ssl):\/\/[^/\s]+\/?$/, 'an mqtt:// or mqtts:// URL with a host and port');

const fleetSchema = z
  .strictObject({
    /** Gateway ids whose sites this gateway shows read-only (`*`: every gateway on the broker). */
    follow: z.array(z.union([z.literal('*'), id])).default([]),
    /** This gateway's address as others should link to it (e.g. https://gw-north.town.example). */
    url: z.url().optional(),
    /** The state is published on every change, and at least this often. */
    publishSeconds: z.number().int().min(5).max(3600).default(60),
  })
  .prefault({});

export const deviceSchema = z
  .strictObject({
    /** Its id, kind and name: the facts every rule reads (rules/context.ts). */
    ...deviceFacts,
    /**
     * The rules' device parameters (a gauge's calibration, a turbidity sensor's role, a tank's liquid
     * depth, a trap's design depth, a holding tank's high level, silence), from their modules.
     */
    ...mergeParams(RULE_MODULES, 'device'),
    /** MQTT login: username (default `siteId/deviceId`) and a password hash made by `npm run hash-password`. */
    username: z.string().min(1).optional(),
    /**
     * MQTT client ids this device may use besides its own `siteId/deviceId` (a trailing `*` matches any
     * rest); each is the device's alone: no other login may use it.
     */
    clientIds: z.array(z.string().min(1).max(200)).default([]),
    /** Rain gauges: the most tips a minute the gauge can count (default from ingest.maxRainInPerHour). */
    maxTipsPerMinute: z.number().positive().optional(),
    passwordHash: z
      .string()
      .regex(
        /^scrypt\$[0-9a-f]+\$[0-9a-f]+$/,
        'must be a hash from `npm run hash-password`, never a plain password',
      )
      .optional(),
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
  recipients: z.array(recipientSchema).default([]),
  devices: z.array(deviceSchema).default([]),
});
export type SiteConfig = z.infer<typeof siteSchema>;

const tlsSchema = z.strictObject({
  certFile: z.string(),
  keyFile: z.string(),
  caFile: z.string().optional(),
});

export const tokenSchema = z.strictObject({
  name: z.string(),
  role: z.enum(['viewer', 'inspector', 'engineer', 'admin']),
  /** sha256 hex of the bearer token: tokens are never stored in plain text. */
  tokenSha256: z.string().regex(/^[0-9a-f]{64}$/),
});

/** An account seeded from the configuration at first start (the store keeps it from then on). */
export const accountSchema = z.strictObject({
  name: z.string().min(1),
  email: z.email(),
  role: z.enum(USER_ROLES),
  sites: z.array(id).default([]),
  passwordHash: z
    .string()
    .regex(
      /^scrypt\$[0-9a-f]+\$[0-9a-f]+$/,
      'must be a hash from `npm run hash-password`, never a plain password',
    ),
});

export const configSchema = z
  .strictObject({
    gatewayId: id,
    timezone: z.string().default('America/New_York'),
    dataDir: z.string().default('./data'),
    http: z
      .strictObject({
        port: z.number().int().min(0).max(65535).default(8080),
        host: z.string().default('0.0.0.0'),
        tls: tlsSchema.optional(),
        /**
         * Require a viewer token for reads too (writes always need one): every /api read, /metrics and the
         * details of /api/health (which answers an unauthenticated liveness probe with its status only).
         */
        authenticateReads: z.boolean().default(false),
        /**
         * Check every JSON answer against its published schema, answering 500 with the differences when one
         * does not match. For tests of the gateway; leave it off in service.
         */
        validateResponses: z.boolean().default(false),
      })
      .prefault({}),
    mqtt: z
      .strictObject({
        /** Embedded broker port (when `url` is not set). */
        port: z.number().int().min(0).max(65535).default(1883),
        host: z.string().default('0.0.0.0'),
        allowAnonymous: z.boolean().default(false),
        tls: tlsSchema.extend({ port: z.number().int().min(0).max(65535).default(8883) }).optional(),
        /** The plain (non-TLS) listener on `port`; set false to accept logins over TLS only. */
        plaintext: z.boolean().default(true),
        /**
         * The largest MQTT packet the embedded broker reads, checked from its length header before any of
         * it is buffered or the client has logged in (default ingest.maxPayloadBytes + 4096).
         */
        maxPacketBytes: z.number().int().min(1024).optional(),
        /** A connection whose CONNECT has not arrived this many seconds after it opened is closed. */
        loginTimeoutSeconds: z.number().positive().max(600).default(5),
        /** At most this many connections at once with one login (device or user account). */
        maxConnectionsPerLogin: z.number().int().positive().default(4),
        /** At most this many persistent sessions (clean=false client ids) per login. */
        maxSessionsPerLogin: z.number().int().positive().default(4),
        /** At most this many messages queued for a persistent session while it is away; more are dropped. */
        maxQueuedPerSession: z.number().int().positive().default(1000),
        /** An external broker instead of the embedded one, e.g. mqtt://broker:1883 or mqtts://... */
        url: z.string().optional(),
        /**
         * The nodes of an external broker cluster instead of one `url`: the gateway connects to the first
         * and fails over to the next whenever its connection is lost; its session lives in the cluster.
         */
        urls: z.array(brokerNodeUrl).min(1).optional(),
        /** The external broker's MQTT version: 5 (default) or 4 (3.1.1, e.g. NATS, which speaks only that). */
        protocolVersion: z.union([z.literal(4), z.literal(5)]).default(5),
        /** External broker: QoS 1 messages being stored at once (acknowledged after their commit). */
        maxInFlight: z.number().int().min(1).max(65535).default(2000),
        clientId: z.string().optional(),
        /** TLS for the external broker (mqtts://): a private CA and, for mutual TLS, a client certificate. */
        clientTls: z
          .strictObject({
            caFile: z.string().optional(),
            certFile: z.string().optional(),
            keyFile: z.string().optional(),
          })
          .optional(),
        /** Accounts that may subscribe (dashboards, operators' tools) to the listed topic filters. */
        users: z
          .array(
            z.strictObject({
              username: z.string().min(1),
              passwordHash: z
                .string()
                .regex(/^scrypt\$[0-9a-f]+\$[0-9a-f]+$/, 'must be a hash from `npm run hash-password`'),
              subscribe: z.array(z.string().min(1)).default(['alerts/#']),
            }),
          )
          .default([]),
        username: z.string().optional(),
        password: z.string().optional(),
      })
      .prefault({}),
    serial: z
      .array(
        z.strictObject({
          path: z.string().min(1),
          baudRate: z.number().int().positive().default(9600),
          reopenMs: z.number().int().positive().default(2000),
        }),
      )
      .default([]),
    ingest: z
      .strictObject({
        maxPayloadBytes: z.number().int().positive().default(4096),
        maxFutureSeconds: z.number().positive().default(300),
        /**
         * Per-device token bucket: sustained messages per second and burst. Beyond it a device is slowed
         * down (its QoS 1 acknowledgements wait for a token); QoS 0 beyond it is dropped and counted.
         */
        deviceRatePerSec: z.number().positive().default(50),
        deviceBurst: z.number().positive().default(500),
        /**
         * The heaviest rain a gauge is believed to count, inches an hour: a counter jump implying more since
         * the device's previous reading is rejected. Gives each gauge's default maxTipsPerMinute.
         */
        maxRainInPerHour: z.number().positive().default(20),
        /** Rejections stored per device and reason each minute; the rest are counted, not stored. */
        rejectionSamplePerMinute: z.number().int().min(1).default(5),
        /** Two messages with the same `seq` within this many seconds of source time are one delivery. */
        seqDedupWindowSec: z.number().positive().default(600),
        /**
         * Messages one client may have waiting in the quarantine (a clock ahead, a device not registered
         * yet); beyond, its messages are refused (`quarantine_full`) until some are released.
         */
        quarantinePerClient: z.number().int().positive().default(1000),
      })
      .prefault({}),
    storage: z
      .strictObject({
        /** Readings older than this are pruned (alerts, inspections and reports are kept). 0 keeps all. */
        retentionDays: z.number().min(0).default(730),
        /**
         * Memory for the rules' states (a small one counted at its stored size, a large one at three
         * times that: alerts/ruleStates.ts); past it the least recently used are read from the store
         * again when needed.
         */
        ruleStateCacheMb: z.number().positive().default(24),
        /** At most this many rejection rows are kept (each at most about 1 KB); the oldest go first. */
        rejectionsKept: z.number().int().positive().default(1000),
        /** Rejections older than this are pruned. */
        rejectionRetentionDays: z.number().positive().default(30),
        /**
         * Below this much free space in the data directory the store turns read-only (health red, QoS 1
         * data refused unacknowledged) until space returns.
         */
        minFreeMb: z.number().min(0).default(16),
        /**
         * `normal` (default): a commit survives a killed or crashed process (WAL); `full`: every commit is
         * also fsynced, so it survives a power loss too, at a cost in throughput.
         */
        synchronous: z.enum(['full', 'normal']).default('normal'),
      })
      .prefault({}),
    influx: z
      .strictObject({
        url: z.string().optional(),
        token: z.string().optional(),
        org: z.string().optional(),
        bucket: z.string().optional(),
        db: z.string().optional(),
        batchSize: z.number().int().positive().default(5000),
        flushIntervalMs: z.number().int().positive().default(1000),
        timeoutMs: z.number().int().positive().default(10000),
      })
      .prefault({}),
    auth: z
      .strictObject({
        /** sha256 of the admin token; GATEWAY_ADMIN_TOKEN sets the token itself. */
        tokens: z.array(tokenSchema).default([]),
        /** Accounts seeded into the store at first start (with the sites and devices). */
        users: z.array(accountSchema).default([]),
      })
      .prefault({}),
    notify: z
      .strictObject({
        webhookSecret: z.string().optional(),
        smtp: z
          .strictObject({
            host: z.string(),
            port: z.number().int().positive().default(587),
            secure: z.boolean().default(false),
            user: z.string().optional(),
            pass: z.string().optional(),
            from: z.string().default('gateway@localhost'),
          })
          .optional(),
        reminderHours: z.array(z.number().positive()).default([24, 1]),
      })
      .prefault({}),
    evidence: z
      .strictObject({
        /** The Ed25519 signing key (PKCS#8 PEM); by default generated into the data directory. */
        keyFile: z.string().optional(),
        /** How often a checkpoint is signed while entries arrive. */
        checkpointIntervalSeconds: z.number().int().min(1).max(3600).default(60),
        /**
         * Witnesses: every checkpoint is POSTed to each `url`, signed like a webhook (needs
         * notify.webhookSecret). With `latestUrl`, the witness answers GET there with the newest checkpoint
         * it holds of this gateway, which the audit at start compares with the log.
         */
        witnesses: z.array(z.strictObject({ url: z.url(), latestUrl: z.url().optional() })).default([]),
        /** A daily digest of the day's checkpoints by e-mail (needs notify.smtp), e.g. to the town's officer. */
        digestTo: z.array(z.email()).default([]),
      })
      .prefault({}),
    /** Compliance reports: how much one may carry, and how many are built at once. */
    reports: z
      .strictObject({
        /** Storm readings one report carries at most; a longer storm is cited by its record (docs/reports.md). */
        maxCitedReadings: z.number().int().min(100).max(1_000_000).default(10_000),
        /** Reports built at once, and how many more may wait; beyond, 503 with Retry-After. */
        concurrent: z.number().int().min(1).max(8).default(1),
        waiting: z.number().int().min(0).max(100).default(2),
      })
      .prefault({}),
    /** Seeds the store at first start; after that the store (changed through the API) holds them. */
    sites: z.array(siteSchema).default([]),
    /** The town-wide view: this gateway's state published on the broker, and other gateways' followed. */
    fleet: fleetSchema,
    /** Home Assistant MQTT discovery (docs/integrations.md). */
    homeassistant: homeAssistantSchema,
  })
  .superRefine((c, ctx) => {
    const siteIds = new Set<string>();
    c.sites.forEach((s, i) => {
      if (siteIds.has(s.id))
        ctx.addIssue({ code: 'custom', path: ['sites', i, 'id'], message: `duplicate site id "${s.id}"` });
      siteIds.add(s.id);
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

/** The external broker's URLs (`mqtt.urls`, or the one `mqtt.url`); none: the embedded broker. */
export function externalBrokerUrls(mqtt: {
  url?: string | undefined;
  urls?: string[] | undefined;
}): string[] {
  return mqtt.urls ?? (mqtt.url ? [mqtt.url] : []);
}
export type ConfigInput = z.input<typeof configSchema>;
