import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Storage suites create their own PostgreSQL databases; two workers match the machine's cores.
    pool: 'forks',
    maxWorkers: 2,
    // Generous: CLI tests spawn the real binary and browser tests drive Chromium; on a loaded 2-core
    // machine one spawn can take seconds. Tests wait on state, so a long limit only costs time on failure.
    testTimeout: 90_000,
    hookTimeout: 90_000,
  },
});
