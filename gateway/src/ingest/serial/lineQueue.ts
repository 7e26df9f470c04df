import type { Counter } from '../../metrics.ts';
import type { IngestSink, Log } from '../../pipeline.ts';
import { within } from '../wait.ts';
import { errMessage, type SerialPortLike } from './port.ts';

interface Queued {
  payload: Buffer;
  receivedAt: number;
}

/**
 * The lines read from one port on their way to the sink: handed over one at a time, in order. When
 * `maxQueued` lines wait, the port is paused until half of them are taken, so a slow sink slows the
 * port instead of filling memory. Lines read before a port was lost are still handed on.
 */
export class LineQueue {
  private readonly queue: Queued[] = [];
  private sink: IngestSink | undefined;
  /** The open port, paused and resumed by the queue; undefined while none is open. */
  private port: SerialPortLike | undefined;
  private paused = false;
  private stopped = false;
  private pumping: Promise<void> | undefined;
  private readonly labels: { port: string };

  constructor(
    private readonly path: string,
    private readonly maxQueued: number,
    private readonly ingestErrors: Counter,
    private readonly log: Log,
  ) {
    this.labels = { port: path };
  }

  deliverTo(sink: IngestSink): void {
    this.sink = sink;
  }

  get length(): number {
    return this.queue.length;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /** A port is open: lines come from it now. Lines still queued from before pause it if they are many. */
  attach(port: SerialPortLike): void {
    this.port = port;
    this.paused = false;
    if (this.queue.length >= this.maxQueued) this.pause();
  }

  /** The port is gone. */
  detach(): void {
    this.port = undefined;
    this.paused = false;
  }

  push(payload: Buffer, receivedAt: number): void {
    this.queue.push({ payload, receivedAt });
  }

  /** After lines were pushed: pauses the port if too many wait, and hands them on. */
  flow(): void {
    if (this.queue.length >= this.maxQueued) this.pause();
    this.pump();
  }

  /** Stopping: the port is resumed no more. */
  halt(): void {
    this.stopped = true;
  }

  /** Waits at most `ms` for the lines queued to reach the sink; drops the rest with a warning. */
  async drain(ms: number): Promise<void> {
    if (!this.pumping || (await within(this.pumping, ms))) return;
    const dropped = this.queue.length;
    this.queue.length = 0;
    this.log.warn({ port: this.path, dropped }, 'sink too slow at shutdown; queued serial lines dropped');
  }

  private pause(): void {
    if (this.paused || !this.port) return;
    this.paused = true;
    this.port.pause();
  }

  private maybeResume(): void {
    if (!this.paused || this.queue.length > this.maxQueued / 2) return;
    this.paused = false;
    if (this.port && !this.stopped) this.port.resume();
  }

  /** Hands queued lines to the sink one at a time, in order; one pump per port at a time. */
  private pump(): void {
    if (this.pumping || !this.sink) return;
    const sink = this.sink;
    this.pumping = (async () => {
      while (this.queue.length > 0) {
        const item = this.queue.shift()!;
        try {
          await sink.ingest({
            transport: 'serial',
            topic: `serial:${this.path}`,
            payload: item.payload,
            receivedAt: item.receivedAt,
          });
        } catch (e) {
          this.ingestErrors.inc(this.labels);
          this.log.error({ port: this.path, err: errMessage(e) }, 'sink failed to ingest a serial line');
        }
        this.maybeResume();
      }
    })().finally(() => {
      this.pumping = undefined;
    });
  }
}
