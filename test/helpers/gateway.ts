import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProfileLibrary } from '../../gateway/src/admin/deviceTransport.ts';
import { parseConfig } from '../../gateway/src/config/load.ts';
import type { Config, ConfigInput } from '../../gateway/src/config/schema.ts';
import { type Gateway, startGateway } from '../../gateway/src/main.ts';
import { type Log, silentLog } from '../../gateway/src/pipeline.ts';
import { hashPassword } from '../../shared/src/password.ts';
import { freePort } from './env.ts';
import { carryViewerToken, forgetGateway, testViewerToken } from './viewerFetch.ts';

/** Password hashes are slow by design; tests share one per password. */
const hashes = new Map<string, string>();
export function testHash(password: string): string {
  let h = hashes.get(password);
  if (!h) {
    h = hashPassword(password, Buffer.alloc(16, 7));
    hashes.set(password, h);
  }
  return h;
}

/** A small valid configuration: a construction site and an alternative system, device passwords `pw-<deviceId>`. */
export function testConfigInput(overrides: Partial<ConfigInput> = {}): ConfigInput {
  return {
    gatewayId: 'test-gw',
    sites: [
      {
        id: 'maple-ridge',
        kind: 'construction',
        devices: [
          { id: 'rg-1', kind: 'rain-gauge', inchesPerTip: 0.01, passwordHash: testHash('pw-rg-1') },
          { id: 'rg-2', kind: 'rain-gauge', inchesPerTip: 0.01, passwordHash: testHash('pw-rg-2') },
          { id: 'trap-1', kind: 'sediment-trap', designDepthIn: 24, passwordHash: testHash('pw-trap-1') },
        ],
      },
      {
        id: 'oak-lane',
        kind: 'alternative-system',
        devices: [
          { id: 'panel-1', kind: 'septic-panel', liquidDepthIn: 60, passwordHash: testHash('pw-panel-1') },
        ],
      },
    ],
    ...overrides,
  };
}

/**
 * Tests record the developer's inspections with the configuration's tokens and accounts: each site that
 * does not list its inspectors acting for the developer (`developerInspectors`) lists every one of them.
 * A site that lists its own (`[]` for none) keeps its list.
 */
function withDeveloperInspectors(input: ConfigInput): ConfigInput {
  const people = [
    ...(input.auth?.tokens ?? []).map((t) => t.name),
    ...(input.auth?.users ?? []).map((u) => u.email),
  ];
  if (people.length === 0) return input;
  return {
    ...input,
    sites: (input.sites ?? []).map((s) =>
      s.developerInspectors === undefined ? { ...s, developerInspectors: people } : s,
    ),
  };
}

export interface TestGateway extends Gateway {
  dataDir: string;
  cleanup(): Promise<void>;
}

/**
 * Starts a real gateway on free loopback ports with a temp data dir; `now` gives it a clock of its own
 * (e.g. the wall clock moved to a day in December), as `startGateway` takes it; `sitesAsGiven` keeps the
 * sites exactly as configured (no inspectors acting for the developer added). Reads need a token (the
 * default): the gateway holds a viewer token the test's `fetch` carries (viewerFetch.ts), unless
 * `viewerToken: false` (a first start with neither account nor token).
 */
export async function startTestGateway(
  overrides: Partial<ConfigInput> = {},
  opts: {
    dataDir?: string;
    log?: Log;
    now?: () => number;
    sitesAsGiven?: boolean;
    viewerToken?: boolean;
    /** The sensor profiles devices may name (default: the library). */
    profiles?: ProfileLibrary;
  } = {},
): Promise<TestGateway> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'gw-test-'));
  const given = testConfigInput(overrides);
  const input = opts.sitesAsGiven ? given : withDeveloperInspectors(given);
  const config: Config = parseConfig({
    ...input,
    dataDir,
    // Every answer a test reads is checked against the API's published schemas.
    http: { port: await freePort(), host: '127.0.0.1', validateResponses: true, ...(input.http ?? {}) },
    mqtt: { port: await freePort(), host: '127.0.0.1', ...(input.mqtt ?? {}) },
    // Reads need a token: the test's own requests carry this viewer's (viewerFetch.ts).
    ...(opts.viewerToken === false
      ? {}
      : { auth: { ...input.auth, tokens: [...(input.auth?.tokens ?? []), testViewerToken] } }),
  });
  const gw = await startGateway(config, {
    log: opts.log ?? silentLog,
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.profiles ? { profiles: opts.profiles } : {}),
  });
  if (opts.viewerToken !== false) carryViewerToken(gw.httpUrl);
  return {
    ...gw,
    dataDir,
    cleanup: async () => {
      forgetGateway(gw.httpUrl);
      await gw.stop();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
