// Which build the service worker serves (issue 16 item 7): only the installed one, and a new one only after
// the user accepts it — whatever order the browser starts and activates workers in. Issue 24.6: a build this
// phone ran before, or an older release, is a downgrade, applied only when the user chose it after a warning.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  afterAccept,
  afterInstall,
  BUILD_STATE_CACHE,
  type BuildState,
  buildCacheName,
  compareReleases,
  isDowngrade,
  MAX_RAN_BUILDS,
  parseBuildState,
  parseRelease,
  servedPath,
  staleCaches,
} from './build-state.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const C = 'c'.repeat(64);
const state = (s: Partial<BuildState> & { installed: string }): BuildState => ({
  offered: null,
  ran: [s.installed],
  newestRelease: null,
  ...s,
});

describe('build state', () => {
  it('the first install is served at once, and takes over without waiting', () => {
    expect(afterInstall(null, A, '1.0.0')).toEqual({
      state: { installed: A, offered: null, ran: [A], newestRelease: '1.0.0' },
      takeOverNow: true,
    });
  });

  it('a later build is only offered: the installed one stays until the user accepts', () => {
    const { state: s, takeOverNow } = afterInstall(
      state({ installed: A, newestRelease: '1.0.0' }),
      B,
      '1.1.0',
    );
    expect(s).toEqual(state({ installed: A, offered: B, newestRelease: '1.0.0' }));
    expect(takeOverNow).toBe(false);
    // The browser activating B by itself (every window closed) changes nothing: the state decides.
    expect(afterInstall(s, C, '1.2.0').state.offered).toBe(C);
    expect(afterAccept(s, B, '1.1.0')).toEqual({
      installed: B,
      offered: null,
      ran: [A, B],
      newestRelease: '1.1.0',
    });
  });

  it('only the worker whose build is offered can accept it', () => {
    expect(afterAccept(state({ installed: A, offered: B }), A, null)).toBeNull();
    expect(afterAccept(state({ installed: A }), A, null)).toBeNull();
    expect(afterAccept(null, A, null)).toBeNull();
  });

  it('reinstalling the installed build withdraws an offer', () => {
    expect(afterInstall(state({ installed: A, offered: B }), A, null)).toEqual({
      state: state({ installed: A }),
      takeOverNow: false,
    });
  });

  it('keeps the installed, the offered and its own build; drops other builds and Workbox leftovers', () => {
    const names = [
      BUILD_STATE_CACHE,
      buildCacheName(A),
      buildCacheName(B),
      buildCacheName(C),
      'workbox-precache-v2-https://relay.example/',
      'someone-elses',
    ];
    expect(staleCaches(names, state({ installed: A, offered: B }), B)).toEqual([
      buildCacheName(C),
      'workbox-precache-v2-https://relay.example/',
    ]);
    expect(staleCaches(names, state({ installed: A }), C)).toEqual([
      buildCacheName(B),
      'workbox-precache-v2-https://relay.example/',
    ]);
  });

  it('serves every navigation the installed index.html, and leaves the relay API to the network', () => {
    expect(servedPath('/b/x/s/y', true)).toBe('/index.html');
    expect(servedPath('/assets/index-1.js', false)).toBe('/assets/index-1.js');
    // The page reads the relay's sw.js to compare it with the Burrow's word (issue 24.7).
    expect(servedPath('/sw.js', false)).toBeNull();
    expect(servedPath('/sw.js', true)).toBe('/index.html');
    expect(servedPath('/v1/info', false)).toBeNull();
    expect(servedPath('/v1', false)).toBeNull();
    expect(servedPath('/v10', false)).toBe('/v10');
  });

  it('reads back only well-formed state; anything else counts as none; an older record ran its installed build', () => {
    expect(parseBuildState({ installed: A, offered: B })).toEqual(state({ installed: A, offered: B }));
    expect(parseBuildState({ installed: A, offered: A })).toEqual(state({ installed: A }));
    expect(parseBuildState({ installed: A, offered: null, ran: [B, C], newestRelease: '2.0.0' })).toEqual(
      state({ installed: A, ran: [B, C, A], newestRelease: '2.0.0' }),
    );
    expect(parseBuildState({ installed: A, offered: null, ran: ['x'], newestRelease: 'v2' })).toEqual(
      state({ installed: A }),
    );
    for (const bad of [null, 'x', {}, { installed: 'A', offered: null }, { installed: A, offered: 1 }]) {
      expect(parseBuildState(bad)).toBeNull();
    }
    expect(() => buildCacheName('../x')).toThrow(RangeError);
  });
});

describe('going back to an older build (issue 24.6)', () => {
  it('is a downgrade when this phone ran that build, or its release is older, or it has none', () => {
    const s = state({ installed: B, ran: [A, B], newestRelease: '1.1.0' });
    expect(isDowngrade(s, A, '1.2.0')).toBe(true); // ran before, whatever it says now
    expect(isDowngrade(s, C, '1.0.9')).toBe(true);
    expect(isDowngrade(s, C, null)).toBe(true); // a build from before releases were written
    expect(isDowngrade(s, C, '1.1.0')).toBe(false);
    expect(isDowngrade(s, C, '1.2.0-rc.1')).toBe(false);
    expect(isDowngrade(s, B, null)).toBe(false);
    // Nothing known about what ran: only the history says.
    expect(isDowngrade(state({ installed: B }), C, null)).toBe(false);
  });

  it('is installed only when the page confirms the user chose it after the warning', () => {
    const s = state({ installed: B, offered: A, ran: [A, B], newestRelease: '1.1.0' });
    expect(afterAccept(s, A, '1.0.0')).toBeNull();
    expect(afterAccept(s, A, '1.0.0', true)).toEqual({
      installed: A,
      offered: null,
      ran: [B, A],
      newestRelease: '1.1.0', // going back never forgets what ran
    });
  });

  it('remembers at most MAX_RAN_BUILDS builds, the installed one last', () => {
    let s = state({ installed: A });
    for (let i = 0; i < MAX_RAN_BUILDS + 5; i++) {
      const id = i.toString(16).padStart(64, '0');
      s = afterAccept({ ...s, offered: id }, id, `1.0.${i}`)!;
    }
    expect(s.ran).toHaveLength(MAX_RAN_BUILDS);
    expect(s.ran.at(-1)).toBe(s.installed);
    expect(s.newestRelease).toBe(`1.0.${MAX_RAN_BUILDS + 4}`);
  });

  it('reads releases strictly and orders them as SemVer does', () => {
    expect(parseRelease({ version: '0.1.0' })).toBe('0.1.0');
    for (const bad of [
      null,
      {},
      { version: 1 },
      { version: 'v1.0.0' },
      { version: '1.0' },
      { version: 'x'.repeat(70) },
    ])
      expect(parseRelease(bad)).toBeNull();
    const ordered = [
      '0.9.9',
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0',
      '1.0.1',
      '1.10.0',
    ];
    for (let i = 1; i < ordered.length; i++)
      expect(compareReleases(ordered[i - 1]!, ordered[i]!)).toBeLessThan(0);
    fc.assert(
      fc.property(fc.constantFrom(...ordered), fc.constantFrom(...ordered), (a, b) => {
        expect(Math.sign(compareReleases(a, b)) + Math.sign(compareReleases(b, a))).toBe(0);
      }),
    );
    expect(() => compareReleases('x', '1.0.0')).toThrow(RangeError);
  });
});
