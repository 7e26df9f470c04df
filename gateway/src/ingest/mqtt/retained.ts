/**
 * Reads the message an external broker retains on one topic, over a short-lived connection of its own
 * (a clean session under `<clientId>-audit`, so the gateway's persistent session is left alone). The
 * nodes of a cluster are tried in turn. A broker sends a retained message right after the SUBACK; when
 * none has come `waitMs` after it, the broker holds none.
 */
import mqtt, { type IClientOptions } from 'mqtt';
import { redactor, redactUrl } from './redact.ts';

export interface RetainedReadOptions {
  urls: readonly string[];
  clientId: string;
  protocolVersion: 4 | 5;
  username?: string;
  password?: string;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  /** How long a connection may take (default 10000). */
  connectTimeoutMs?: number;
  /** How long after the SUBACK a retained message may still come (default 1500). */
  waitMs?: number;
}

/** The payload retained on `topic`, undefined when the broker holds none; rejects when no node answers. */
export async function readRetained(o: RetainedReadOptions, topic: string): Promise<string | undefined> {
  const redact = redactor(o.urls, o.password);
  const failures: string[] = [];
  for (const url of o.urls) {
    try {
      return await readFrom(url, o, topic);
    } catch (e) {
      failures.push(`${redactUrl(url)}: ${redact(e)}`);
    }
  }
  throw new Error(`no broker node answered (${failures.join('; ')})`);
}

async function readFrom(url: string, o: RetainedReadOptions, topic: string): Promise<string | undefined> {
  const options: IClientOptions = {
    clientId: `${o.clientId}-audit`,
    protocolVersion: o.protocolVersion,
    clean: true,
    reconnectPeriod: 0,
    connectTimeout: o.connectTimeoutMs ?? 10_000,
    ...(o.username !== undefined ? { username: o.username } : {}),
    ...(o.password !== undefined ? { password: o.password } : {}),
    ...(o.ca ? { ca: o.ca } : {}),
    ...(o.cert ? { cert: o.cert } : {}),
    ...(o.key ? { key: o.key } : {}),
  };
  const client = await mqtt.connectAsync(url, options, false);
  try {
    let retained: string | undefined;
    let got: () => void = () => {};
    const arrived = new Promise<void>((resolve) => {
      got = resolve;
    });
    client.on('message', (t, payload, packet) => {
      if (t !== topic || !packet.retain) return;
      retained = payload.toString();
      got();
    });
    const granted = await client.subscribeAsync(topic, { qos: 1 });
    const refused = granted.find((g) => g.qos > 2);
    if (refused) throw new Error(`the broker refused the subscription to ${topic}`);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      arrived,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, o.waitMs ?? 1500);
      }),
    ]);
    clearTimeout(timer);
    return retained;
  } finally {
    await client.endAsync(true);
  }
}
