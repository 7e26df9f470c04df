/**
 * Where signed checkpoints go off the box, so that anyone holding an earlier one can detect a truncated
 * or rewritten store:
 * - MQTT: retained on `gateway/{gatewayId}/checkpoint` (read back from an external broker at start; the
 *   embedded broker is on the gateway's own box, so its copy proves nothing about the store);
 * - InfluxDB: measurement `checkpoints` (tag `gateway`; fields `size`, `root`, and `note`, the signed note in
 *   base64, as line protocol has no newline in a string), queued durably in the store like every other
 *   line, and read back at start from an InfluxDB 1.x;
 * - witnesses: each checkpoint POSTed as JSON, signed like the gateway's webhooks;
 * - a daily e-mail digest of the day's checkpoints (to the town's officer, say).
 */
import type { SmtpEmailSender } from '../notify/channels/email.ts';
import type { WebhookSender } from '../notify/channels/webhook.ts';
import type { Cursor } from '../store/cursor.ts';
import type { CheckpointPublisher, SignedCheckpoint } from './publisher.ts';

export const checkpointTopic = (gatewayId: string) => `gateway/${gatewayId}/checkpoint`;

export function mqttPublisher(
  gatewayId: string,
  mqtt: () =>
    | { publish(topic: string, payload: string, opts?: { retain?: boolean; qos?: 0 | 1 }): Promise<void> }
    | undefined,
  readBack?: () => Promise<string | undefined>,
): CheckpointPublisher {
  return {
    name: 'mqtt',
    // Without a read-back the broker is the embedded one, on this box.
    where: readBack ? 'the external MQTT broker' : "the gateway's embedded MQTT broker",
    offBox: readBack !== undefined,
    publish: async (cp) => {
      const m = mqtt();
      if (!m) throw new Error('no MQTT connection yet');
      await m.publish(checkpointTopic(gatewayId), cp.note, { retain: true, qos: 1 });
    },
    ...(readBack ? { readBack } : {}),
  };
}

/** The InfluxDB line of a checkpoint. */
export function checkpointLine(
  gatewayId: string,
  cp: SignedCheckpoint,
  esc: { key(s: string): string; str(s: string): string },
): string {
  const note = Buffer.from(cp.note).toString('base64');
  return `checkpoints,gateway=${esc.key(gatewayId)} size=${cp.size}i,root=${esc.str(cp.root.toString('base64'))},note=${esc.str(note)} ${cp.at}`;
}

/** Reads the last checkpoint note this gateway wrote to an InfluxDB 1.x (`/query`). */
export function influxV1ReadBack(url: string, db: string, gatewayId: string, timeoutMs = 10_000) {
  return async (): Promise<string | undefined> => {
    const q = `SELECT last("note") FROM "checkpoints" WHERE "gateway" = '${gatewayId.replace(/'/g, "\\'")}'`;
    const res = await fetch(
      `${url.replace(/\/$/, '')}/query?db=${encodeURIComponent(db)}&q=${encodeURIComponent(q)}`,
      {
        signal: AbortSignal.timeout(timeoutMs),
      },
    );
    if (!res.ok) throw new Error(`InfluxDB answered ${res.status}`);
    const body = (await res.json()) as { results?: Array<{ series?: Array<{ values?: unknown[][] }> }> };
    const v = body.results?.[0]?.series?.[0]?.values?.[0]?.[1];
    return typeof v === 'string' ? Buffer.from(v, 'base64').toString() : undefined;
  };
}

/**
 * Reads the newest checkpoint a witness holds of this gateway: GET `url` answers 200 with the signed note,
 * as text or as JSON with a `checkpoint` member (the body the gateway POSTs), or 404 when it holds none.
 */
export function witnessReadBack(url: string, timeoutMs = 10_000) {
  return async (): Promise<string | undefined> => {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (res.status === 404) return undefined;
    if (!res.ok) throw new Error(`the witness answered ${res.status}`);
    const text = await res.text();
    if (!(res.headers.get('content-type') ?? '').includes('json')) return text;
    const body = JSON.parse(text) as { checkpoint?: unknown };
    return typeof body.checkpoint === 'string' ? body.checkpoint : undefined;
  };
}

export function witnessPublisher(
  url: string,
  sender: WebhookSender,
  gatewayId: string,
  readBack?: () => Promise<string | undefined>,
): CheckpointPublisher {
  return {
    name: `witness ${new URL(url).host}`,
    where: `the witness at ${new URL(url).host}`,
    ...(readBack ? { readBack } : {}),
    publish: (cp) =>
      sender.send({
        url,
        kind: 'checkpoint',
        eventId: `checkpoint:${gatewayId}:${cp.size}`,
        body: JSON.stringify({
          gatewayId,
          size: cp.size,
          root: cp.root.toString('base64'),
          at: new Date(cp.at).toISOString(),
          checkpoint: cp.note,
        }),
      }),
  };
}

const DAY = 86_400_000;

/**
 * Once a day at most, the newest checkpoint by e-mail with how the log grew since the last digest. The
 * last digest's time is kept in the store (a cursor), so a restart neither repeats nor skips one.
 */
export function digestPublisher(
  to: string[],
  sender: Pick<SmtpEmailSender, 'sendText'>,
  gatewayId: string,
  sent: Cursor,
  verifierKey: string,
): CheckpointPublisher {
  return {
    name: 'e-mail digest',
    where: 'the daily e-mail digest',
    publish: async (cp) => {
      const last = sent.read() ?? 0;
      if (cp.at - last < DAY) return;
      await sender.sendText({
        to,
        subject: `Evidence checkpoint of gateway ${gatewayId}: ${cp.size} entries`,
        text: [
          `The evidence log of gateway ${gatewayId} held ${cp.size} entries at ${new Date(cp.at).toISOString()}.`,
          'Keep this message: a report or a store that disagrees with it was altered after it was sent.',
          '',
          'Signed checkpoint (C2SP signed-note format):',
          '',
          cp.note,
          `Verifier key: ${verifierKey}`,
          '',
          'A report is checked with: npm run verify -- REPORT.json --key KEY --checkpoint THIS-CHECKPOINT',
        ].join('\n'),
      });
      sent.write(cp.at);
    },
  };
}
