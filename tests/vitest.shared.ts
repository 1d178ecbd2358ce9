/** What both integration projects share: workspace packages resolve to their sources, generous hook budgets. */
export const shared = {
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
};

export const sharedTest = {
  testTimeout: 60_000,
  hookTimeout: 180_000,
};

/**
 * Files that run alone, last: the load test asserts the echo bound (p99 < 50 ms); the lossless test
 * runs a CPU hog that would skew whatever ran beside it. (The push e2e ran here too while its notifications
 * went missing under load; that was its own reads erasing them, see tests/e2e/sw-notifications.ts, and it runs
 * with the rest again.)
 */
export const SOLO_FILES = ['integration/load-burrow.test.ts', 'integration/lossless-output.test.ts'];
