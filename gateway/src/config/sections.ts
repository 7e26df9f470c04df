/**
 * The gateway's own settings, one schema per section of the configuration (http, mqtt, serial, ingest,
 * storage, influx, notify, evidence, reports, fleet); `schema.ts` composes them with the sites, devices
 * and accounts. Every key has a description: `npm run docs:config` writes them into
 * docs/configuration-reference.md.
 */
import { z } from 'zod';
import { entityId as id } from '../../../shared/src/admin.ts';

/** One node of an external broker cluster: mqtt:// or mqtts://, host and port. */
const brokerNodeUrl = z
  .string()
  .regex(/^(mqtts?|tcp|ssl):\/\/[^/\s]+\/?$/, 'an mqtt:// or mqtts:// URL with a host and port');

const tlsSchema = z.strictObject({
  certFile: z.string().describe('PEM certificate file.'),
  keyFile: z.string().describe('PEM private key file.'),
  caFile: z
    .string()
    .optional()
    .describe('PEM CA certificates of the certificate chain (the MQTT listener sends them).'),
});

const port = z.number().int().min(0).max(65535);

export const httpSchema = z
  .strictObject({
    port: port.default(8080).describe('HTTP port of the API, the dashboard and /metrics.'),
    host: z
      .string()
      .default('127.0.0.1')
      .describe(
        'Address to listen on: this machine only by default; `0.0.0.0` (or HTTP_HOST=0.0.0.0) for every network interface.',
      ),
    tls: tlsSchema.optional().describe('HTTPS instead of HTTP.'),
    publicView: z
      .boolean()
      .default(false)
      .describe(
        "Let visitors who are not signed in see the public view: the sites' names and devices, the duties' states, storms, charts and readings, never a party's name, postal or e-mail address, a photo, an inspection or a report. Off by default: every read needs a signed-in person or an API token.",
      ),
    authenticateReads: z
      .boolean()
      .optional()
      .describe(
        'The former setting: `false` is read as `publicView: true` (the public view, no longer every record); `true` is the default now.',
      ),
    liveFeeds: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .default(500)
      .describe(
        "Live feeds (GET /api/events, the dashboard's live view) open at once in all; beyond, 429 with Retry-After.",
      ),
    liveFeedsPerAccount: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(8)
      .describe('Live feeds one account or token may hold open at once; beyond, 429 with Retry-After.'),
    validateResponses: z
      .boolean()
      .default(false)
      .describe(
        'Check every JSON answer against its published schema, answering 500 with the differences: for tests; leave it off in service.',
      ),
  })
  .prefault({})
  .describe('The HTTP server.');

/**
 * Whether visitors who are not signed in see the public view: `publicView`, or the former
 * `authenticateReads: false`.
 */
export function publicViewOn(http: z.infer<typeof httpSchema>): boolean {
  return http.publicView || http.authenticateReads === false;
}

