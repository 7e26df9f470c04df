/**
 * E-mail delivery over SMTP (nodemailer): one plain-text message per notification and recipient.
 *
 * Subject: `[OVERDUE] storm-inspection at maple-ridge — due 2026-12-01 14:00 EST`.
 * Body: the alert's message, the due and raised times in the site's time zone and in UTC, status,
 * the latest history entries and a link-free summary of the evidence.
 * Message-ID: derived from the event id (`<notify.<eventId>@<domain of notify.smtp.from>>`), so a
 * resend after a crash is recognisable as the same message; `X-Gateway-Delivery` carries the id too.
 *
 * Errors: a 5xx reply that rejects the recipient (RCPT TO) or the message (DATA) is permanent.
 * 4xx replies, 503, network errors and timeouts are retried; so are authentication failures and a
 * rejected sender (MAIL FROM), which are configuration problems that a fix and a restart cure.
 */
import nodemailer from 'nodemailer';
import type { AlertDto } from '../../../../shared/src/api/alerts.ts';
import type { ResolutionCause } from '../../../../shared/src/api/resolutionCause.ts';
import { resolvedWords } from '../../../../shared/src/api/resolutionWords.ts';
import { stopWorkDocumentUrl } from '../../../../shared/src/api/violations.ts';
import { formatLocal, formatUtc } from '../../../../shared/src/time.ts';
import type { Config, SiteConfig } from '../../config/schema.ts';
import { type Delivery, storedAlert } from '../delivery.ts';
import { DeliveryError, outcomeOf, safeErrorText, secretForms } from '../errors.ts';
import { type NotificationChannel, unconfiguredChannel } from './channel.ts';
import { type ComposedEmail, type ComposeOptions, messageIdFor } from './emailMessage.ts';
import { composeReportEmail, type ReportEmailRequest, storedInspection } from './reportEmail.ts';
import {
  composeStopWorkEmail,
  type StopWorkDocument,
  type StopWorkEmailRequest,
  storedStopWork,
} from './stopWorkEmail.ts';
import {
  composeViolationEmail,
  type NoticeDocument,
  type NoticeEmailRequest,
  storedViolation,
} from './violationEmail.ts';

export interface EmailRequest {
  to: string;
  toName?: string;
  kind: string;
  eventId: string;
  alert: AlertDto;
  siteName?: string;
  /** IANA time zone of the site. */
  timeZone: string;
}

export interface EmailSender {
  /** Resolves once the server accepted the message; otherwise throws a DeliveryError. */
  send(req: EmailRequest): Promise<void>;
  /** Serves a notice of violation (`violationEmail.ts`); a sender without it cannot. */
  sendNotice?(req: NoticeEmailRequest): Promise<void>;
  /** Delivers an inspection's report to the officer (`reportEmail.ts`); a sender without it cannot. */
  sendReport?(req: ReportEmailRequest): Promise<void>;
  /** Serves a stop-work order or its lifting (`stopWorkEmail.ts`); a sender without it cannot. */
  sendStopWork?(req: StopWorkEmailRequest): Promise<void>;
  close?(): void;
}

const SUBJECT_TAG: Record<string, string> = {
  raise: 'NEW',
  reminder: 'REMINDER',
  overdue: 'OVERDUE',
  extension: 'EXTENDED',
  resolve: 'RESOLVED',
};

function parseTime(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v !== 'string' || !/^\d{4}-\d\d-\d\dT/.test(v)) return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

/** `local (UTC)`, or the raw text when it is not a time. */
function bothZones(v: unknown, timeZone: string): string {
  const t = parseTime(v);
  if (t === undefined) return v === undefined || v === null ? '-' : String(v);
  return `${formatLocal(t, timeZone)} (${formatUtc(t)})`;
}

