import { execFileSync } from 'node:child_process';
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

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Polls `check` until it returns a truthy value or the timeout passes. */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  timeoutMs = 10_000,
  what = 'condition',
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
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

/** The real rain-gauge logger records the tests use, kept in the repository (`test/fixtures/rain`). */
export const RAIN_DIR = join(import.meta.dirname, '../fixtures/rain');
