import { rm, symlink, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSerialPort } from '../../../gateway/src/ingest/serial/port.ts';
import { SerialInput, type SerialInputOptions } from '../../../gateway/src/ingest/serial/serialInput.ts';
import { Registry } from '../../../gateway/src/metrics.ts';
import type { IngestResult, IngestSink, Log, RawMessage } from '../../../gateway/src/pipeline.ts';
import { frameWithCrc } from '../../../shared/src/crc16.ts';
import { haveBinary, waitFor } from '../../helpers/env.ts';
import {
  makeTempDir,
  openPtyWriter,
  type PtyPair,
  type PtyWriter,
  startPtyPair,
} from '../../helpers/socat.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Stores what it receives; `gate` lets a test hold the sink to make it slow. */
class RecordingSink implements IngestSink {
  readonly received: RawMessage[] = [];
  gate: Promise<void> | undefined;
  async ingest(msg: RawMessage): Promise<IngestResult> {
    if (this.gate) await this.gate;
    this.received.push(msg);
    return { status: 'ignored' };
  }
  texts(): string[] {
    return this.received.map((m) =>
      typeof m.payload === 'string' ? m.payload : m.payload.toString('latin1'),
    );
  }
}

interface LogEntry {
  level: string;
  obj: object | string;
  msg: string | undefined;
}

function recordingLog(): Log & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at =
    (level: string) =>
    (obj: object | string, msg?: string): void => {
      entries.push({ level, obj, msg });
    };
  return { entries, info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') };
}

const frame = (i: number) =>
  frameWithCrc(JSON.stringify({ siteId: 'maple-ridge', deviceId: 'rg-1', seq: i, rainTips: i }));

