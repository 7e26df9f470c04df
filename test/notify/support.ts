import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import {
  type Config,
  type ConfigInput,
  configSchema,
  type SiteConfig,
} from '../../gateway/src/config/schema.ts';
import type { Delivery } from '../../gateway/src/notify/delivery.ts';
import type { NotificationKind } from '../../gateway/src/notify/queue.ts';
import { recordNotificationEvent } from '../../gateway/src/notify/queue.ts';
import type { Log } from '../../gateway/src/pipeline.ts';
import { migrate } from '../../gateway/src/store/schema/index.ts';
import type { AlertDto } from '../../shared/src/api/alerts.ts';
import { freePort } from '../helpers/env.ts';

export const WEBHOOK_SECRET = 'whsec-Zq8vN3kP0r7Lm2Xa';
export const SMTP_PASSWORD = 'smtp-Pw-9fK2mQ7xR4tY';

type SiteInput = NonNullable<ConfigInput['sites']>[number];

export function makeConfig(site: Partial<SiteInput> = {}, notify: ConfigInput['notify'] = {}): Config {
  return configSchema.parse({
    gatewayId: 'test-gw',
    timezone: 'America/New_York',
    notify: { webhookSecret: WEBHOOK_SECRET, ...notify },
    sites: [{ id: 'maple-ridge', name: 'Maple Ridge subdivision', kind: 'construction', ...site }],
  });
}

/**
 * The sites a test's notifications are about: its configuration's, as the live catalogue holds them once
 * the configuration has seeded it (the gateway gives the dispatcher the catalogue's `site`).
 */
export function siteOfConfig(config: Config): (siteId: string) => SiteConfig | undefined {
  const sites = new Map(config.sites.map((s) => [s.id, s]));
  return (id) => sites.get(id);
}

/** A dispatcher's configuration and the sites it reads, from one configuration. */
export function configAndSites(config: Config): {
  config: Config;
  siteOf: (siteId: string) => SiteConfig | undefined;
} {
  return { config, siteOf: siteOfConfig(config) };
}

export interface TempDb {
  db: Database.Database;
  file: string;
  reopen(): Database.Database;
  cleanup(): void;
}