export const mqttSchema = z
  .strictObject({
    port: port.default(1883).describe('Embedded broker port (when `url` is not set).'),
    host: z
      .string()
      .default('127.0.0.1')
      .describe(
        "Embedded broker's address to listen on (plain and TLS): this machine only by default; `0.0.0.0` (or MQTT_HOST=0.0.0.0) for devices on the network.",
      ),
    allowAnonymous: z
      .boolean()
      .default(false)
      .describe('Embedded broker: accept logins without credentials.'),
    tls: tlsSchema
      .extend({ port: port.default(8883).describe('TLS listener port.') })
      .optional()
      .describe("Embedded broker's TLS listener."),
    plaintext: z
      .boolean()
      .default(true)
      .describe('The plain (non-TLS) listener on `port`; false accepts logins over TLS only.'),
    maxPacketBytes: z
      .number()
      .int()
      .min(1024)
      .optional()
      .describe(
        'The largest MQTT packet read from a logged-in client, checked from its length header (default 1 MiB, 1048576): a larger one closes the connection. A publish over ingest.maxPayloadBytes but within it is read, refused as oversize, recorded and acknowledged (MQTT 5: PUBACK reason code 0x83, Reason String "Packet too large"). Before login the limit is ingest.maxPayloadBytes + 4096.',
      ),
    loginTimeoutSeconds: z
      .number()
      .positive()
      .max(600)
      .default(5)
      .describe('A connection whose CONNECT has not come this long after it opened is closed.'),
    maxConnectionsPerLogin: z
      .number()
      .int()
      .positive()
      .default(4)
      .describe('Connections at once with one login (device or user account).'),
    maxSessionsPerLogin: z
      .number()
      .int()
      .positive()
      .default(4)
      .describe('Persistent sessions (clean=false client ids) per login.'),
    maxQueuedPerSession: z
      .number()
      .int()
      .positive()
      .default(1000)
      .describe('Messages queued for a persistent session while it is away; more are dropped.'),
    url: z
      .string()
      .optional()
      .describe('An external broker instead of the embedded one, e.g. mqtt://broker:1883.'),
    urls: z
      .array(brokerNodeUrl)
      .min(1)
      .optional()
      .describe("An external broker cluster's nodes instead of one `url`, failed over in turn."),
    protocolVersion: z
      .union([z.literal(4), z.literal(5)])
      .default(5)
      .describe("The external broker's MQTT version: 5, or 4 (3.1.1, e.g. NATS)."),
    maxInFlight: z
      .number()
      .int()
      .min(1)
      .max(65535)
      .default(2000)
      .describe('External broker: QoS 1 messages being stored at once (acknowledged after their commit).'),
    clientId: z.string().optional().describe("External broker: the gateway's fixed client id."),
    clientTls: z
      .strictObject({
        caFile: z.string().optional().describe('PEM file of a private CA.'),
        certFile: z.string().optional().describe('PEM client certificate, for mutual TLS.'),
        keyFile: z.string().optional().describe('PEM key of the client certificate.'),
      })
      .optional()
      .describe('TLS for the external broker (mqtts://).'),
    users: z
      .array(
        z.strictObject({
          username: z.string().min(1).describe('MQTT login name.'),
          passwordHash: z
            .string()
            .regex(/^scrypt\$[0-9a-f]+\$[0-9a-f]+$/, 'must be a hash from `npm run hash-password`')
            .describe('A hash made by `npm run hash-password`.'),
          subscribe: z
            .array(z.string().min(1))
            .default(['alerts/#'])
            .describe('Topic filters the account may subscribe to.'),
        }),
      )
      .default([])
      .describe("Accounts that may subscribe (dashboards, operators' tools) to the listed topic filters."),
    username: z.string().optional().describe("External broker: the gateway's login name."),
    password: z.string().optional().describe("External broker: the gateway's password."),
  })
  .prefault({})
  .describe('The embedded MQTT broker, or the external one the gateway connects to.');

export const serialSchema = z
  .array(
    z.strictObject({
      path: z.string().min(1).describe('The serial device, e.g. /dev/ttyUSB0.'),
      baudRate: z.number().int().positive().default(9600).describe('Line speed.'),
      reopenMs: z.number().int().positive().default(2000).describe('Wait before reopening a lost port.'),
    }),
  )
  .default([])
  .describe('Serial lines that deliver telemetry frames.');

export const ingestSchema = z
  .strictObject({
    maxPayloadBytes: z
      .number()
      .int()
      .positive()
      .default(4096)
      .describe('The largest telemetry message accepted.'),
    maxFutureSeconds: z
      .number()
      .positive()
      .default(300)
      .describe("A source time further ahead of the gateway's clock is quarantined as a clock ahead."),
    deviceRatePerSec: z
      .number()
      .positive()
      .default(50)
      .describe('Per-device token bucket: sustained messages a second; beyond it a device is slowed down.'),
    deviceBurst: z.number().positive().default(500).describe('Per-device token bucket: burst.'),
    maxRainInPerHour: z
      .number()
      .positive()
      .default(20)
      .describe('The heaviest rain a gauge counts (in/h): a counter jump implying more is rejected.'),
    rejectionSamplePerMinute: z
      .number()
      .int()
      .min(1)
      .default(5)
      .describe('Rejections stored per device and reason each minute; the rest are counted, not stored.'),
    seqDedupWindowSec: z
      .number()
      .positive()
      .default(600)
      .describe('Two messages with the same `seq` within this many seconds of source time are one.'),
    quarantinePerDevice: z
      .number()
      .int()
      .positive()
      .default(1000)
      .describe(
        'Messages one device (the site/device a message names, registered or not, whatever its client ids) may have waiting in the quarantine; beyond, they are refused.',
      ),
    quarantinePerClient: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('The former name of quarantinePerDevice: when given, it is the per-device cap.'),
    quarantineTotal: z
      .number()
      .int()
      .positive()
      .default(50_000)
      .describe(
        'Messages waiting in the quarantine in all, across devices (made-up device names included); beyond, they are refused.',
      ),
  })
  .prefault({})
  .describe('What the gateway accepts from devices.');

