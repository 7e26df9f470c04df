/**
 * A stop-work order served by e-mail under the law of its site (town law 001, Enforcement, B; town law
 * 000, Section 5.030 A 7: "by written notice"), or the notice that it is lifted: the law's words
 * (`ENFORCEMENT_LAWS[law].stopWork`), the parties on file, why it was issued, the issuing officer, its
 * standing, the order's document attached (printable: for mail or in person) and its link (GET
 * /api/stop-work/{id}/document, printable and as a PDF). Times in the site's zone. The Message-ID follows
 * the event, as an alert's does, so a resend is recognisable as the same message.
 */
import { lawOf } from '../../../../shared/src/api/enforcementLaws.ts';
import { type StopWorkServed, stopWorkServedSchema } from '../../../../shared/src/api/violations.ts';
import { formatLong } from '../../../../shared/src/time.ts';
import type { Delivery } from '../delivery.ts';
import { DeliveryError } from '../errors.ts';
import { type ComposedEmail, type ComposeOptions, messageIdFor } from './emailMessage.ts';

export interface StopWorkEmailRequest {
  to: string;
  toName?: string;
  eventId: string;
  order: StopWorkServed;
  siteName: string;
  timeZone: string;
  /** The order's document, as an absolute URL. */
  documentUrl: string;
  /** When this message is sent: the order's service, if it was not served before. */
  sentAt: number;
  /** The order's document, attached (printable). */
  document?: { filename: string; html: string } | undefined;
}

/** An order's document as its e-mail attaches it (the report's printable page, its style inline). */
export type StopWorkDocument = (o: StopWorkServed) => Promise<{ filename: string; html: string }>;

/** The order in a `stop-work` event's payload; a payload that is not one fails for good. */
export function storedStopWork(d: Delivery): StopWorkServed {
  const parsed = stopWorkServedSchema.safeParse(d.alert);
  if (!parsed.success)
    throw new DeliveryError(
      `the order in the event payload is not a stop-work order: ${parsed.error.issues
        .map((i) => `${i.path.join('.')}: ${i.message}`)
        .join('; ')}`,
      true,
    );
  return parsed.data;
}

const partyLines = (role: string, p: StopWorkServed['landowner']): string[] =>
  p ? [`${role}: ${p.name}`, `  ${p.address}`] : [`${role}: none on record`];

export function composeStopWorkEmail(req: StopWorkEmailRequest, opts: ComposeOptions): ComposedEmail {
  const o = req.order;
  const t = (iso: string) => formatLong(Date.parse(iso), req.timeZone);
  const law = lawOf(o.law);
  const lifted = o.liftedAt !== undefined;
  const title = lifted ? `${law.stopWork.title}: lifted` : law.stopWork.title;
  const standing = lifted
    ? [
        `The stop-work order issued on ${t(o.since)} was lifted on ${t(o.liftedAt!)} by ${o.liftedBy ?? 'the officer'}${o.override ? ', with an override (a notice it names was not approved)' : ''}.`,
        ...(o.liftNote ? [`Note: ${o.liftNote}`] : []),
        `Work at ${req.siteName} may resume.`,
      ]
    : [
        `This order was issued on ${t(o.since)} by ${o.issuedBy}, for ${law.officer}. ${
          o.servedAt
            ? `It was first served on ${t(o.servedAt)}.`
            : `This message serves it, sent ${formatLong(req.sentAt, req.timeZone)}.`
        }`,
        '',
        'THE ORDER',
        law.stopWork.order,
        law.stopWork.until,
      ];
  const lines = [
    `${title.toUpperCase()}: ${req.siteName}`,
    `Town of Chester, ${law.title}, ${law.stopWork.section}`,
    '',
    ...standing,
    '',
    'TO WHOM IT IS DIRECTED',
    ...partyLines(law.partyLabels.landowner, o.landowner),
    ...partyLines(law.partyLabels.developer, o.developer),
    '',
    'THE LAND',
    o.siteAddress ?? req.siteName,
    '',
    'WHY IT WAS ISSUED',
    o.reason,
    '',
    req.document
      ? `The order is attached as a printable document (${req.document.filename}).`
      : 'The order as a printable document is at the link below.',
    '',
    `The order as a document (printable, and as a PDF): ${req.documentUrl}`,
    `Order: ${o.id}${o.logIndex !== undefined ? `, evidence log entry ${o.logIndex}` : ''}${
      lifted && o.liftLogIndex !== undefined ? `; its lifting, evidence log entry ${o.liftLogIndex}` : ''
    }.`,
    '',
    'This notice was sent by the compliance monitoring gateway; the same notice may arrive twice after an outage (same Message-ID).',
  ];
  return {
    from: opts.from,
    to: req.toName ? { name: req.toName, address: req.to } : req.to,
    subject: lifted
      ? `${law.stopWork.title} lifted: ${req.siteName}, ${t(o.liftedAt!)}`
      : `${law.stopWork.title}: ${req.siteName}, since ${t(o.since)}`,
    text: `${lines.join('\n')}\n`,
    messageId: messageIdFor(req.eventId, opts.from, opts.gatewayId),
    headers: { 'X-Gateway-Event': 'stop-work', 'X-Gateway-Delivery': req.eventId },
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
