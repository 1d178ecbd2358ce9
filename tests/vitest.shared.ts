/** What both integration projects share: workspace packages resolve to their sources, generous hook budgets. */
export const shared = {
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
};

export const sharedTest = {
  testTimeout: 60_000,
  hookTimeout: 180_000,
};

/** Files whose figures are latency bounds the issue states (echo p99 < 50 ms): they run alone, last. */
export const SOLO_FILES = ['integration/load-burrow.test.ts'];
