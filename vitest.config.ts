import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration suites start real servers on loopback ports; two workers match the 2-core machine.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
