// R-BUILD-2: only the exact build a Burrow vouches for may send it input.
import type { BuildFile } from '@burrow/protocol';
import { describe, expect, it } from 'vitest';
import { allowsInput, compareBuild } from './build-verdict.js';

const h = (c: string) => c.repeat(43);
const VOUCHED: BuildFile[] = [
  { path: '/assets/index-1.js', sha256: h('A') },
  { path: '/assets/term-1.js', sha256: h('B') },
  { path: '/index.html', sha256: h('C') },
];
const served = (files: BuildFile[]) => ({ kind: 'served' as const, buildId: 'f'.repeat(64), files });

describe('compareBuild (R-BUILD-2)', () => {
  it('the same files with the same hashes are vouched for, and only that allows input', () => {
    const verdict = compareBuild(VOUCHED, served([...VOUCHED]));
    expect(verdict).toEqual({ kind: 'vouched', buildId: 'f'.repeat(64) });
    expect(allowsInput(verdict)).toBe(true);
  });

  it('names every changed, missing and added file', () => {
    const verdict = compareBuild(
      VOUCHED,
      served([
        { path: '/assets/index-1.js', sha256: h('A') },
        { path: '/assets/term-1.js', sha256: h('X') },
        { path: '/assets/keylogger.js', sha256: h('D') },
      ]),
    );
    expect(verdict).toEqual({
      kind: 'differs',
      buildId: 'f'.repeat(64),
      changed: ['/assets/term-1.js'],
      missing: ['/index.html'],
      extra: ['/assets/keylogger.js'],
    });
    expect(allowsInput(verdict)).toBe(false);
  });

  it('a Burrow with nothing to vouch for, and a page that cannot tell what it serves, both refuse input', () => {
    expect(compareBuild(null, served(VOUCHED))).toEqual({ kind: 'none-vouched' });
    const unverifiable = compareBuild(VOUCHED, { kind: 'unavailable', why: 'no service worker' });
    expect(unverifiable).toEqual({ kind: 'unverifiable', why: 'no service worker' });
    expect(allowsInput(unverifiable)).toBe(false);
    expect(allowsInput({ kind: 'none-vouched' })).toBe(false);
    expect(allowsInput({ kind: 'checking' })).toBe(false);
  });

  it('an empty served build matches nothing but an empty vouched one', () => {
    expect(compareBuild(VOUCHED, served([]))).toMatchObject({
      kind: 'differs',
      missing: VOUCHED.map((f) => f.path),
    });
    expect(compareBuild([], served([])).kind).toBe('vouched');
  });
});
