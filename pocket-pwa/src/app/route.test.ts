import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LIST_ROUTE, parseRoute, type Route, routePath } from './route.js';

const BID = 'AAAAAAAAAAAAAAAAAAAAAA';

describe('routes', () => {
  it('round-trips the terminal route and falls back to the list', () => {
    const r: Route = { screen: 'terminal', burrowId: BID, sessionId: 's-1' };
    expect(parseRoute(routePath(r))).toEqual(r);
    expect(parseRoute('/')).toEqual(LIST_ROUTE);
    expect(parseRoute(`/b/${BID}/s/`)).toEqual(LIST_ROUTE);
    expect(parseRoute(`/b/${BID}/s/a%2Fb`)).toEqual(LIST_ROUTE);
  });

  it('never throws and only yields safe ids on arbitrary paths', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (p) => {
        const r = parseRoute(p);
        if (r.screen === 'terminal') expect(routePath(r)).toMatch(/^\/b\/[\w-]+\/s\/[\w-]+$/);
      }),
      { seed: 1, numRuns: 300 },
    );
  });
});
