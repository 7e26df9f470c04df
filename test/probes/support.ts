/**
 * What the fault probes share: a gateway run as its own process the way `npm start` runs it (tsx, the
 * same heap limits), from the checkout named by PROBE_ROOT (default this one), so the same probe measures
 * an older release and this one; and the figures it prints.
 */
import { join } from 'node:path';
import { hashPassword } from '../../shared/src/password.ts';
import { type ChildOptions, type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { freePort, waitFor } from '../helpers/env.ts';

export const ROOT = process.env.PROBE_ROOT ?? join(import.meta.dirname, '../..');
/** Whether the probed checkout is this one (configuration keys of this release may be used). */
export const THIS_RELEASE = ROOT === join(import.meta.dirname, '../..');

const hashes = new Map<string, string>();
export function hash(pw: string): string {
  const h = hashes.get(pw) ?? hashPassword(pw, Buffer.alloc(16, 7));
  hashes.set(pw, h);
  return h;
}

export const T = (dev: string, site = 'maple-ridge') => `sites/${site}/devices/${dev}/telemetry`;
export const S = (dev: string, site = 'maple-ridge') => `sites/${site}/devices/${dev}/status`;

/** A site with rain gauges rg-1..rg-n (passwords pw-rg-N) and a trap. */
export function baseConfig(extra: Record<string, unknown> = {}, gauges = 3): Record<string, unknown> {
  return {
    gatewayId: 'probe',
    sites: [
      {
        id: 'maple-ridge',
        kind: 'construction',
        devices: [
          ...Array.from({ length: gauges }, (_, i) => ({
            id: `rg-${i + 1}`,
            kind: 'rain-gauge',
            inchesPerTip: 0.01,
            passwordHash: hash(`pw-rg-${i + 1}`),
          })),
          { id: 'trap-1', kind: 'sediment-trap', designDepthIn: 24, passwordHash: hash('pw-trap-1') },
        ],
      },
    ],
    ...extra,
  };
}

export type Child = GatewayChild;

/** Starts the gateway as `npm start` does, from the checkout PROBE_ROOT names. */
export const startChild = (config: Record<string, unknown>, opts: ChildOptions = {}) =>
  startGatewayChild(config, { root: ROOT, ...opts });

/** Prints one probe's figures as a JSON line (and keeps them for the caller). */
export function report(name: string, figures: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ probe: name, root: ROOT, ...figures })}\n`);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Counts rows of the store in a data directory (read-only). */
export async function sqlCount(dataDir: string, sql: string): Promise<number> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(join(dataDir, 'gateway.db'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(sql).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

export { freePort, waitFor };
