import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Storage suites create their own PostgreSQL databases. Three workers on two cores: much of the
    // suite waits (browsers, spawned servers, timers), so a third file runs in that time. From the
    // first file's start to the last one's end, on one 2-core machine: 497 s with two, 399 s with
    // three, 486 s with four.
    pool: 'forks',
    maxWorkers: 3,
    // Generous: CLI tests spawn the real binary and browser tests drive Chromium; on a loaded 2-core
    // machine one spawn can take seconds. Tests wait on state, so a long limit only costs time on failure.
    testTimeout: 90_000,
    hookTimeout: 90_000,
  },
});
