/** What every e-mail the gateway sends is made of (alerts in `email.ts`, notices in `violationEmail.ts`). */

export interface ComposedEmail {
  from: string;
  to: string | { name: string; address: string };
  subject: string;
  text: string;
  messageId: string;
  headers: Record<string, string>;
  /** Files sent with it (a notice's document). */
  attachments?: { filename: string; content: string; contentType: string }[];
}

function domainOf(from: string, fallback: string): string {
  const m = /@([A-Za-z0-9.-]+)>?\s*$/.exec(from);
  return m?.[1] ?? fallback;
}

/** The Message-ID for an event: the same on every resend. */
export function messageIdFor(eventId: string, from: string, gatewayId = 'gateway'): string {
  const local = eventId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 200);
  return `<notify.${local}@${domainOf(from, `${gatewayId}.invalid`)}>`;
}

export interface ComposeOptions {
  from: string;
  gatewayId?: string;
}
