import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const IN_CI = process.env.CI === 'true';

/** The absolute path of an installed program, or undefined. */
export function which(bin: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a suite that needs `bin` may run. Outside CI a missing program skips the suite;
 * in CI (CI=true) it is a failure, never a silent skip.
 */
export function haveBinary(bin: string): boolean {
  const found = which(bin) !== undefined;
  if (!found && IN_CI) throw new Error(`${bin} is required in CI but is not installed (see .ci/run)`);
  return found;
}

/**
 * The kernel's ephemeral range (the source ports of outgoing connections): a port taken from it is
 * free when picked, but the next connection any test opens may be given it as its own source port
 * before the server that was to listen on it binds it, and that server then fails with EADDRINUSE.
 */
function ephemeralRange(): [number, number] {
  try {
    const [lo, hi] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    if (lo && hi) return [lo, hi];
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  return [32768, 60999];
}

const [EPHEMERAL_LO, EPHEMERAL_HI] = ephemeralRange();
/** Where the tests' servers listen: below the ephemeral range when there is room, else above it. */
const PICK =
  EPHEMERAL_LO - 1 >= 20_000 ? { lo: 20_000, hi: EPHEMERAL_LO - 1 } : { lo: EPHEMERAL_HI + 1, hi: 65_535 };

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A free TCP port on the loopback interface, outside the kernel's ephemeral range (so no outgoing
 * connection is given it before its server binds it), picked at random and checked by binding it.
 */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = PICK.lo + Math.floor(Math.random() * (PICK.hi - PICK.lo + 1));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${PICK.lo} and ${PICK.hi} after 200 tries`);
}

/** Polls `check` (every `everyMs`) until it returns a truthy value or the timeout passes. */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  timeoutMs = 10_000,
  what = 'condition',
  everyMs = 25,
): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await check();
      if (v) return v as NonNullable<T>;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

/** The real rain-gauge logger records the tests use, kept in the repository (`test/fixtures/rain`). */
export const RAIN_DIR = join(import.meta.dirname, '../fixtures/rain');
