import { configDefaults, defineConfig } from 'vitest/config';

/** Suites that start many gateway processes one after another: run after the rest, on their own. */
const ALONE = ['test/e2e/replay.test.ts'];

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
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ALONE],
          sequence: { groupOrder: 0 },
        },
      },
      // The gateway killed and started again 20 times: alone, so no other suite's start-up competes with it.
      { extends: true, test: { name: 'alone', include: ALONE, sequence: { groupOrder: 1 } } },
    ],
  },
});
