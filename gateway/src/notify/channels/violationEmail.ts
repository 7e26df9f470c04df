/**
 * A notice of violation served by e-mail under the law of its site (town law 001, Enforcement, A; town law
 * 000, Section 5.100 B): the elements of the law in words (`ENFORCEMENT_LAWS`), each under its heading, the
 * issuing officer, the order and what follows when it is not met, the appeal window this message starts
 * (the law's days from its sending, in the site's local days, unless the notice was served before), the
 * notice's document attached (printable: for mail or in person) and its link (GET
 * /api/violations/{id}/document, printable and as a PDF). Times in the site's zone. The Message-ID follows
 * the event, as an alert's does, so a resend is recognisable as the same message.
 */
import {
  appealSentence,
  elementHeadings,
  lawOfNotice,
  orderKindOf,
} from '../../../../shared/src/api/enforcementLaws.ts';
import { endOfDay } from '../../../../shared/src/api/serviceWords.ts';
import { type ViolationDto, violationDtoSchema } from '../../../../shared/src/api/violations.ts';
import { withinDays } from '../../../../shared/src/days.ts';
import { formatLong } from '../../../../shared/src/time.ts';
import type { Delivery } from '../delivery.ts';
import { DeliveryError } from '../errors.ts';
import { type ComposedEmail, type ComposeOptions, messageIdFor } from './emailMessage.ts';

export interface NoticeEmailRequest {
  to: string;
  toName?: string;
  eventId: string;
  violation: ViolationDto;
  siteName: string;
  timeZone: string;
  /** The notice's document, as an absolute URL. */
  documentUrl: string;
  /** When this message is sent: its service, if the notice was not served before. */
  sentAt: number;
  /** The notice's document, attached (printable). */
  document?: { filename: string; html: string } | undefined;
}

/** A notice's document as its e-mail attaches it (the report's printable page, its style inline). */
export type NoticeDocument = (v: ViolationDto) => Promise<{ filename: string; html: string }>;

/** The notice in a `violation` event's payload; a payload that is not one fails for good. */
export function storedViolation(d: Delivery): ViolationDto {
  const parsed = violationDtoSchema.safeParse(d.alert);
  if (!parsed.success)
    throw new DeliveryError(
      `the notice in the event payload is not a notice of violation: ${parsed.error.issues
        .map((i) => `${i.path.join('.')}: ${i.message}`)
        .join('; ')}`,
      true,
    );
  return parsed.data;
}

const partyLines = (role: string, p: ViolationDto['landowner']): string[] =>
  p ? [`${role}: ${p.name}`, `  ${p.address}`] : [`${role}: none on record`];

export function composeViolationEmail(req: NoticeEmailRequest, opts: ComposeOptions): ComposedEmail {
  const v = req.violation;
  const t = (iso: string) => formatLong(Date.parse(iso), req.timeZone);
  const law = lawOfNotice(v);
  const head = elementHeadings(law);
  const order = orderKindOf(law, v.orderKind);
  // The window runs from the first service: this message, unless the notice reached a party before.
  const appealBy = v.appealBy ?? new Date(withinDays(req.sentAt, law.appealDays, req.timeZone)).toISOString();
  const served = v.servedAt
    ? `It was first served on ${t(v.servedAt)}.`
    : `This message serves it, sent ${formatLong(req.sentAt, req.timeZone)}.`;
  const lines = [
    `${law.noticeTitle.toUpperCase()}${law.orderKinds.length > 1 ? ` (${order.label.toLowerCase()})` : ''}: ${req.siteName}`,
    '',
    `The Town of Chester determined that ${req.siteName} is not in compliance with its ${law.title}.`,
    `This notice was issued on ${t(v.issuedAt)} by ${v.issuedBy}, for ${law.officer}. ${served}`,
    '',
    head.parties,
    ...partyLines(law.partyLabels.landowner, v.landowner),
    ...partyLines(law.partyLabels.developer, v.developer),
    '',
    head.land,
    v.siteAddress ?? req.siteName,
    '',
    head.nature,
    v.nature,
    '',
    head.remedy,
    order.words,
    v.remedy,
    `To be completed by ${t(v.remedyDueAt)}.`,
    law.whenNotMet,
    '',
    head.penalties,
    v.penalties,
    '',
    head.appeal,
    appealSentence(law, endOfDay(appealBy, req.timeZone)),
    '',
    req.document
      ? `The notice is attached as a printable document (${req.document.filename}).`
      : 'The notice as a printable document is at the link below.',
    '',
    `The notice as a document (printable, and as a PDF): ${req.documentUrl}`,
    `Notice: ${v.id}${v.logIndex !== undefined ? `, evidence log entry ${v.logIndex}` : ''}.`,
    '',
    'This notice was sent by the compliance monitoring gateway; the same notice may arrive twice after an outage (same Message-ID).',
  ];
  return {
    from: opts.from,
    to: req.toName ? { name: req.toName, address: req.to } : req.to,
    subject: `${law.orderKinds.length > 1 ? order.label : law.noticeTitle}: ${req.siteName}, remedy due ${t(v.remedyDueAt)}`,
    text: `${lines.join('\n')}\n`,
    messageId: messageIdFor(req.eventId, opts.from, opts.gatewayId),
    headers: { 'X-Gateway-Event': 'violation', 'X-Gateway-Delivery': req.eventId },
    ...(req.document
      ? {
          attachments: [
            {
              filename: req.document.filename,
              content: req.document.html,
              contentType: 'text/html; charset=utf-8',
            },
          ],
        }
      : {}),
  };
}
