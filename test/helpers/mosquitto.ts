/**
 * Starts a real Mosquitto broker for a test: loopback only, its own temp dir for the config,
 * the persistence file (so QoS 1 sessions and queued messages survive a restart) and the log.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort, IN_CI, waitFor, which } from './env.ts';

const SBIN_DIRS = ['/usr/sbin', '/usr/local/sbin', '/usr/bin', '/usr/local/bin', '/opt/homebrew/sbin'];

/** The path of a Mosquitto program (`mosquitto`, `mosquitto_pub`, ...): on PATH, or in the usual sbin dirs. */
export function mosquittoProgram(name: string): string | undefined {
  return which(name) ?? SBIN_DIRS.map((d) => join(d, name)).find((p) => existsSync(p));
}

/**
 * Whether the Mosquitto suites may run: the broker and `mosquitto_pub` are installed. Outside CI a
 * missing program skips the suite; in CI (CI=true) it is a failure.
 */
export function haveMosquitto(programs: string[] = ['mosquitto', 'mosquitto_pub']): boolean {
  const missing = programs.filter((p) => mosquittoProgram(p) === undefined);
  if (missing.length > 0 && IN_CI)
    throw new Error(`${missing.join(', ')} required in CI but not installed (see .ci/run)`);
  return missing.length === 0;
}

export interface MosquittoOptions {
  port?: number;
  /** Logins; when given, anonymous access is off and a password file is written with `mosquitto_passwd`. */
  users?: Record<string, string>;
  /** Serve MQTT over TLS on the port (PEM files); the url becomes mqtts://. */
  tls?: { certFile: string; keyFile: string };
  /** Extra mosquitto.conf lines. */
  extraConfig?: string[];
}

export interface Mosquitto {
  url: string;
  port: number;
  dir: string;
  /** Stops the broker (SIGTERM: it saves its persistence file) and removes the temp dir. */
  stop(): Promise<void>;
  /**
   * Stops the broker with `signal` and starts it again on the same port with the same persistence
   * dir; `clearPersistence` deletes the saved state first (a broker that lost every session).
   */
  restart(opts?: { signal?: NodeJS.Signals; downMs?: number; clearPersistence?: boolean }): Promise<void>;
  /** The broker's log so far. */
  log(): string;
  /**
   * Resolves after the broker has written its persistence file anew (the save is complete: the
   * file is renamed into place), i.e. everything it had acknowledged before the call is on disk.
   */
  saved(timeoutMs?: number): Promise<void>;
}

function waitListening(port: number, proc: ChildProcess, logFile: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (proc.exitCode !== null || proc.signalCode !== null) {
        const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-2000) : '';
        reject(
          new Error(`mosquitto exited (${proc.exitCode ?? proc.signalCode}) before listening:\n${tail}`),
        );
        return;
      }
      const sock = connect({ port, host: '127.0.0.1' });
      sock.once('connect', () => {
        sock.destroy();
        resolve();
      });
      sock.once('error', () => {
        sock.destroy();
        if (Date.now() > end)
          reject(new Error(`mosquitto did not listen on port ${port} within ${timeoutMs} ms`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

function exited(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => proc.once('exit', () => resolve()));
}

export async function start(opts: MosquittoOptions = {}): Promise<Mosquitto> {
  const bin = mosquittoProgram('mosquitto');
  if (!bin) throw new Error('mosquitto is not installed');
  const port = opts.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'mosquitto-'));
  const logFile = join(dir, 'mosquitto.log');
  const conf = [
    `listener ${port} 127.0.0.1`,
    'persistence true',
    `persistence_location ${dir}/`,
    'persistence_file mosquitto.db',
    'autosave_interval 1',
    'max_queued_messages 0',
    `log_dest file ${logFile}`,
    'log_type error',
    'log_type warning',
    'log_type notice',
    'log_type information',
    'connection_messages true',
  ];
  if (opts.tls) conf.push(`certfile ${opts.tls.certFile}`, `keyfile ${opts.tls.keyFile}`);
  if (opts.users) {
    const passwd = mosquittoProgram('mosquitto_passwd');
    if (!passwd) throw new Error('mosquitto_passwd is not installed');
    const file = join(dir, 'passwd');
    writeFileSync(file, '', { mode: 0o600 });
    for (const [user, pass] of Object.entries(opts.users)) execFileSync(passwd, ['-b', file, user, pass]);
    conf.push('allow_anonymous false', `password_file ${file}`);
  } else {
    conf.push('allow_anonymous true');
  }
  if (process.getuid?.() === 0) conf.push(`user ${userInfo().username}`);
  conf.push(...(opts.extraConfig ?? []));
  const confFile = join(dir, 'mosquitto.conf');
  writeFileSync(confFile, `${conf.join('\n')}\n`);

  let proc: ChildProcess;
  const launch = async () => {
    proc = spawn(bin, ['-c', confFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    try {
      await waitListening(port, proc, logFile);
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${stderr}`);
    }
  };
  const kill = async (signal: NodeJS.Signals) => {
    const p = proc;
    if (p.exitCode !== null || p.signalCode !== null) return;
    const done = exited(p);
    p.kill(signal);
    const timer = setTimeout(() => p.kill('SIGKILL'), 5000);
    await done;
    clearTimeout(timer);
  };
  await launch();
  return {
    url: `${opts.tls ? 'mqtts' : 'mqtt'}://127.0.0.1:${port}`,
    port,
    dir,
    async stop() {
      await kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
    async restart({ signal = 'SIGTERM', downMs = 0, clearPersistence = false } = {}) {
      await kill(signal);
      if (clearPersistence) rmSync(join(dir, 'mosquitto.db'), { force: true });
      // Down for downMs: the time the broker is away is the point.
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
      await launch();
    },
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
    async saved(timeoutMs = 5000) {
      const dbFile = join(dir, 'mosquitto.db');
      const stamp = () => {
        if (!existsSync(dbFile)) return '';
        const st = statSync(dbFile, { bigint: true });
        return `${st.ino}:${st.mtimeNs}:${st.size}`;
      };
      const before = stamp();
      await waitFor(() => stamp() !== before && stamp() !== '', timeoutMs, 'mosquitto to save its database');
    },
  };
}
