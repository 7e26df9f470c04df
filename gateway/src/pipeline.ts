/**
 * The small interfaces the stages talk through, and the one lifecycle they share (Stage). Inputs hand
 * raw messages to an IngestSink; outputs drain the store. Only main.ts wires concrete stages together.
 */
import type { Reading, RejectReason } from '../../shared/src/telemetry.ts';

/** A message as a transport received it, before decoding. */
export interface RawMessage {
  transport: 'mqtt' | 'serial' | 'lorawan' | 'modbus' | 'sdi12';
  /**
   * MQTT topic (a network server's for LoRaWAN); for serial, `serial:<path>`; for a polled device
   * (Modbus, SDI-12), `modbus:<siteId>/<deviceId>` or `sdi12:<siteId>/<deviceId>`.
   */
  topic: string;
  payload: Buffer | string;
  /** Arrival time, epoch ms. */
  receivedAt: number;
  /** The authenticated MQTT client (device login), when there is one. */
  clientId?: string;
  /** The MQTT QoS it came with. QoS 0 over a device's rate is dropped (counted); the rest wait for it. */
  qos?: 0 | 1 | 2;
  /**
   * The sender waits for an acknowledgement the gateway gives (a QoS 1 publish to the embedded broker):
   * what the gateway does not keep for a passing reason (a store that cannot commit, a timestamp ahead of
   * the gateway's clock, a device not configured yet) is refused to it, unacknowledged, instead of being
   * recorded as rejected; it sends it again later.
   */
  refusable?: boolean;
}

/** A message refused, unacknowledged: the sender keeps it and may send it again. */
export class RefusedError extends Error {
  override name = 'RefusedError';
  constructor(
    readonly reason: RejectReason | 'store_read_only',
    message: string,
  ) {
    super(message);
  }
}

export type IngestResult =
  | { status: 'stored'; reading: Reading }
  | { status: 'duplicate'; reading: Reading }
  | { status: 'rejected'; reason: RejectReason; detail: string }
  /** Kept in the quarantine (a clock ahead, a device not registered yet): durable, so acknowledged. */
  | { status: 'quarantined'; reason: RejectReason; detail: string; id: number }
  | { status: 'ignored' };

/**
 * Decodes, validates and stores one message. The promise resolves only when the outcome is
 * durable (the reading or the rejection is committed to the local store): an MQTT input acknowledges
 * a QoS 1 publish after it resolves.
 */
export interface IngestSink {
  ingest(msg: RawMessage): Promise<IngestResult>;
  /** The same with a callback, when the sink offers it: no promise per message on a busy transport. */
  ingestWith?(msg: RawMessage, done: (err: Error | null, result?: IngestResult) => void): void;
}

export interface ComponentHealth {
  name: string;
  ok: boolean;
  detail?: string;
  [k: string]: unknown;
}

/**
 * The lifecycle of every long-lived part (the ingest stage, the inputs, the outputs): started once,
 * stopped once, in reverse order of starting, and asked for its health at any time. `Args` are what
 * start() needs: an input gets the sink it feeds.
 */
export interface Stage<Args extends unknown[] = []> {
  readonly name: string;
  start(...args: Args): Promise<void>;
  stop(): Promise<void>;
  health(): ComponentHealth | ComponentHealth[];
}

/** A source of telemetry (MQTT, serial). Started last, stopped first. */
export type Input = Stage<[sink: IngestSink]>;

/** A destination that drains the store (InfluxDB, notifications). Started first, stopped last. */
export interface Output extends Stage {
  health(): ComponentHealth;
}

/** Logger: the subset of pino's interface the stages use. Secrets never go into fields. */
export interface Log {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
  debug(obj: object | string, msg?: string): void;
}

export const silentLog: Log = { info() {}, warn() {}, error() {}, debug() {} };

/** Something started and stopped in the gateway's order (a stage, an input with its sink bound). */
export interface Startable {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts each in the order given; when one fails, stops those started, in reverse, and throws. Answers
 * the stop of them all, in reverse (each failure logged, none stops the rest).
 */
export async function startInOrder(
  items: readonly Startable[],
  log: Log,
): Promise<(what: string) => Promise<void>> {
  const started: Startable[] = [];
  const stopAll = async (what: string) => {
    for (const s of started.splice(0).reverse())
      await s.stop().catch((e: Error) => log.error({ err: e.message }, what));
  };
  try {
    for (const s of items) {
      await s.start();
      started.push(s);
    }
  } catch (e) {
    await stopAll('error while stopping after a failed start');
    throw e;
  }
  return stopAll;
}
