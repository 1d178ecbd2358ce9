/**
 * Pocket's build manifest: the files one Pocket build is made of and the SHA-256 of each. [SPEC: R-BUILD-*]
 *
 * Pocket's build writes it (`pocket-build.json`, R-BUILD-1), the Burrow ships the one it was released with and
 * sends it to Pocket in `pocket-build` (R-B-BUILD-1), and Pocket compares it with the files its service worker
 * actually serves (R-BUILD-2). The relay serves Pocket's code, so this is how a phone learns — from its own
 * computer, over Noise — whether the code it runs is the code that computer vouches for.
 */
import * as v from 'valibot';
import { utf8Encode } from './bytes.js';
import { ProtocolError } from './errors.js';
import { base64urlBytes } from './fields.js';
import { MAX_BUILD_FILES, MAX_BUILD_MANIFEST_BYTES, MAX_BUILD_PATH_CHARS } from './limits.js';

/** The manifest format version this code reads and writes. */
export const POCKET_BUILD_MANIFEST_VERSION = 1;

/**
 * R-BUILD-1: a build path is an absolute URL path of segments of `[A-Za-z0-9._~-]`, none of them `.` or `..`
 * — exactly what a build tool names files, nothing a URL parser would rewrite (no `%`, no `//`, no query).
 */
const BUILD_PATH_PATTERN = /^(\/[A-Za-z0-9._~-]+)+$/;

export function isBuildPath(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length <= MAX_BUILD_PATH_CHARS &&
    BUILD_PATH_PATTERN.test(value) &&
    !value.split('/').some((segment) => segment === '.' || segment === '..')
  );
}

export const buildPath = v.pipe(
  v.string(),
  v.check(
    (s: string) => isBuildPath(s),
    'R-BUILD-1: a build path is /-separated segments of [A-Za-z0-9._~-], no . or ..',
  ),
);

export const buildFileSchema = v.strictObject({
  path: buildPath,
  /** SHA-256 of the file's bytes, base64url (R-FIELD-10). */
  sha256: base64urlBytes(32),
});

export type BuildFile = v.InferOutput<typeof buildFileSchema>;

/** R-BUILD-1: at most MAX_BUILD_FILES files, sorted by path (UTF-16 code unit order), each path once. */
export const buildFilesSchema = v.pipe(
  v.array(buildFileSchema),
  v.maxLength(MAX_BUILD_FILES, `R-BUILD-1: at most ${MAX_BUILD_FILES} files`),
  v.check(
    (files) => files.every((f, i) => i === 0 || files[i - 1]!.path < f.path),
    'R-BUILD-1: files are sorted by path, each path once',
  ),
);

export const pocketBuildManifestSchema = v.strictObject({
  version: v.literal(POCKET_BUILD_MANIFEST_VERSION),
  files: buildFilesSchema,
});

export type PocketBuildManifest = v.InferOutput<typeof pocketBuildManifestSchema>;

const RULE_PREFIX = /^(R-[A-Z0-9]+(?:-[A-Z0-9]+)*): /;

/**
 * Reads `pocket-build.json` (R-BUILD-1). Throws ProtocolError('R-BUILD-1') for anything else — the message names
 * the field path, never a value. TypeError when not given a string.
 */
export function decodePocketBuildManifest(json: string): PocketBuildManifest {
  if (typeof json !== 'string') throw new TypeError('the manifest must be given as a string');
  if (utf8Encode(json).length > MAX_BUILD_MANIFEST_BYTES)
    throw new ProtocolError('R-BUILD-1', `a manifest is at most ${MAX_BUILD_MANIFEST_BYTES} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new ProtocolError('R-BUILD-1', 'the manifest is not JSON');
  }
  const result = v.safeParse(pocketBuildManifestSchema, value, { abortEarly: true });
  if (result.success) return result.output;
  const issue = result.issues[0];
  const path = issue.path?.map((p: { key: unknown }) => String(p.key)).join('.') ?? '';
  const why = RULE_PREFIX.test(issue.message)
    ? issue.message.replace(RULE_PREFIX, '')
    : `expected ${issue.expected ?? 'a valid value'}`;
  throw new ProtocolError('R-BUILD-1', `${path || 'manifest'}: ${why}`);
}

/** The manifest as its build writes it: canonical JSON (files sorted, R-BUILD-1), one file per line. */
export function encodePocketBuildManifest(files: readonly BuildFile[]): string {
  const sorted = sortBuildFiles(files);
  const result = v.safeParse(buildFilesSchema, sorted, { abortEarly: true });
  if (!result.success) throw new RangeError(`not a valid build: ${result.issues[0].message}`);
  const lines = sorted.map((f) => `    ${JSON.stringify({ path: f.path, sha256: f.sha256 })}`);
  return `{\n  "version": ${POCKET_BUILD_MANIFEST_VERSION},\n  "files": [\n${lines.join(',\n')}\n  ]\n}\n`;
}

/** Sorts files into R-BUILD-1 order (a fresh array). RangeError on a path listed twice. */
export function sortBuildFiles(files: readonly BuildFile[]): BuildFile[] {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i - 1]!.path === sorted[i]!.path) throw new RangeError(`${sorted[i]!.path} is listed twice`);
  }
  return sorted;
}

/**
 * R-BUILD-3: the canonical listing a build id is the SHA-256 of — `<path> <sha256>\n` per file, in R-BUILD-1
 * order, UTF-8. Each side hashes it with its own SHA-256 (WebCrypto, node:crypto); the id is only for people
 * to compare ("build 3fa9c2e1") and for cache names: the check itself compares the files (R-BUILD-2).
 */
export function buildListing(files: readonly BuildFile[]): string {
  return files.map((f) => `${f.path} ${f.sha256}\n`).join('');
}