describe.skipIf(!haveBinary('socat'))('SerialInput over pseudo-terminals', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.reverse()) await c();
    cleanups.length = 0;
  });

  function makeInput(paths: string[], extra: Partial<SerialInputOptions> = {}) {
    const metrics = new Registry();
    const log = recordingLog();
    const input = new SerialInput({
      ports: paths.map((path) => ({ path, baudRate: 115200, reopenMs: 100 })),
      maxLineBytes: 256,
      metrics,
      log,
      ...extra,
    });
    cleanups.push(() => input.stop());
    return { input, metrics, log };
  }

  async function pair(opts: Parameters<typeof startPtyPair>[0] = {}): Promise<PtyPair> {
    const p = await startPtyPair(opts);
    cleanups.push(() => p.stop());
    return p;
  }

  async function writer(path: string): Promise<PtyWriter> {
    const w = await openPtyWriter(path);
    cleanups.push(() => w.close());
    return w;
  }

  it('hands lines to the sink in order and intact, tolerating \\r\\n, with topic and arrival time', async () => {
    const p = await pair();
    const { input, metrics } = makeInput([p.a]);
    const sink = new RecordingSink();
    const before = Date.now();
    await input.start(sink);
    expect(input.health()).toMatchObject([{ name: `serial:${p.a}`, ok: true, linesRead: 0, reopens: 0 }]);
    expect(metrics.render()).toContain(`gateway_serial_port_open{port="${p.a}"} 1`);

    const w = await writer(p.b);
    await w.write(`${frame(1)}\r\n${frame(2)}\n\r\n\n${frame(3)}\r`);
    await w.write(`\n${frame(4)}\n`);
    await waitFor(() => sink.received.length >= 4, 5000, 'four lines');
    // Time passes and no fifth line comes.
    await sleep(50);
    expect(sink.texts()).toEqual([frame(1), frame(2), frame(3), frame(4)]);
    for (const m of sink.received) {
      expect(m.transport).toBe('serial');
      expect(m.topic).toBe(`serial:${p.a}`);
      expect(m.receivedAt).toBeGreaterThanOrEqual(before);
      expect(m.receivedAt).toBeLessThanOrEqual(Date.now());
    }
    expect(input.health()[0]).toMatchObject({ linesRead: 4 });
    expect(metrics.render()).toContain(`gateway_serial_lines_total{port="${p.a}"} 4`);
  });

  it('delivers a burst of 2,000 lines complete and in order', async () => {
    const p = await pair();
    const { input } = makeInput([p.a]);
    const sink = new RecordingSink();
    await input.start(sink);
    const w = await writer(p.b);
    const expected = Array.from({ length: 2000 }, (_, i) => frame(i));
    await w.write(`${expected.join('\n')}\n`);
    await waitFor(() => sink.received.length >= 2000, 15_000, '2000 lines');
    expect(sink.texts()).toEqual(expected);
  });

  it('pauses the port instead of buffering without bound when the sink is slow, and loses nothing', async () => {
    const p = await pair();
    const maxQueuedLines = 32;
    const { input } = makeInput([p.a], { maxQueuedLines });
    const sink = new RecordingSink();
    let open!: () => void;
    sink.gate = new Promise<void>((r) => {
      open = r;
    });
    await input.start(sink);
    const w = await writer(p.b);
    const expected = Array.from({ length: 3000 }, (_, i) => frame(i));
    const writing = w.write(`${expected.join('\n')}\n`);
    await waitFor(() => String(input.health()[0]?.detail).includes('paused'), 5000, 'the port to pause');
    // Time passes while paused: the queue does not grow past its bound.
    await sleep(300);
    const queued = Number(input.health()[0]?.queued);
    // Lines from the chunk that filled the queue may be queued too: one read is at most 64 KiB (~800 frames).
    expect(queued).toBeGreaterThanOrEqual(maxQueuedLines);
    expect(queued).toBeLessThan(1000);
    expect(Number(input.health()[0]?.linesRead)).toBeLessThan(expected.length);
    sink.gate = undefined;
    open();
    await writing;
    await waitFor(
      () => sink.received.length >= expected.length,
      15_000,
      'all lines after the sink caught up',
    );
    expect(sink.texts()).toEqual(expected);
    expect(input.health()[0]?.detail).toBe('open');
  });

  it('a line of noise and an overlong line do not stop the lines after them', async () => {
    const p = await pair();
    const { input, metrics } = makeInput([p.a], { maxLineBytes: 64 });
    const sink = new RecordingSink();
    await input.start(sink);
    const w = await writer(p.b);
    const noise = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x03, 0x11, 0x13, 0x7b, 0xc3, 0x28, 0x1b]);
    const long = `{"siteId":"maple-ridge","deviceId":"rg-1","x":"${'y'.repeat(5000)}"}`;
    await w.write(Buffer.concat([Buffer.from('{"a":1}\n'), noise, Buffer.from(`\n${long}\n{"b":2}\n`)]));
    await waitFor(() => sink.received.length >= 4, 5000, 'four lines');
    // Time passes and no fifth line comes.
    await sleep(50);
    expect(sink.received).toHaveLength(4);
    const [first, junk, cut, last] = sink.received.map((m) => Buffer.from(m.payload));
    expect(first?.toString()).toBe('{"a":1}');
    expect(junk?.equals(noise)).toBe(true);
    expect(cut?.length).toBe(65);
    expect(cut?.toString()).toBe(long.slice(0, 65));
    expect(last?.toString()).toBe('{"b":2}');
    expect(input.health()[0]).toMatchObject({ ok: true, overlongLines: 1, linesRead: 4 });
    expect(metrics.render()).toContain(`gateway_serial_overlong_lines_total{port="${p.a}"} 1`);
  });

  it('reopens a port that vanished and came back, without restarting the input', async () => {
    const dir = await makeTempDir('serial-reopen-');
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const a = join(dir, 'ttyA');
    const b = join(dir, 'ttyB');
    const p1 = await pair({ a, b });
    const { input, metrics, log } = makeInput([a]);
    const sink = new RecordingSink();
    await input.start(sink);
    const w1 = await openPtyWriter(b);
    await w1.write(`${frame(1)}\n`);
    await waitFor(() => sink.received.length === 1, 5000, 'the first line');
    await w1.close();

    await p1.stop();
    await waitFor(() => input.health()[0]?.ok === false, 5000, 'the port to be seen as lost');
    // Time passes with the port gone: no reopening counted meanwhile.
    await sleep(500);
    const down = input.health()[0];
    expect(down).toMatchObject({ ok: false, reopens: 0 });
    expect(String(down?.detail)).toContain('unavailable');
    expect(down?.lastError).toBeTruthy();
    expect(metrics.render()).toContain(`gateway_serial_port_open{port="${a}"} 0`);
    // Several retries have failed by now (reopenMs 100), but the outage is logged once.
    expect(log.entries.filter((e) => e.level === 'warn')).toHaveLength(1);

    await pair({ a, b });
    await waitFor(() => input.health()[0]?.ok === true, 5000, 'the port to be reopened');
    const w2 = await writer(b);
    await w2.write(`${frame(2)}\n${frame(3)}\n`);
    await waitFor(() => sink.received.length >= 3, 5000, 'lines after the reopen');
    expect(sink.texts()).toEqual([frame(1), frame(2), frame(3)]);
    expect(input.health()[0]).toMatchObject({ ok: true, reopens: 1, detail: 'open', linesRead: 3 });
    expect(metrics.render()).toContain(`gateway_serial_reopens_total{port="${a}"} 1`);
    expect(metrics.render()).toContain(`gateway_serial_port_open{port="${a}"} 1`);
    expect(log.entries.filter((e) => e.level === 'warn')).toHaveLength(1);
  });

  it('a port missing at start is not fatal and becomes readable once it appears', async () => {
    const dir = await makeTempDir('serial-missing-');
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const a = join(dir, 'ttyA');
    const b = join(dir, 'ttyB');
    const other = await pair();
    const { input } = makeInput([a, other.a]);
    const sink = new RecordingSink();
    await input.start(sink);
    const [missing, present] = input.health();
    expect(missing).toMatchObject({ name: `serial:${a}`, ok: false });
    expect(missing?.lastError).toBeTruthy();
    expect(present).toMatchObject({ name: `serial:${other.a}`, ok: true });

    await pair({ a, b });
    await waitFor(() => input.health()[0]?.ok === true, 5000, 'the missing port to open');
    const w = await writer(b);
    await w.write(`${frame(7)}\n`);
    await waitFor(() => sink.received.length === 1, 5000, 'a line from the late port');
    expect(sink.received[0]).toMatchObject({ topic: `serial:${a}`, payload: Buffer.from(frame(7)) });
  });

  it('treats a path that now names a different device as lost and reopens it', async () => {
    const dir = await makeTempDir('serial-relink-');
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const first = await pair();
    const second = await pair();
    const link = join(dir, 'ttyUSB0');
    await symlink(first.a, link);
    const { input } = makeInput([link]);
    const sink = new RecordingSink();
    await input.start(sink);
    const w1 = await writer(first.b);
    await w1.write('one\n');
    await waitFor(() => sink.received.length === 1, 5000, 'a line from the first device');

    await unlink(link);
    await symlink(second.a, link);
    await waitFor(() => input.health()[0]?.reopens === 1, 5000, 'the reopen onto the second device');
    const w2 = await writer(second.b);
    await w2.write('two\n');
    await waitFor(() => sink.received.length === 2, 5000, 'a line from the second device');
    expect(sink.texts()).toEqual(['one', 'two']);
    expect(String(input.health()[0]?.lastError)).toContain('different device');
  });

  it('stop() closes the ports, cancels retries and reads nothing more', async () => {
    const p = await pair();
    const dir = await makeTempDir('serial-stop-');
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const missing = join(dir, 'never');
    let opens = 0;
    const { input, metrics } = makeInput([p.a, missing], {
      openPort: (o) => {
        opens++;
        return openSerialPort(o);
      },
    });
    const sink = new RecordingSink();
    await input.start(sink);
    const w = await writer(p.b);
    await w.write(`${frame(1)}\n`);
    await waitFor(() => sink.received.length === 1, 5000, 'the first line');

    await input.stop();
    expect(input.health().map((h) => [h.ok, h.detail])).toEqual([
      [false, 'stopped'],
      [false, 'stopped'],
    ]);
    expect(metrics.render()).toContain(`gateway_serial_port_open{port="${p.a}"} 0`);
    const opensAtStop = opens;
    await w.write(`${frame(2)}\n`);
    // Stopped: time passes and nothing is read or opened.
    await sleep(400);
    expect(sink.received).toHaveLength(1);
    expect(opens).toBe(opensAtStop);
    await input.stop();
  });
});
