/**
 * An inspection's report delivered to the Stormwater Management Officer by e-mail (town law 001,
 * Maintenance during construction, A(2): "The reports shall be delivered to the Stormwater Management
 * Officer and copied to the site logbook"): who inspected when, the notes, each practice's finding with
 * the links to its photos. Times in the site's zone. The Message-ID follows the event, so a resend is
 * recognisable as the same message.
 */
import { type InspectionDto, inspectionDtoSchema } from '../../../../shared/src/api/alerts.ts';
import { formatLong } from '../../../../shared/src/time.ts';
import type { Delivery } from '../delivery.ts';
import { DeliveryError } from '../errors.ts';
import { type ComposedEmail, type ComposeOptions, messageIdFor } from './emailMessage.ts';

export interface ReportEmailRequest {
  to: string;
  toName?: string;
  eventId: string;
  inspection: InspectionDto;
  siteName: string;
  timeZone: string;
  /** The gateway's address, for the photos' links. */
  baseUrl: string;
}

/** The inspection in an `inspection-report` event's payload; a payload that is not one fails for good. */
export function storedInspection(d: Delivery): InspectionDto {
  const parsed = inspectionDtoSchema.safeParse(d.alert);
  if (!parsed.success)
    throw new DeliveryError(
      `the report in the event payload is not an inspection: ${parsed.error.issues
        .map((i) => `${i.path.join('.')}: ${i.message}`)
        .join('; ')}`,
      true,
    );
  return parsed.data;
}

export function composeReportEmail(req: ReportEmailRequest, opts: ComposeOptions): ComposedEmail {
  const i = req.inspection;
  const t = (iso: string) => formatLong(Date.parse(iso), req.timeZone);
  const findings = i.findings ?? [];
  const lines = [
    `INSPECTION REPORT: ${req.siteName}`,
    '',
    `Inspected ${t(i.at)} by ${i.inspector} (${i.kind}); recorded ${t(i.recordedAt)} by ${i.recordedBy}.`,
    '',
    'Notes:',
    i.notes.trim() || '(none)',
    '',
    findings.length > 0 ? 'Findings at the practices:' : 'No findings at practices were recorded.',
    ...findings.flatMap((f) => [
      `- ${f.practice}: ${f.status}${f.note ? `: ${f.note}` : ''}`,
      ...f.photos.map((p) => `    photo: ${req.baseUrl}/api/photos/${p}`),
    ]),
    '',
    `Inspection: ${i.id}${i.logIndex !== undefined ? `, evidence log entry ${i.logIndex}` : ''}.`,
    '',
    'This report was delivered by the compliance monitoring gateway; the same report may arrive twice after an outage (same Message-ID).',
  ];
  return {
    from: opts.from,
    to: req.toName ? { name: req.toName, address: req.to } : req.to,
    subject: `Inspection report: ${req.siteName}, ${t(i.at)}`,
    text: `${lines.join('\n')}\n`,
    messageId: messageIdFor(req.eventId, opts.from, opts.gatewayId),
    headers: { 'X-Gateway-Event': 'inspection-report', 'X-Gateway-Delivery': req.eventId },
  };
}
