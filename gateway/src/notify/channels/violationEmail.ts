/**
 * A notice of violation served by e-mail (town law 001, Enforcement, A): the elements of the law in
 * words (`ENFORCEMENT_LAWS`), each under its heading, the issuing officer and the date of service, and the link to the
 * notice's document (GET /api/violations/{id}/document, printable and as a PDF). Times in the site's zone.
 * The Message-ID follows the event, as an alert's does, so a resend is recognisable as the same message.
 */
import { appealSentence, elementHeadings, NOTICE_LAW } from '../../../../shared/src/api/enforcementLaws.ts';
import { type ViolationDto, violationDtoSchema } from '../../../../shared/src/api/violations.ts';
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
}

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

const partyLines = (role: string, p: ViolationDto['landowner']) =>
  p ? [`${role}: ${p.name}`, `  ${p.address}`] : [`${role}: none on record`];

export function composeViolationEmail(req: NoticeEmailRequest, opts: ComposeOptions): ComposedEmail {
  const v = req.violation;
  const t = (iso: string) => formatLong(Date.parse(iso), req.timeZone);
  const head = elementHeadings(NOTICE_LAW);
  const lines = [
    `NOTICE OF VIOLATION: ${req.siteName}`,
    '',
    `The Town of Chester determined that land development activity at ${req.siteName} is not carried out`,
    `in accordance with its ${NOTICE_LAW.title}. This notice is`,
    `served on ${t(v.issuedAt)} by ${v.issuedBy}.`,
    '',
    head.parties,
    ...partyLines('Landowner', v.landowner),
    ...partyLines('Developer or applicant', v.developer),
    '',
    head.land,
    v.siteAddress ?? req.siteName,
    '',
    head.nature,
    v.nature,
    '',
    head.remedy,
    v.remedy,
    `To be completed by ${t(v.remedyDueAt)}.`,
    '',
    head.penalties,
    v.penalties,
    '',
    head.appeal,
    appealSentence(NOTICE_LAW, t(v.appealBy)),
    '',
    `The notice as a document (printable, and as a PDF): ${req.documentUrl}`,
    `Notice: ${v.id}${v.logIndex !== undefined ? `, evidence log entry ${v.logIndex}` : ''}.`,
    '',
    'This notice was sent by the compliance monitoring gateway; the same notice may arrive twice after an outage (same Message-ID).',
  ];
  return {
    from: opts.from,
    to: req.toName ? { name: req.toName, address: req.to } : req.to,
    subject: `Notice of violation: ${req.siteName}, remedy due ${t(v.remedyDueAt)}`,
    text: `${lines.join('\n')}\n`,
    messageId: messageIdFor(req.eventId, opts.from, opts.gatewayId),
    headers: { 'X-Gateway-Event': 'violation', 'X-Gateway-Delivery': req.eventId },
  };
}
