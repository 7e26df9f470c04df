import type { Registry } from '../../metrics.ts';
import type { ComponentHealth, IngestSink, Input, Log } from '../../pipeline.ts';
import { type OpenPort, openSerialPort, type SerialPortConfig } from './port.ts';
import { PortReader, type SerialMetrics } from './portReader.ts';

export interface SerialInputOptions {
  ports: SerialPortConfig[];
  /**
   * Longest line handed on intact, in bytes, without the `\n` (and a trailing `\r`). A longer line is
   * cut to its first `maxLineBytes + 1` bytes, handed on so the sink rejects and counts it as
   * oversize, and the rest of it up to the next `\n` is discarded.
   */
  maxLineBytes: number;
  metrics: Registry;
  log: Log;
  now?: () => number;
  /** Port factory; defaults to serialport's SerialPort (opened by path, never by listing). */
  openPort?: OpenPort;
  /** Lines waiting for the sink, per port, before the port is paused until half of them are taken. Default 256. */
  maxQueuedLines?: number;
  /** How long stop() waits for lines already read to reach the sink before dropping them. Default 5000 ms. */
  stopDrainMs?: number;
}

/**
 * Reads newline-terminated frames from serial ports and hands each line, undecoded, to the sink as
 * `{ transport: 'serial', topic: 'serial:<path>', payload: <Buffer of the line> }`. Decoding, the CRC
 * suffix and validation are the sink's. Ports that are missing or lost are retried every `reopenMs`.
 */
export class SerialInput implements Input {
  readonly name = 'serial';
  private readonly readers: PortReader[];
  private readonly stopDrainMs: number;
  private started = false;

  constructor(opts: SerialInputOptions) {
    const now = opts.now ?? Date.now;
    const openPort = opts.openPort ?? openSerialPort;
    const maxQueued = Math.max(2, opts.maxQueuedLines ?? 256);
    this.stopDrainMs = opts.stopDrainMs ?? 5000;
    const m: SerialMetrics = {
      lines: opts.metrics.counter('gateway_serial_lines_total', 'Lines read from serial ports'),
      reopens: opts.metrics.counter(
        'gateway_serial_reopens_total',
        'Times a serial port was opened again after it was lost',
      ),
      open: opts.metrics.gauge('gateway_serial_port_open', 'Whether a serial port is open (1) or not (0)'),
      overlong: opts.metrics.counter(
        'gateway_serial_overlong_lines_total',
        'Serial lines longer than the limit, truncated before the sink rejected them',
      ),
      ingestErrors: opts.metrics.counter(
        'gateway_serial_ingest_errors_total',
        'Serial lines the sink failed on with an error (not a rejection)',
      ),
    };
    const seen = new Set<string>();
    for (const p of opts.ports) {
      if (seen.has(p.path)) throw new Error(`serial port ${p.path} is configured twice`);
      seen.add(p.path);
    }
    this.readers = opts.ports.map(
      (p) => new PortReader(p, opts.maxLineBytes, maxQueued, m, opts.log, now, openPort),
    );
  }

  /** Opens every port. A port that cannot be opened is not an error: it is reported in health and retried. */
  async start(sink: IngestSink): Promise<void> {
    if (this.started) throw new Error('serial input already started');
    this.started = true;
    await Promise.all(this.readers.map((r) => r.start(sink)));
  }

  async stop(): Promise<void> {
    await Promise.all(this.readers.map((r) => r.stop(this.stopDrainMs)));
  }

  health(): ComponentHealth[] {
    return this.readers.map((r) => r.health());
  }
}
