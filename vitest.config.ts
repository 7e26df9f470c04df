import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Two lanes. `npm test` runs the fast one (project `fast`): logic, the store, the engine, the API and the
 * gateway in-process, a few minutes on a 2-core machine. `npm run test:e2e` runs the rest (projects `e2e`
 * and `alone`): what drives a real browser, starts gateway processes or real servers (Mosquitto, InfluxDB,
 * VictoriaMetrics, NATS, Prometheus), the soaks' short forms and the fuzzers. A test file is in the e2e lane
 * when its folder says so or its name ends in `.e2e.test.ts`; every other test file is in the fast lane.
 * test/structure/lanes.test.ts checks that each test file is in exactly one lane.
 */
export const E2E = [
  'test/e2e/**/*.test.ts',
  // Chromium drives the dashboard.
  'test/dashboard/**/*.test.ts',
  'test/soak/**/*.test.ts',
  'test/fuzz/**/*.test.ts',
  // Grafana, Home Assistant, Prometheus and the compose file against real servers.
  'test/integrations/**/*.test.ts',
  // Anywhere else: a test against real programs that takes seconds says so in its name.
  'test/**/*.e2e.test.ts',
];

/**
 * Run after the rest, one file at a time: the suite that starts many gateway processes one after another
 * (its 20 restarts competed with other suites' start-ups), and the one whose promise is a time (how long
 * an import may hold the event loop: on a machine shared with another worker's gateways and browsers its
 * measure says more of the machine than of the gateway).
 */
export const ALONE = ['test/e2e/replay.test.ts', 'test/e2e/absurd.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration suites start real servers on loopback ports; two workers match the 2-core machine.
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...E2E],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: E2E,
          exclude: [...configDefaults.exclude, ...ALONE],
          sequence: { groupOrder: 0 },
        },
      },
      // After the rest, one file at a time, so no other suite competes with them.
      {
        extends: true,
        test: { name: 'alone', include: ALONE, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
