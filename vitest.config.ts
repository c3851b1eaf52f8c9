import { defineConfig } from 'vitest/config';

/**
 * The suite runs once per store engine: every test that touches a store runs on SQLite and on
 * PostgreSQL alike, the engine chosen by `MNEMO_TEST_ENGINE` (README, "Tests on PostgreSQL and
 * Redis"). PostgreSQL needs a server: `MNEMO_TEST_POSTGRES_URL` names one whose
 * databases the tests may create (each test store is a database of its own). Without it the
 * PostgreSQL project is left out, and said so; CI always sets it, so there a missing server
 * fails the run instead of passing unseen.
 */
const postgresUrl = process.env.MNEMO_TEST_POSTGRES_URL;
if (!postgresUrl) {
  process.stderr.write(
    'mnemo tests: MNEMO_TEST_POSTGRES_URL is not set, so the suite runs on SQLite only\n',
  );
}
if (!process.env.MNEMO_TEST_REDIS_URL) {
  process.stderr.write(
    'mnemo tests: MNEMO_TEST_REDIS_URL is not set, so the tests of limits shared through Redis are skipped\n',
  );
}

/**
 * A guard against a test that hangs, not a measure of speed. On a shared two-core machine under
 * the suite's own load (three workers, server processes, Chromium), the slowest browser and CLI
 * tests, 10–26 s alone, were seen past 30 s.
 */
const shared = {
  testTimeout: 60_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  test: {
    // Vitest's default is one worker per core but one; most files here spend their time waiting
    // on server processes, sockets and polling intervals, so three workers on two cores halve
    // the suite's wall time (measured: 687 s serial, 368 s with three).
    maxWorkers: 3,
    projects: [
      {
        // The studio: its units, and the browser tests (one engine: they test the pages, and
        // the API beneath them is tested on both).
        test: {
          ...shared,
          name: 'studio',
          include: ['studio/**/*.test.ts'],
          // A poll waits for a page to show what it should: a studio signing in on a loaded
          // machine takes seconds, where the default gives up after one.
          expect: { poll: { timeout: 15_000 } },
          globalSetup: ['studio/e2e/global-setup.ts'],
          env: { MNEMO_TEST_ENGINE: 'sqlite' },
        },
      },
      {
        test: {
          ...shared,
          name: 'sqlite',
          include: [
            'src/**/*.test.ts',
            'bench/**/*.test.ts',
            'clients/typescript/**/*.test.ts',
            'clients/python/**/*.test.ts',
          ],
          // Tests of several processes on one shared store: PostgreSQL's work.
          exclude: ['src/**/*.postgres.test.ts'],
          env: { MNEMO_TEST_ENGINE: 'sqlite' },
        },
      },
      ...(postgresUrl
        ? [
            {
              test: {
                ...shared,
                name: 'postgres',
                include: [
                  'src/**/*.test.ts',
                  'clients/typescript/**/*.test.ts',
                  'clients/python/**/*.test.ts',
                ],
                // The SQLite engine's own machinery (group commit, fsync) has nothing to do here,
                // nor the client's package checks (its types, its tarball), which use no store.
                exclude: ['src/**/*.sqlite.test.ts', 'clients/typescript/scripts/**'],
                env: { MNEMO_TEST_ENGINE: 'postgres' },
              },
            },
          ]
        : []),
    ],
  },
});
