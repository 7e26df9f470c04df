/**
 * A notice or an order served by e-mail: its first delivery to a party is its service (town law 001,
 * Enforcement, A; town law 000, Section 5.100 B), recorded as the officer's services by mail or in person
 * are. An order's lifting is told, not served. Given to the notification stage as its `onSent`.
 */
import { stopWorkEventId } from '../store/outbox.ts';
import type { Violations } from './violations.ts';

/** What a sent delivery tells of itself (the notification stage's `Delivery`). */
export interface SentDelivery {
  alertId: string | null;
  channel: string;
  kind: string;
  target: string;
  eventId: string;
}

export function servedByEmail(violations: () => Violations): (d: SentDelivery, at: number) => void {
  return (d, at) => {
    if (d.alertId === null || d.channel !== 'email') return;
    const service = { method: 'email', party: d.target, servedAt: at, by: 'e-mail delivery' } as const;
    if (d.kind === 'violation') violations().serve(d.alertId, service, () => {});
    if (d.kind === 'stop-work' && d.eventId === stopWorkEventId(d.alertId, 'issued'))
      violations().serveOrder(d.alertId, service, () => {});
  };
}