export const storageSchema = z
  .strictObject({
    retentionDays: z
      .number()
      .min(0)
      .default(730)
      .describe(
        'Readings older than this are pruned (alerts, inspections and reports are kept); 0 keeps all.',
      ),
    evidenceRetentionDays: z
      .number()
      .min(0)
      .default(1827)
      .refine((d) => d === 0 || d >= 1827, {
        message:
          'readings behind a storm, an alert or an order are kept at least five years (1827 days), or for good (0)',
      })
      .describe(
        'Readings behind a storm, an alert (open or closed), a notice of violation or a stop-work order are kept this long whatever `retentionDays` says: at least five years; 0 keeps them for good.',
      ),
    ruleStateCacheMb: z
      .number()
      .positive()
      .default(24)
      .describe("Memory for the rules' states; past it the least recently used are read back when needed."),
    rejectionsKept: z
      .number()
      .int()
      .positive()
      .default(1000)
      .describe('Rejection rows kept at most (each at most about 1 KB); the oldest go first.'),
    rejectionRetentionDays: z
      .number()
      .positive()
      .default(30)
      .describe('Rejections older than this are pruned.'),
    minFreeMb: z
      .number()
      .min(0)
      .default(16)
      .describe(
        'Below this much free space in the data directory the store turns read-only until space returns.',
      ),
    synchronous: z
      .enum(['full', 'normal'])
      .default('normal')
      .describe(
        'normal: a commit survives a killed process; full: also a power loss, at a cost in throughput.',
      ),
  })
  .prefault({})
  .describe('The SQLite store in `dataDir`.');

export const photosSchema = z
  .strictObject({
    siteQuotaMb: z
      .number()
      .min(1)
      .default(2048)
      .describe(
        'Photos kept for one site at most, in MB (each upload names its site; photos never cited are removed after `uncitedRetentionDays`); past it an upload for the site is refused in words (413).',
      ),
    accountQuotaMb: z
      .number()
      .min(1)
      .default(1024)
      .describe(
        'Photos one account (or API token) may have stored at most, in MB, over every site; past it its uploads are refused in words (413).',
      ),
    uncitedRetentionDays: z
      .number()
      .positive()
      .default(7)
      .describe(
        "A photo no inspection's findings and no correction report cites is removed this long after its last upload (hourly housekeeping); a cited photo is never removed.",
      ),
    uploadsAtOnce: z
      .number()
      .int()
      .min(1)
      .max(64)
      .default(4)
      .describe('Photo uploads written at once; the others wait their turn.'),
    uploadsWaiting: z
      .number()
      .int()
      .min(0)
      .max(1000)
      .default(32)
      .describe('Photo uploads that may wait their turn; beyond, 503 with Retry-After.'),
  })
  .prefault({})
  .describe(
    "Photos of inspections' findings and of correction reports (POST /api/photos?siteId=…): quotas, retention of those never cited, and how many are received at once.",
  );

