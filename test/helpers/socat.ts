import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SerialPort } from 'serialport';
import { waitFor } from './env.ts';

/** A pseudo-terminal pair made by socat: bytes written into one end come out of the other. */
export interface PtyPair {
  /** The end the code under test opens (a symlink to a /dev/pts/N). */
  readonly a: string;
  /** The end a test or the device simulator writes into. */
  readonly b: string;
  readonly pid: number;
  /** Kills socat and waits until it has exited and both links are gone. Idempotent. */
  stop(): Promise<void>;
}

export interface PtyPairOptions {
  /** Link paths; both default to files in `dir`. Pass the same paths again to recreate a pair that was stopped. */
  a?: string;
  b?: string;
  /** Directory for the default links; a fresh temp dir (removed by stop()) when neither it nor the paths are given. */
  dir?: string;
  timeoutMs?: number;
}

/** A temp directory for link paths that must outlive one pair (e.g. to recreate it); remove it with `rm`. */
export function makeTempDir(prefix = 'pty-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Starts `socat pty,raw,echo=0,link=A pty,raw,echo=0,link=B` and waits until both links exist. */
export async function startPtyPair(opts: PtyPairOptions = {}): Promise<PtyPair> {
  let ownDir: string | undefined;
  let dir = opts.dir;
  if (dir === undefined && (opts.a === undefined || opts.b === undefined)) {
    ownDir = await makeTempDir();
    dir = ownDir;
  }
  const a = opts.a ?? join(dir!, 'A');
  const b = opts.b ?? join(dir!, 'B');
  const child: ChildProcess = spawn('socat', [`pty,raw,echo=0,link=${a}`, `pty,raw,echo=0,link=${b}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (d: string) => {
    stderr += d;
  });
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      resolve();
    });
    child.once('error', (e) => {
      stderr += String(e);
      exited = true;
      resolve();
    });
  });
  const stop = async (): Promise<void> => {
    if (!exited) child.kill('SIGTERM');
    await exit;
    for (const link of [a, b]) {
      if (existsSync(link)) await unlink(link);
    }
    if (ownDir) await rm(ownDir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      () => {
        if (exited) throw new Error(`socat exited: ${stderr.trim()}`);
        return existsSync(a) && existsSync(b);
      },
      opts.timeoutMs ?? 5000,
      `socat links ${a} and ${b}`,
    );
  } catch (e) {
    await stop();
    throw e;
  }
  return { a, b, pid: child.pid!, stop };
}

export interface PtyWriter {
  write(data: string | Buffer): Promise<void>;
  close(): Promise<void>;
  /** The last error the port emitted outside a write or close, if any. */
  readonly lastError: Error | undefined;
}

/** Opens a pty end for writing, as a device would (non-blocking, through serialport). */
export async function openPtyWriter(path: string): Promise<PtyWriter> {
  const port = new SerialPort({ path, baudRate: 9600, autoOpen: false });
  let lastError: Error | undefined;
  // Errors also reach the write and close callbacks; this listener only keeps a late one from crashing the test.
  port.on('error', (err) => {
    lastError = err;
  });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  return {
    get lastError() {
      return lastError;
    },
    write: (data) =>
      new Promise<void>((resolve, reject) => {
        port.write(data, (err) => {
          if (err) reject(err);
          else port.drain((e) => (e ? reject(e) : resolve()));
        });
      }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (!port.isOpen) {
          resolve();
          return;
        }
        port.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
