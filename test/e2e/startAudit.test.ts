/**
 * The gateway listens at once whatever the store's size: on a store of 125,000 entries (built through the
 * store's own API, with a signed checkpoint every 100 entries as a running gateway leaves them) the
 * gateway's own process, run as `npm start` runs it (the bundle), answers /api/health within 5 s of spawn
 * (or, on a machine too loaded for that, within twice the time it needs on an empty store) with
 * the evidence log "auditing"; it takes and acknowledges a reading while it audits; and the audit finishes
 * later, green, having checked every entry.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBigStore } from '../helpers/bigStore.ts';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { waitFor } from '../helpers/env.ts';
import { device, publishOutcome, T } from '../helpers/faults.ts';
import { testConfigInput } from '../helpers/gateway.ts';

const ROOT = join(import.meta.dirname, '../..');
const ENTRIES = 125_000;

interface Component {
  name: string;
  ok: boolean;
  detail?: string;
  audit?: string;
  audited?: number;
  size?: number;
  readings?: number;
}

const components = async (gw: GatewayChild) =>
  ((await (await fetch(`${gw.httpUrl}/api/health`)).json()) as { components: Component[] }).components;
const evidenceOf = async (gw: GatewayChild) => (await components(gw)).find((c) => c.name === 'evidence')!;

/** Spawns the gateway and times its first answer on /api/health; returns it with that answer. */
async function spawnTimed(dataDir: string): Promise<{ gw: GatewayChild; ms: number; first: Component }> {
  const t0 = performance.now();
  const gw = await startGatewayChild(testConfigInput() as never, { dataDir, bundle: true, waitReady: false });
  const first = await waitFor(
    async () => {
      if (!gw.alive()) throw new Error(`the gateway exited: ${gw.output().slice(-2000)}`);
      return evidenceOf(gw);
    },
    120_000,
    'the gateway to answer',
  );
  return { gw, ms: performance.now() - t0, first };
}

describe('a gateway on a store of 125,000 entries', () => {
  const base = mkdtempSync(join(tmpdir(), 'start-audit-'));
  let baselineMs = 0;
  beforeAll(async () => {
    // The bundle `npm start` runs.
    await promisify(execFile)('npx', ['tsx', 'gateway/build/build.ts'], { cwd: ROOT });
    const built = buildBigStore(join(base, 'big'), { readings: ENTRIES });
    expect(built.entries).toBe(ENTRIES);
    // The same start on an empty store: what this machine needs to start the gateway at all.
    const empty = await spawnTimed(join(base, 'empty'));
    baselineMs = empty.ms;
    await empty.gw.stop();
  }, 300_000);
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('answers "auditing" within 5 s of spawn, takes readings meanwhile, and finishes the audit later', async () => {
    const { gw, ms, first } = await spawnTimed(join(base, 'big'));
    try {
      expect(first.size).toBeGreaterThanOrEqual(ENTRIES);
      expect(first.audit, first.detail).toBe('auditing');
      expect(first.ok).toBe(true);
      expect(first.detail).toMatch(/^auditing the store against its evidence log: [\d,]+ of [\d,]+ entries/);
      // 5 s, or on a machine too loaded for that, no more than twice what an empty store takes here.
      expect(
        ms,
        `listened after ${Math.round(ms)} ms (empty store: ${Math.round(baselineMs)} ms)`,
      ).toBeLessThan(Math.max(5000, 2 * baselineMs));

      // A reading is taken, acknowledged and stored while the audit runs.
      const storedBefore = (await components(gw)).find((c) => c.name === 'store')!.readings!;
      const c = await device(gw.mqttUrl, 'rg-2');
      const outcome = await publishOutcome(
        c,
        T('rg-2'),
        JSON.stringify({ seq: 1, ts: Date.now() - 60_000, rainTips: 0 }),
      );
      await c.endAsync();
      expect(outcome).toBe('acknowledged');
      const during = await components(gw);
      expect(during.find((x) => x.name === 'evidence')!.audit).toBe('auditing');
      expect(during.find((x) => x.name === 'store')!.readings).toBe(storedBefore + 1);

      const done = await waitFor(
        async () => {
          const e = await evidenceOf(gw);
          return e.audit === 'done' ? e : undefined;
        },
        240_000,
        'the audit to finish',
      );
      expect(done.ok, done.detail).toBe(true);
      // Every entry of the log as it was when the audit began (entries appended since are the gateway's own).
      const atStart = Number(/of ([\d,]+) entries/.exec(first.detail ?? '')![1]!.replace(/,/g, ''));
      expect(atStart).toBeGreaterThanOrEqual(ENTRIES);
      expect(done.audited).toBe(atStart);
      expect(done.detail).toMatch(/^the store matches its evidence log/);
    } finally {
      await gw.stop();
    }
  }, 360_000);
});
