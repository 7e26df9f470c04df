/**
 * A notice of violation served by e-mail (town law 001, Enforcement, A): the six elements of the law in
 * words, each under its heading, the issuing officer and the date of service, and the link to the
 * notice's document (GET /api/violations/{id}/document, printable and as a PDF). Times in the site's zone.
 * The Message-ID follows the event, as an alert's does, so a resend is recognisable as the same message.
 */
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
  const lines = [
    `NOTICE OF VIOLATION: ${req.siteName}`,
    '',
    `The Town of Chester determined that land development activity at ${req.siteName} is not carried out`,
    'in accordance with its stormwater law for land development activities (law 001). This notice is',
    `served on ${t(v.issuedAt)} by ${v.issuedBy}.`,
    '',
    '1. Landowner and developer',
    ...partyLines('Landowner', v.landowner),
    ...partyLines('Developer or applicant', v.developer),
    '',
    '2. The land',
    v.siteAddress ?? req.siteName,
    '',
    '3. Nature of the violation',
    v.nature,
    '',
    '4. Remedial measures and time schedule',
    v.remedy,
    `To be completed by ${t(v.remedyDueAt)}.`,
    '',
    '5. Penalties',
    v.penalties,
    '',
    '6. Appeal',
    `This determination may be appealed to the Town by filing a written notice of appeal within 15 days of service, by ${t(v.appealBy)}.`,
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
