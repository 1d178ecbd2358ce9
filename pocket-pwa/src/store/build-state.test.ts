// Which build the service worker serves (issue 16 item 7): only the installed one, and a new one only after
// the user accepts it — whatever order the browser starts and activates workers in.
import { describe, expect, it } from 'vitest';
import {
  afterAccept,
  afterInstall,
  BUILD_STATE_CACHE,
  buildCacheName,
  parseBuildState,
  servedPath,
  staleCaches,
} from './build-state.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const C = 'c'.repeat(64);

describe('build state', () => {
  it('the first install is served at once, and takes over without waiting', () => {
    expect(afterInstall(null, A)).toEqual({ state: { installed: A, offered: null }, takeOverNow: true });
  });

  it('a later build is only offered: the installed one stays until the user accepts', () => {
    const { state, takeOverNow } = afterInstall({ installed: A, offered: null }, B);
    expect(state).toEqual({ installed: A, offered: B });
    expect(takeOverNow).toBe(false);
    // The browser activating B by itself (every window closed) changes nothing: the state decides.
    expect(afterInstall(state, C).state).toEqual({ installed: A, offered: C });
    expect(afterAccept(state, B)).toEqual({ installed: B, offered: null });
  });

  it('only the worker whose build is offered can accept it', () => {
    expect(afterAccept({ installed: A, offered: B }, A)).toBeNull();
    expect(afterAccept({ installed: A, offered: null }, A)).toBeNull();
    expect(afterAccept(null, A)).toBeNull();
  });

  it('reinstalling the installed build withdraws an older offer', () => {
    expect(afterInstall({ installed: A, offered: B }, A)).toEqual({
      state: { installed: A, offered: null },
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
    expect(staleCaches(names, { installed: A, offered: B }, B)).toEqual([
      buildCacheName(C),
      'workbox-precache-v2-https://relay.example/',
    ]);
    expect(staleCaches(names, { installed: A, offered: null }, C)).toEqual([
      buildCacheName(B),
      'workbox-precache-v2-https://relay.example/',
    ]);
  });

  it('serves every navigation the installed index.html, and leaves the relay API to the network', () => {
    expect(servedPath('/b/x/s/y', true)).toBe('/index.html');
    expect(servedPath('/assets/index-1.js', false)).toBe('/assets/index-1.js');
    expect(servedPath('/sw.js', false)).toBe('/sw.js'); // not in the build: answered 404, never the network
    expect(servedPath('/v1/info', false)).toBeNull();
    expect(servedPath('/v1', false)).toBeNull();
    expect(servedPath('/v10', false)).toBe('/v10');
  });

  it('reads back only well-formed state; anything else counts as none', () => {
    expect(parseBuildState({ installed: A, offered: B })).toEqual({ installed: A, offered: B });
    expect(parseBuildState({ installed: A, offered: A })).toEqual({ installed: A, offered: null });
    for (const bad of [null, 'x', {}, { installed: 'A', offered: null }, { installed: A, offered: 1 }]) {
      expect(parseBuildState(bad)).toBeNull();
    }
    expect(() => buildCacheName('../x')).toThrow(RangeError);
  });
});
