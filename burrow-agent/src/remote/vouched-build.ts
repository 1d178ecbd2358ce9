/**
 * The Pocket build this Burrow vouches for (protocol/SPEC.md "Pocket build", R-B-BUILD-1): the manifest Pocket's
 * build wrote next to its files (`pocket-build.json`, R-BUILD-1), read once at start from the Pocket package this
 * Burrow was released with — the same checkout or install, never the relay. The installable package carries its
 * copy as `pocket-build.json` beside its package.json (burrow-agent/packaging/pack.ts). Phones get its files over Noise
 * after `directory`; Pocket compares them with what its service worker serves (R-BUILD-2).
 *
 * Without a manifest (a checkout where Pocket was never built) the Burrow vouches for nothing and says so: every
 * Pocket then shows its warning and sends no input, which is the safe side.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { type BuildFile, buildListing, decodePocketBuildManifest, ProtocolError } from '@burrow/protocol';

/** Where the manifest is found: the Pocket workspace package's export (pocket-pwa/package.json). */
export const POCKET_BUILD_MANIFEST_SPECIFIER = '@burrow/pocket/build-manifest';

export type VouchedBuild =
  | { readonly kind: 'build'; readonly files: readonly BuildFile[]; readonly buildId: string }
  | { readonly kind: 'none'; readonly why: string };

/** R-BUILD-3: the build id (hex SHA-256 of the canonical listing), for logs and people. */
export function buildIdOf(files: readonly BuildFile[]): string {
  return createHash('sha256').update(buildListing(files), 'utf8').digest('hex');
}

/** The installed package's copy of the manifest (absent in a checkout). */
export const PACKAGED_MANIFEST_PATH = fileURLToPath(new URL('../../pocket-build.json', import.meta.url));

/** The manifest's path as this install resolves it, or null when the Pocket package is not there. */
export function defaultManifestPath(): string | null {
  if (existsSync(PACKAGED_MANIFEST_PATH)) return PACKAGED_MANIFEST_PATH;
  try {
    return createRequire(import.meta.url).resolve(POCKET_BUILD_MANIFEST_SPECIFIER);
  } catch {
    return null;
  }
}

/** Reads and checks the manifest (R-BUILD-1). Never throws: what went wrong is the `why` of `none`. */
export function loadVouchedBuild(path: string | null = defaultManifestPath()): VouchedBuild {
  if (path === null) return { kind: 'none', why: `${POCKET_BUILD_MANIFEST_SPECIFIER} is not installed` };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    return { kind: 'none', why: `${path}: ${code} (build Pocket: npm run build -w pocket-pwa)` };
  }
  try {
    const { files } = decodePocketBuildManifest(text);
    return { kind: 'build', files, buildId: buildIdOf(files) };
  } catch (error) {
    if (error instanceof ProtocolError) return { kind: 'none', why: `${path}: ${error.message}` };
    throw error;
  }
}

/** One log line saying what phones will be told. */
export function describeVouchedBuild(build: VouchedBuild): string {
  return build.kind === 'build'
    ? `vouching for Pocket build ${build.buildId.slice(0, 8)} (${build.files.length} files)`
    : `vouching for no Pocket build (${build.why}): phones will warn and send no input`;
}
