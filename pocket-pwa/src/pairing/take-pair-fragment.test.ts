import { describe, expect, it, vi } from 'vitest';
import { splitPairFragment } from './take-pair-fragment.js';

describe('splitPairFragment', () => {
  it('splits a pairing link into the link and a clean URL', () => {
    expect(splitPairFragment('https://r.example/#pair=abc')).toEqual({
      link: 'https://r.example/#pair=abc',
      cleanUrl: 'https://r.example/',
    });
  });
  it('ignores other fragments', () => {
    expect(splitPairFragment('https://r.example/#x')).toBeNull();
    expect(splitPairFragment('https://r.example/?pair=abc')).toBeNull();
  });
});

describe('capture on import', () => {
  it('removes the fragment from the address bar and hands the link out once', async () => {
    window.history.replaceState(null, '', '/#pair=SECRET');
    vi.resetModules();
    const mod = await import('./take-pair-fragment.js');
    expect(window.location.hash).toBe('');
    expect(window.location.href).not.toContain('SECRET');
    expect(mod.takePairLink()).toMatch(/#pair=SECRET$/);
    expect(mod.takePairLink()).toBeNull();
  });
});