const LINK = /\b[a-z][a-z0-9+.-]*:\/\/\S+|\bwww\.\S+/gi;
const unlink = (s: string) => s.replace(LINK, '[link removed]');
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** Evidence as `key: value` lines, without links, bounded in depth and length. */
export function summarizeEvidence(evidence: unknown, timeZone: string, maxLines = 30): string[] {
  const lines: string[] = [];
  const scalar = (v: unknown): string => {
    if (typeof v === 'string')
      return parseTime(v) === undefined ? clip(unlink(v), 200) : bothZones(v, timeZone);
    return String(v);
  };
  const walk = (v: unknown, path: string, depth: number) => {
    if (lines.length >= maxLines) return;
    if (v === null || v === undefined) return;
    if (typeof v !== 'object') {
      lines.push(path ? `${path}: ${scalar(v)}` : scalar(v));
      return;
    }
    if (depth >= 3) {
      lines.push(`${path || 'evidence'}: (${Array.isArray(v) ? `${v.length} items` : 'details'})`);
      return;
    }
    if (Array.isArray(v)) {
      if (v.every((x) => x === null || typeof x !== 'object')) {
        lines.push(`${path || 'evidence'}: ${clip(v.map(scalar).join(', '), 300)}`);
        return;
      }
      v.forEach((x, i) => {
        walk(x, `${path}[${i}]`, depth + 1);
      });
      return;
    }
    for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k, depth + 1);
  };
  walk(evidence, '', 0);
  if (lines.length >= maxLines) lines.push('(more evidence in the gateway)');
  return lines;
}

/** A resolution's cause as the history entry holds it (its detail is untyped), when it has one. */
function causeIn(v: unknown): ResolutionCause | undefined {
  return typeof v === 'object' && v !== null && typeof (v as { kind?: unknown }).kind === 'string'
    ? (v as ResolutionCause)
    : undefined;
}

const localTime = (iso: string, timeZone: string) => {
  const t = parseTime(iso);
  return t === undefined ? iso : formatLocal(t, timeZone);
};

/** One history entry as a line: when, what, by whom, and the note or message it carried. */
function historyLine(entry: AlertDto['history'][number], timeZone: string): string {
  const d = entry.detail;
  const note = [d.note, d.message, d.letterRef ? `letter ${String(d.letterRef)}` : undefined].find(
    (v) => typeof v === 'string' && v !== '',
  );
  const cause = entry.action === 'resolved' ? causeIn(d.cause) : undefined;
  const parts = cause
    ? [bothZones(entry.at, timeZone), resolvedWords({ cause }, (iso) => localTime(iso, timeZone))]
    : [bothZones(entry.at, timeZone), entry.action, `by ${entry.actor}`];
  if (note !== undefined) parts.push(`— ${clip(unlink(String(note)), 200)}`);
  return parts.join(' ');
}

export function composeAlertEmail(req: EmailRequest, opts: ComposeOptions): ComposedEmail {
  const a = req.alert;
  const tz = req.timeZone;
  const tag = SUBJECT_TAG[req.kind] ?? req.kind.toUpperCase();
  const due = parseTime(a.dueAt);
  const dueText =
    due === undefined ? '' : ` — ${req.kind === 'resolve' ? 'was due' : 'due'} ${formatLocal(due, tz)}`;
  const subject = `[${tag}] ${a.rule} at ${a.siteId}${dueText}`;

  const site = req.siteName ? `${req.siteName} (${a.siteId})` : a.siteId;
  const status = `${a.status}${a.overdue ? ', OVERDUE' : ''}`;
  const lines = [
    `${tag}: ${a.rule} at ${site}`,
    '',
    unlink(a.message || '(no message)'),
    '',
    `Status:    ${status}`,
    `Due:       ${due === undefined ? 'no deadline' : bothZones(a.dueAt, tz)}`,
    `Raised:    ${bothZones(a.raisedAt, tz)}`,
    `Site:      ${site}`,
  ];
  if (a.deviceId) lines.push(`Device:    ${a.deviceId}`);
  // What closed it: "by the storm inspection by Pat Smith on …", "by the officer's approval of notice …".
  if (a.resolvedAt && a.resolution?.cause) {
    const how = resolvedWords(a.resolution, (iso) => localTime(iso, tz));
    lines.push(`Resolved:  ${bothZones(a.resolvedAt, tz)}`, `           ${unlink(how)}`);
  }
  lines.push(`Alert id:  ${a.id}`, `Event:     ${req.kind} (${req.eventId})`);

  const evidence = summarizeEvidence(a.evidence, tz);
  if (evidence.length) lines.push('', 'Evidence:', ...evidence.map((l) => `  - ${l}`));
  const recent = a.history.slice(-3).map((h) => historyLine(h, tz));
  if (recent.length) lines.push('', 'Latest changes:', ...recent.map((l) => `  - ${l}`));
  const earlier = a.history.length - recent.length + (a.historyOmitted ?? 0);
  if (earlier > 0)
    lines.push(
      `  (${earlier} earlier change${earlier === 1 ? '' : 's'}: the full history is in the gateway)`,
    );
  lines.push(
    '',
    `Times are shown in ${tz} and in UTC.`,
    'This notice was sent by the compliance monitoring gateway; the same notice may arrive twice after an outage (same Message-ID).',
  );

  return {
    from: opts.from,
    to: req.toName ? { name: req.toName, address: req.to } : req.to,
    subject,
    text: `${lines.join('\n')}\n`,
    messageId: messageIdFor(req.eventId, opts.from, opts.gatewayId),
    headers: { 'X-Gateway-Event': req.kind, 'X-Gateway-Delivery': req.eventId },
  };
}