export const influxSchema = z
  .strictObject({
    url: z
      .string()
      .optional()
      .describe('InfluxDB (or a compatible store) to write readings to; none: no writes.'),
    token: z.string().optional().describe('API token (InfluxDB 2/3).'),
    org: z.string().optional().describe('Organisation (InfluxDB 2/3).'),
    bucket: z.string().optional().describe('Bucket (InfluxDB 2/3 API).'),
    db: z.string().optional().describe('Database (InfluxDB 1 API).'),
    batchSize: z.number().int().positive().default(5000).describe('Points written in one request at most.'),
    flushIntervalMs: z
      .number()
      .int()
      .positive()
      .default(1000)
      .describe('A partial batch is written this often; a full one at once.'),
    timeoutMs: z
      .number()
      .int()
      .positive()
      .default(10000)
      .describe('A write not answered in this time has failed (and is retried).'),
  })
  .prefault({})
  .describe('The time-series copy of the readings.');

export const notifySchema = z
  .strictObject({
    webhookSecret: z.string().optional().describe('HMAC-SHA256 key that signs webhooks (and witness posts).'),
    smtp: z
      .strictObject({
        host: z.string().describe('Mail server.'),
        port: z.number().int().positive().default(587).describe('Its port.'),
        secure: z.boolean().default(false).describe('TLS from the start (port 465) instead of STARTTLS.'),
        user: z.string().optional().describe('Login name.'),
        pass: z.string().optional().describe('Password.'),
        from: z.string().default('gateway@localhost').describe('Sender address of the mails.'),
      })
      .optional()
      .describe('E-mail of alerts, reminders and the evidence digest.'),
    reminderHours: z
      .array(z.number().positive())
      .default([24, 1])
      .describe('Reminders go out this many hours before each due time.'),
  })
  .prefault({})
  .describe("How people are told: e-mail and signed webhooks to the sites' recipients.");

export const evidenceSchema = z
  .strictObject({
    keyFile: z
      .string()
      .optional()
      .describe('The Ed25519 signing key (PKCS#8 PEM); by default generated into the data directory.'),
    checkpointIntervalSeconds: z
      .number()
      .int()
      .min(1)
      .max(3600)
      .default(60)
      .describe('How often a checkpoint is signed while entries arrive.'),
    witnesses: z
      .array(
        z.strictObject({
          url: z
            .url()
            .describe('Every checkpoint is POSTed here, signed like a webhook (needs notify.webhookSecret).'),
          latestUrl: z
            .url()
            .optional()
            .describe('Answers GET with the newest checkpoint it holds, compared with the log at start.'),
        }),
      )
      .default([])
      .describe('Witnesses that keep copies of the checkpoints.'),
    digestTo: z
      .array(z.email())
      .default([])
      .describe("A daily digest of the day's checkpoints by e-mail (needs notify.smtp)."),
  })
  .prefault({})
  .describe('The signed evidence log.');

export const reportsSchema = z
  .strictObject({
    maxCitedReadings: z
      .number()
      .int()
      .min(100)
      .max(1_000_000)
      .default(10_000)
      .describe('Storm readings one report carries at most; a longer storm is cited by its record.'),
    concurrent: z
      .number()
      .int()
      .min(1)
      .max(8)
      .default(1)
      .describe(
        'Heavy jobs run at once: reports built, and every PDF printed (reports, notices of violation).',
      ),
    waiting: z
      .number()
      .int()
      .min(0)
      .max(100)
      .default(2)
      .describe('Heavy jobs (reports, PDFs) that may wait their turn; beyond, 503 with Retry-After.'),
    chromium: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Chromium that prints reports to PDF (env `CHROMIUM_PATH`; default: /usr/bin/chromium if present). A path that does not exist turns PDF export off (501).',
      ),
  })
  .prefault({})
  .describe(
    'Compliance reports: how much one may carry, how many are built at once, what prints them to PDF.',
  );

export const fleetSchema = z
  .strictObject({
    follow: z
      .array(z.union([z.literal('*'), id]))
      .default([])
      .describe('Gateway ids whose sites this gateway shows read-only (`*`: every gateway on the broker).'),
    url: z
      .url()
      .optional()
      .describe("This gateway's address as others link to it (e.g. https://gw-north.town.example)."),
    publishSeconds: z
      .number()
      .int()
      .min(5)
      .max(3600)
      .default(60)
      .describe("This gateway's state is published on every change, and at least this often."),
  })
  .prefault({})
  .describe(
    "The town-wide view: this gateway's state published on the broker, and other gateways' followed.",
  );
