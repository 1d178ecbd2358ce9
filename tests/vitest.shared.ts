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
 * Files that run alone, last: the load test asserts the echo bound (p99 < 50 ms); the push e2e's
 * DevTools push shows no notification when another file loads the machine beside it (not yet explained).
 */
export const SOLO_FILES = ['integration/load-burrow.test.ts', 'e2e/push.e2e.test.ts'];
