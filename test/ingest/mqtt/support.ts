import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { IngestResult, IngestSink, Log, RawMessage } from '../../../gateway/src/pipeline.ts';
import { parseDeviceTopic } from '../../../shared/src/topics.ts';
import { freePort, waitFor } from '../../helpers/env.ts';

/** A sink that records what it is given; `gate` can hold an ingest open (the store commit not done yet). */
export class RecordingSink implements IngestSink {
  /** Every ingest call, in order, including ones not yet resolved. */
  readonly calls: RawMessage[] = [];
  /** Messages whose ingest resolved ("stored"). */
  readonly stored: RawMessage[] = [];
  gate: ((msg: RawMessage) => Promise<void> | undefined) | undefined;

  async ingest(msg: RawMessage): Promise<IngestResult> {
    this.calls.push(msg);
    const wait = this.gate?.(msg);
    if (wait) await wait;
    this.stored.push(msg);
    const t = parseDeviceTopic(msg.topic);
    if (t.kind !== 'telemetry') return { status: 'ignored' };
    return {
      status: 'stored',
      reading: {
        siteId: t.siteId,
        deviceId: t.deviceId,
        deviceKind: 'rain-gauge',
        ts: msg.receivedAt,
        receivedAt: msg.receivedAt,
        transport: 'mqtt',
        values: {},
      },
    };
  }

  payloads(topic?: string): string[] {
    return this.stored
      .filter((m) => topic === undefined || m.topic === topic)
      .map((m) => m.payload.toString());
  }
}

/** A logger that keeps every line, to check what was logged (and that no secret was). */
export class MemoryLog implements Log {
  readonly lines: { level: string; obj: unknown; msg?: string }[] = [];
  private add(level: string, obj: object | string, msg?: string) {
    this.lines.push({ level, obj, msg });
  }
  info(obj: object | string, msg?: string) {
    this.add('info', obj, msg);
  }
  warn(obj: object | string, msg?: string) {
    this.add('warn', obj, msg);
  }
  error(obj: object | string, msg?: string) {
    this.add('error', obj, msg);
  }
  debug(obj: object | string, msg?: string) {
    this.add('debug', obj, msg);
  }
  text(): string {
    return this.lines.map((l) => `${l.level} ${JSON.stringify(l.obj)} ${l.msg ?? ''}`).join('\n');
  }
}

export async function client(url: string, opts: IClientOptions = {}): Promise<MqttClient> {
  return mqtt.connectAsync(url, { reconnectPeriod: 200, ...opts });
}

/** Subscribes a fresh client and returns the first message on `topic` (retained or live) matching `pred`. */
export async function firstMessage(
  url: string,
  topic: string,
  pred: (payload: string, retain: boolean) => boolean = () => true,
  timeoutMs = 5000,
): Promise<{ payload: string; retain: boolean }> {
  const c = await client(url);
  try {
    const got: { payload: string; retain: boolean }[] = [];
    c.on('message', (t, p, packet) => {
      if (t === topic && pred(p.toString(), packet.retain))
        got.push({ payload: p.toString(), retain: packet.retain });
    });
    await c.subscribeAsync(topic, { qos: 1 });
    await waitFor(() => got.length > 0, timeoutMs, `a message on ${topic}`);
    return got[0]!;
  } finally {
    await c.endAsync(true);
  }
}

/**
 * A TCP proxy between the gateway and the broker. `cut()` drops every connection at once (to both
 * sides it looks like a dead network or a crashed peer); `refuse` makes it drop new connections.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  refuse = false;
  port = 0;
  connections = 0;

  constructor(private readonly targetPort: number) {}

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.port = await freePort();
    this.server = createServer((inbound) => {
      if (this.refuse) {
        inbound.destroy();
        return;
      }
      this.connections++;
      const outbound = tcpConnect({ port: this.targetPort, host: '127.0.0.1' });
      for (const s of [inbound, outbound]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {
          inbound.destroy();
          outbound.destroy();
        });
      }
      inbound.pipe(outbound);
      outbound.pipe(inbound);
      inbound.on('close', () => outbound.destroy());
      outbound.on('close', () => inbound.destroy());
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
  }

  cut(): void {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  async stop(): Promise<void> {
    this.cut();
    const server = this.server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
