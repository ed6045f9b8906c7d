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
    // A worker keeps the modules it imported for its next file instead of importing src/ again for
    // each of the 136 (a quarter of the suite's time). Files share no state: each starts its own
    // app on its own database, and spies are restored by the files that set them.
    isolate: false,
    // Generous: CLI tests spawn the real binary and browser tests drive Chromium; on a loaded 2-core
    // machine one spawn can take seconds. Tests wait on state, so a long limit only costs time on failure.
    testTimeout: 90_000,
    hookTimeout: 90_000,
    // `expect.poll` waits on state: it returns as soon as the state is reached, so a long limit
    // only costs time on failure. Vitest's default (1 s) failed a dashboard test on a busy machine
    // whose page took longer than that to load its messages.
    expect: { poll: { timeout: 20_000 } },
  },
});
