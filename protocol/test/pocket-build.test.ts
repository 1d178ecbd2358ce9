// Pocket's build manifest and the `pocket-build` message. [SPEC: R-BUILD-1, R-BUILD-3, R-B-BUILD-1]
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  buildListing,
  decodeBurrowMessage,
  decodePocketBuildManifest,
  encodeBurrowMessage,
  encodePocketBuildManifest,
  isBuildPath,
  MAX_BUILD_FILES,
  MAX_BUILD_MANIFEST_BYTES,
  MAX_BUILD_PATH_CHARS,
  ProtocolError,
  sortBuildFiles,
} from '../src/remote/index.js';
import { buildFiles } from './arbitraries.js';
import { controlFrame, expectRule, FC } from './helpers.js';

const HASH_A = 'A'.repeat(43);
const HASH_B = `${'B'.repeat(42)}A`;
const manifest = (files: unknown, extra: object = {}) => JSON.stringify({ version: 1, files, ...extra });

describe('R-BUILD-1 the manifest file', () => {
  test('R-BUILD-1 a canonical manifest round-trips (property)', () => {
    fc.assert(
      fc.property(buildFiles, (files) => {
        expect(decodePocketBuildManifest(encodePocketBuildManifest(files))).toEqual({ version: 1, files });
      }),
      FC,
    );
  });

  test('R-BUILD-1 the writer sorts; the reader insists on sorted, distinct paths', () => {
    const files = [
      { path: '/index.html', sha256: HASH_A },
      { path: '/assets/a.js', sha256: HASH_B },
    ];
    expect(decodePocketBuildManifest(encodePocketBuildManifest(files)).files.map((f) => f.path)).toEqual([
      '/assets/a.js',
      '/index.html',
    ]);
    expectRule(() => decodePocketBuildManifest(manifest(files)), 'R-BUILD-1');
    const twice = [files[1], files[1]];
    expectRule(() => decodePocketBuildManifest(manifest(twice)), 'R-BUILD-1');
    expect(() => sortBuildFiles(twice as never)).toThrow(RangeError);
    expect(() => encodePocketBuildManifest(twice as never)).toThrow(RangeError);
  });

  test.each([
    ['relative', 'index.html'],
    ['dot-dot segment', '/assets/../sw.js'],
    ['dot segment', '/./index.html'],
    ['empty segment', '/assets//a.js'],
    ['percent escape', '/assets/%2e%2e/a.js'],
    ['query', '/index.html?x=1'],
    ['backslash', '/assets\\a.js'],
    ['trailing slash', '/assets/'],
    ['too long', `/${'a'.repeat(MAX_BUILD_PATH_CHARS)}`],
  ])('R-BUILD-1 refuses a %s path', (_name, path) => {
    expect(isBuildPath(path)).toBe(false);
    expectRule(() => decodePocketBuildManifest(manifest([{ path, sha256: HASH_A }])), 'R-BUILD-1');
  });

  test('R-BUILD-1 a path at its bound and the names Vite writes are build paths', () => {
    expect(isBuildPath(`/${'a'.repeat(MAX_BUILD_PATH_CHARS - 1)}`)).toBe(true);
    expect(isBuildPath('/assets/TerminalScreen-Bx3k_9a-.js')).toBe(true);
    expect(isBuildPath('/manifest.webmanifest')).toBe(true);
  });

  test('R-BUILD-1 refuses a wrong version, an unknown field, a bad hash, too many files, too many bytes', () => {
    const one = [{ path: '/index.html', sha256: HASH_A }];
    expectRule(() => decodePocketBuildManifest(JSON.stringify({ version: 2, files: one })), 'R-BUILD-1');
    expectRule(() => decodePocketBuildManifest(manifest(one, { buildId: 'x' })), 'R-BUILD-1');
    expectRule(
      () => decodePocketBuildManifest(manifest([{ path: '/index.html', sha256: 'AAAA' }])),
      'R-BUILD-1',
    );
    expectRule(
      () => decodePocketBuildManifest(manifest([{ path: '/index.html', sha256: HASH_A, size: 1 }])),
      'R-BUILD-1',
    );
    const many = Array.from({ length: MAX_BUILD_FILES + 1 }, (_, i) => ({
      path: `/f${String(i).padStart(4, '0')}`,
      sha256: HASH_A,
    }));
    expectRule(() => decodePocketBuildManifest(manifest(many)), 'R-BUILD-1');
    expect(() => encodePocketBuildManifest(many)).toThrow(RangeError);
    expectRule(() => decodePocketBuildManifest(' '.repeat(MAX_BUILD_MANIFEST_BYTES + 1)), 'R-BUILD-1');
    expectRule(() => decodePocketBuildManifest('{'), 'R-BUILD-1');
    expect(() => decodePocketBuildManifest(1 as never)).toThrow(TypeError);
  });

  test('R-BUILD-1 the largest manifest fits its byte bound', () => {
    const largest = Array.from({ length: MAX_BUILD_FILES }, (_, i) => ({
      path: `/${String(i).padStart(4, '0')}${'a'.repeat(MAX_BUILD_PATH_CHARS - 5)}`,
      sha256: HASH_A,
    }));
    const text = encodePocketBuildManifest(largest);
    expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(MAX_BUILD_MANIFEST_BYTES);
    expect(decodePocketBuildManifest(text).files).toHaveLength(MAX_BUILD_FILES);
  });

  test('R-BUILD-1 anything else is refused with a ProtocolError and nothing else (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
        try {
          decodePocketBuildManifest(text);
        } catch (error) {
          expect(error).toBeInstanceOf(ProtocolError);
          // The message names a rule and a field, never the value (it may be anything the relay sent).
          expect((error as Error).message.startsWith('R-BUILD-1: ')).toBe(true);
        }
      }),
      FC,
    );
  });
});

test('R-BUILD-3 the listing is one "<path> <sha256>" line per file, in order', () => {
  expect(
    buildListing([
      { path: '/a.js', sha256: HASH_A },
      { path: '/index.html', sha256: HASH_B },
    ]),
  ).toBe(`/a.js ${HASH_A}\n/index.html ${HASH_B}\n`);
  expect(buildListing([])).toBe('');
});

describe('R-B-BUILD-1 the pocket-build message', () => {
  test('R-B-BUILD-1 carries the files, or null when the Burrow has no manifest', () => {
    const files = [{ path: '/index.html', sha256: HASH_A }];
    for (const m of [
      { type: 'pocket-build' as const, files },
      { type: 'pocket-build' as const, files: null },
    ]) {
      expect(decodeBurrowMessage(encodeBurrowMessage(m))).toEqual(m);
    }
  });

  test('R-B-BUILD-1 the files obey R-BUILD-1 on the wire too', () => {
    const unsorted = [
      { path: '/b', sha256: HASH_A },
      { path: '/a', sha256: HASH_A },
    ];
    expectRule(
      () => decodeBurrowMessage(controlFrame(JSON.stringify({ type: 'pocket-build', files: unsorted }))),
      'R-BUILD-1',
    );
    expectRule(
      () =>
        decodeBurrowMessage(
          controlFrame(JSON.stringify({ type: 'pocket-build', files: [{ path: '/..', sha256: HASH_A }] })),
        ),
      'R-BUILD-1',
    );
    expectRule(() => decodeBurrowMessage(controlFrame(JSON.stringify({ type: 'pocket-build' }))), 'R-MSG-2');
  });
});
