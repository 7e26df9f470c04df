import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { SerialPortLike } from '../../../gateway/src/ingest/serial/port.ts';
import { SerialInput } from '../../../gateway/src/ingest/serial/serialInput.ts';
import { Registry } from '../../../gateway/src/metrics.ts';
import type { IngestResult, IngestSink, RawMessage } from '../../../gateway/src/pipeline.ts';
import { silentLog } from '../../../gateway/src/pipeline.ts';
import { waitFor } from '../../helpers/env.ts';

/** A port that opens at once and emits whatever the test pushes into it. */
class FakePort extends EventEmitter implements SerialPortLike {
  isOpen = false;
  paused = false;
  open(cb: (err: Error | null) => void): void {
    this.isOpen = true;
    queueMicrotask(() => cb(null));
  }
  close(cb: (err: Error | null) => void): void {
    this.isOpen = false;
    queueMicrotask(() => cb(null));
  }
  pause(): this {
    this.paused = true;
    return this;
  }
  resume(): this {
    this.paused = false;
    return this;
  }
}

describe('SerialInput with an injected port', () => {
  it('keeps going when the sink throws, counting the failure', async () => {
    const port = new FakePort();
    const metrics = new Registry();
    const input = new SerialInput({
      ports: [{ path: '/dev/fake0', baudRate: 9600, reopenMs: 1000 }],
      maxLineBytes: 100,
      metrics,
      log: silentLog,
      now: () => 1234,
      openPort: () => port,
    });
    const seen: RawMessage[] = [];
    const sink: IngestSink = {
      async ingest(msg): Promise<IngestResult> {
        seen.push(msg);
        if (String(msg.payload) === 'boom') throw new Error('store failed');
        return { status: 'ignored' };
      },
    };
    await input.start(sink);
    port.emit('data', Buffer.from('first\nboom\nlast\n'));
    await waitFor(() => seen.length === 3, 2000, 'three lines');
    expect(seen.map((m) => String(m.payload))).toEqual(['first', 'boom', 'last']);
    expect(seen[0]).toMatchObject({ transport: 'serial', topic: 'serial:/dev/fake0', receivedAt: 1234 });
    expect(metrics.render()).toContain('gateway_serial_ingest_errors_total{port="/dev/fake0"} 1');
    await input.stop();
    expect(port.isOpen).toBe(false);
  });

  it('hands on the unfinished line when the port is lost, then retries', async () => {
    const ports: FakePort[] = [];
    const input = new SerialInput({
      ports: [{ path: '/dev/fake1', baudRate: 9600, reopenMs: 20 }],
      maxLineBytes: 100,
      metrics: new Registry(),
      log: silentLog,
      openPort: () => {
        const p = new FakePort();
        ports.push(p);
        return p;
      },
    });
    const seen: string[] = [];
    await input.start({
      async ingest(msg) {
        seen.push(String(msg.payload));
        return { status: 'ignored' };
      },
    });
    ports[0]!.emit('data', Buffer.from('whole\n{"cut'));
    ports[0]!.isOpen = false;
    ports[0]!.emit('close', new Error('disconnected'));
    await waitFor(() => input.health()[0]?.reopens === 1, 2000, 'the reopen');
    expect(seen).toEqual(['whole', '{"cut']);
    expect(ports).toHaveLength(2);
    ports[1]!.emit('data', Buffer.from('again\n'));
    await waitFor(() => seen.length === 3, 2000, 'a line after the reopen');
    expect(seen[2]).toBe('again');
    await input.stop();
  });

  it('stop() waits for queued lines only up to stopDrainMs when the sink hangs', async () => {
    const port = new FakePort();
    const warnings: string[] = [];
    const input = new SerialInput({
      ports: [{ path: '/dev/fake2', baudRate: 9600, reopenMs: 1000 }],
      maxLineBytes: 100,
      metrics: new Registry(),
      log: { ...silentLog, warn: (_o, msg) => warnings.push(String(msg)) },
      openPort: () => port,
      stopDrainMs: 50,
    });
    let calls = 0;
    await input.start({
      ingest: () => {
        calls++;
        return new Promise<IngestResult>(() => {});
      },
    });
    port.emit('data', Buffer.from('a\nb\nc\n'));
    await waitFor(() => calls === 1, 2000, 'the first ingest');
    const t0 = Date.now();
    await input.stop();
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(input.health()[0]).toMatchObject({ ok: false, detail: 'stopped', queued: 0 });
    expect(warnings.some((w) => w.includes('dropped'))).toBe(true);
    expect(calls).toBe(1);
  });

  it('refuses a port configured twice', () => {
    const port = { path: '/dev/x', baudRate: 9600, reopenMs: 100 };
    expect(
      () =>
        new SerialInput({ ports: [port, port], maxLineBytes: 10, metrics: new Registry(), log: silentLog }),
    ).toThrow(/twice/);
  });
});