type SmtpConfig = NonNullable<Config['notify']['smtp']>;

export interface SmtpEmailSenderOptions {
  smtp: SmtpConfig;
  gatewayId?: string;
  /** Connection, greeting and whole-send timeout, ms (default 10 000 / 10 000 / 30 000). */
  connectionTimeoutMs?: number;
  sendTimeoutMs?: number;
}

interface SmtpErrorLike {
  code?: string;
  responseCode?: number;
  command?: string;
  permanent?: boolean;
  message?: string;
}

/** A nodemailer error as a DeliveryError, secrets removed from its text. */
export function classifySmtpError(e: unknown, forms: readonly string[]): DeliveryError {
  const err = (e && typeof e === 'object' ? e : {}) as SmtpErrorLike;
  const code = err.code ?? (e instanceof Error ? e.name : 'error');
  const rc = err.responseCode;
  const permanentReply = err.permanent ?? (rc !== undefined && rc >= 500 && rc !== 503);
  const aboutRecipientOrMessage =
    (code === 'EENVELOPE' && err.command !== 'MAIL FROM' && err.command !== 'MAIL') || code === 'EMESSAGE';
  const localEnvelope = code === 'EENVELOPE' && rc === undefined;
  const permanent = (permanentReply && aboutRecipientOrMessage) || localEnvelope;
  const text = `SMTP ${code}${rc ? ` ${rc}` : ''}${err.command ? ` at ${err.command}` : ''}: ${
    e instanceof Error ? e.message : String(e)
  }`;
  return new DeliveryError(safeErrorText(text, forms, 400), permanent);
}

export class SmtpEmailSender implements EmailSender {
  private readonly transport: ReturnType<typeof nodemailer.createTransport>;
  private readonly forms: string[];
  private readonly from: string;
  private readonly gatewayId: string | undefined;
  private readonly sendTimeoutMs: number;

  constructor(opts: SmtpEmailSenderOptions) {
    const s = opts.smtp;
    const connTimeout = opts.connectionTimeoutMs ?? 10_000;
    this.sendTimeoutMs = opts.sendTimeoutMs ?? 30_000;
    this.from = s.from;
    this.gatewayId = opts.gatewayId;
    this.forms = secretForms(s.pass, s.user);
    this.transport = nodemailer.createTransport({
      host: s.host,
      port: s.port,
      secure: s.secure,
      ...(s.user !== undefined ? { auth: { user: s.user, pass: s.pass ?? '' } } : {}),
      connectionTimeout: connTimeout,
      greetingTimeout: connTimeout,
      socketTimeout: this.sendTimeoutMs,
      logger: false,
      debug: false,
    });
  }

  async send(req: EmailRequest): Promise<void> {
    await this.deliver(composeAlertEmail(req, this.composeOptions()));
  }

  async sendNotice(req: NoticeEmailRequest): Promise<void> {
    await this.deliver(composeViolationEmail(req, this.composeOptions()));
  }

  async sendReport(req: ReportEmailRequest): Promise<void> {
    await this.deliver(composeReportEmail(req, this.composeOptions()));
  }

  async sendStopWork(req: StopWorkEmailRequest): Promise<void> {
    await this.deliver(composeStopWorkEmail(req, this.composeOptions()));
  }

  private composeOptions(): ComposeOptions {
    return { from: this.from, ...(this.gatewayId !== undefined ? { gatewayId: this.gatewayId } : {}) };
  }

  /** Sends a composed message within the send timeout; an SMTP failure becomes a typed delivery error. */
  private async deliver(mail: ComposedEmail): Promise<void> {
    try {
      await this.transport.sendMail({ ...mail, signal: AbortSignal.timeout(this.sendTimeoutMs) });
    } catch (e) {
      throw classifySmtpError(e, this.forms);
    }
  }

