/**
 * How an inspection's report reached the Stormwater Management Officer (town law 001: "The reports shall
 * be delivered to the Stormwater Management Officer"): on the officer's agenda from its recording
 * (`agenda.ts` lists it on that day), and by e-mail to each officer of the site with an address, as the
 * notification queue delivered it (`inspection-report` events, `store/outbox.ts`).
 */
import type { DeliveryView, InspectionDto, ReportDelivery } from '../../../shared/src/api/alerts.ts';
import { inspectionReportEventId } from '../store/outbox.ts';

/** The agenda's name as a delivery's `to`. */
export const OFFICER_AGENDA = "the officer's agenda";

/** The inspection with its report's deliveries. */
export function withDeliveries(
  i: InspectionDto,
  list: (q: { eventId: string }) => DeliveryView[],
): InspectionDto {
  const mails = list({ eventId: inspectionReportEventId(i.id) })
    .filter((d) => d.channel === 'email')
    .map(
      (d): ReportDelivery => ({
        channel: 'email',
        to: d.target,
        status: d.status === 'sent' ? 'delivered' : d.status,
        at: d.status === 'sent' ? d.sentAt : null,
      }),
    );
  const agenda: ReportDelivery = {
    channel: 'agenda',
    to: OFFICER_AGENDA,
    status: 'delivered',
    at: i.recordedAt,
  };
  return { ...i, deliveries: [agenda, ...mails] };
}