export function tempDb(): TempDb {
  const dir = mkdtempSync(join(tmpdir(), 'notify-'));
  const file = join(dir, 'gateway.db');
  const open = () => {
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    migrate(db);
    return db;
  };
  const t: TempDb = {
    db: open(),
    file,
    reopen() {
      if (t.db.open) t.db.close();
      t.db = open();
      return t.db;
    },
    cleanup() {
      if (t.db.open) t.db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return t;
}

export function makeAlert(over: Partial<AlertDto> = {}): AlertDto {
  return {
    id: 'alert-1',
    rule: 'storm-inspection',
    siteId: 'maple-ridge',
    deviceId: 'rg-1',
    status: 'open',
    overdue: false,
    raisedAt: '2026-11-30T19:00:00.000Z',
    dueAt: '2026-12-01T19:00:00.000Z',
    message: 'Storm of 0.62 in at rg-1: erosion and sediment control inspection due within 24 h',
    evidence: { inches: 0.62, tips: 62, stormStart: '2026-11-30T15:00:00.000Z', gauge: 'rg-1' },
    history: [{ seq: 1, at: '2026-11-30T19:00:00.000Z', actor: 'system', action: 'raised', detail: {} }],
    ...over,
  };
}

export function addEvent(
  db: Database.Database,
  eventId: string,
  kind: NotificationKind = 'raise',
  alert: AlertDto = makeAlert(),
  createdAt = Date.now(),
): void {
  recordNotificationEvent(db, { eventId, kind, alert, createdAt });
}

/** A delivery of makeAlert()'s raise event, as the queue hands it to a channel. */
export function makeDelivery(over: Partial<Delivery> = {}): Delivery {
  const alert = over.alert ?? makeAlert();
  return {
    id: 1,
    eventId: 'ev-1',
    kind: 'raise',
    channel: 'email',
    target: 'officer@town.example',
    alertId: 'alert-1',
    siteId: 'maple-ridge',
    rule: 'storm-inspection',
    alert,
    body: JSON.stringify({ event: over.kind ?? 'raise', eventId: over.eventId ?? 'ev-1', alert }),
    ...over,
  };
}

/** A Log that keeps every line as JSON text. */
export function memoryLog(): Log & { lines: string[] } {
  const lines: string[] = [];
  const rec = (level: string) => (obj: object | string, msg?: string) => {
    lines.push(`${level} ${JSON.stringify(obj)} ${msg ?? ''}`);
  };
  return { lines, info: rec('info'), warn: rec('warn'), error: rec('error'), debug: rec('debug') };
}

export interface Received {
  at: number;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface TestHttpServer {
  port: number;
  url: string;
  requests: Received[];
  close(): Promise<void>;
}

export async function startHttp(
  handler: (req: Received, res: ServerResponse) => void,
  port?: number,
): Promise<TestHttpServer> {
  const p = port ?? (await freePort());
  const requests: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        at: Date.now(),
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(r);
      handler(r, res);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(p, '127.0.0.1', () => resolve());
  });
  return {
    port: p,
    url: `http://127.0.0.1:${p}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface CapturedMail {
  from: string | undefined;
  to: string[];
  raw: string;
}

export interface TestSmtpServer {
  port: number;
  messages: CapturedMail[];
  close(): Promise<void>;
}

export async function startSmtp(opts: Partial<SMTPServerOptions> = {}): Promise<TestSmtpServer> {
  const port = await freePort();
  const messages: CapturedMail[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
    ...opts,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return { port, messages, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function decodeWords(s: string): string {
  return s.replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=\s*(?==\?)?/g, (_m, _cs, enc: string, text: string) =>
    enc.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : decodeQp(text.replace(/_/g, ' ')),
  );
}

function decodeQp(s: string): string {
  const bytes: number[] = [];
  const src = s.replace(/=\r?\n/g, '');
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(src.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(src.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** A single-part message: decoded headers (lowercase names) and text body. */
/** A part of a message: its headers and its body decoded (quoted-printable or base64). */
function decodePart(raw: string): { headers: Record<string, string>; body: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = decodeWords(line.slice(i + 1).trim());
  }
  const cte = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  const text =
    cte === 'quoted-printable'
      ? decodeQp(body)
      : cte === 'base64'
        ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
        : body;
  return { headers, body: text.replace(/\r\n/g, '\n') };
}

/**
 * A message's headers, its text (the plain-text part of a multipart message) and its attachments (each
 * part with a file name: name, type and content).
 */
export function parseMail(raw: string): {
  headers: Record<string, string>;
  text: string;
  attachments: { filename: string; contentType: string; content: string }[];
} {
  const { headers, body } = decodePart(raw);
  const boundary = /boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
  if (!boundary) return { headers, text: body, attachments: [] };
  const split = raw.indexOf('\r\n\r\n');
  const parts = raw
    .slice(split + 4)
    .split(`--${boundary}`)
    .slice(1)
    .filter((p) => !p.startsWith('--'))
    .map((p) => decodePart(p.replace(/^\r\n/, '')));
  const text = parts.find((p) => (p.headers['content-type'] ?? '').startsWith('text/plain'))?.body ?? '';
  const attachments = parts
    .map((p) => ({ p, name: /filename="?([^";]+)"?/i.exec(p.headers['content-disposition'] ?? '')?.[1] }))
    .filter((x): x is { p: (typeof parts)[number]; name: string } => x.name !== undefined)
    .map(({ p, name }) => ({
      filename: name,
      contentType: (p.headers['content-type'] ?? '').split(';')[0]!.trim(),
      content: p.body,
    }));
  return { headers, text, attachments };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