  /** A plain message (the evidence digest), not an alert. */
  async sendText(m: { to: string[]; subject: string; text: string }): Promise<void> {
    try {
      await this.transport.sendMail({
        from: this.from,
        ...m,
        signal: AbortSignal.timeout(this.sendTimeoutMs),
      });
    } catch (e) {
      throw classifySmtpError(e, this.forms);
    }
  }

  close(): void {
    this.transport.close();
  }
}

/**
 * The e-mail channel: the stored alert read as an alert DTO (a payload that is not one fails for
 * good), addressed with the recipient's name and written in the site's time zone.
 */
export function emailChannel(
  sender: EmailSender | undefined,
  config: Config,
  siteOf: (siteId: string) => SiteConfig | undefined,
  opts: { now?: () => number; noticeDocument?: NoticeDocument; stopWorkDocument?: StopWorkDocument } = {},
): NotificationChannel {
  const now = opts.now ?? Date.now;
  if (!sender) return unconfiguredChannel('no e-mail channel is configured (notify.smtp)');
  const sites = { get: siteOf };
  const base = (config.fleet.url ?? `http://${config.http.host}:${config.http.port}`).replace(/\/+$/, '');
  const serve = async (d: Delivery) => {
    const violation = storedViolation(d);
    if (!sender.sendNotice) throw new DeliveryError('this e-mail channel cannot serve notices', true);
    const site = sites.get(violation.siteId);
    const toName = site?.recipients.find((r) => r.email === d.target)?.name;
    const document = opts.noticeDocument ? await opts.noticeDocument(violation) : undefined;
    await sender.sendNotice({
      to: d.target,
      ...(toName ? { toName } : {}),
      eventId: d.eventId,
      violation,
      siteName: site?.name ?? violation.siteId,
      timeZone: site?.timezone ?? config.timezone,
      documentUrl: `${base}${violation.documentUrl}`,
      sentAt: now(),
      ...(document ? { document } : {}),
    });
  };
  const stopWork = async (d: Delivery) => {
    const order = storedStopWork(d);
    if (!sender.sendStopWork) throw new DeliveryError('this e-mail channel cannot serve orders', true);
    const site = sites.get(order.siteId);
    const toName = site?.recipients.find((r) => r.email === d.target)?.name;
    const document = opts.stopWorkDocument ? await opts.stopWorkDocument(order) : undefined;
    await sender.sendStopWork({
      to: d.target,
      ...(toName ? { toName } : {}),
      eventId: d.eventId,
      order,
      siteName: site?.name ?? order.siteId,
      timeZone: site?.timezone ?? config.timezone,
      documentUrl: `${base}${stopWorkDocumentUrl(order.id)}`,
      sentAt: now(),
      ...(document ? { document } : {}),
    });
  };
  const report = async (d: Delivery) => {
    const inspection = storedInspection(d);
    if (!sender.sendReport) throw new DeliveryError('this e-mail channel cannot deliver reports', true);
    const site = sites.get(inspection.siteId);
    const toName = site?.recipients.find((r) => r.email === d.target)?.name;
    await sender.sendReport({
      to: d.target,
      ...(toName ? { toName } : {}),
      eventId: d.eventId,
      inspection,
      siteName: site?.name ?? inspection.siteId,
      timeZone: site?.timezone ?? config.timezone,
      baseUrl: base,
    });
  };
  return {
    send: (d: Delivery) =>
      outcomeOf(async () => {
        if (d.kind === 'violation') return serve(d);
        if (d.kind === 'inspection-report') return report(d);
        if (d.kind === 'stop-work') return stopWork(d);
        const alert = storedAlert(d);
        const site = sites.get(alert.siteId);
        const toName = site?.recipients.find((r) => r.email === d.target)?.name;
        await sender.send({
          to: d.target,
          ...(toName ? { toName } : {}),
          kind: d.kind,
          eventId: d.eventId,
          alert,
          ...(site?.name ? { siteName: site.name } : {}),
          timeZone: site?.timezone ?? config.timezone,
        });
      }),
  };
}

export type { ComposedEmail, ComposeOptions } from './emailMessage.ts';
export { messageIdFor } from './emailMessage.ts';
