/**
 * R-BUILD-2 as a pure function: is the build this page's service worker serves the one a Burrow vouches for?
 * Only an exact match is: same paths, same SHA-256, nothing missing, nothing extra.
 */
import type { BuildFile } from '@burrow/protocol';
import type { ServedBuild } from './served-build.js';

export type BuildVerdict =
  /** Not known yet: no `pocket-build` from this Burrow yet, or the served files are still being read. */
  | { readonly kind: 'checking' }
  | { readonly kind: 'vouched'; readonly buildId: string }
  | {
      readonly kind: 'differs';
      readonly buildId: string;
      /** Paths whose bytes differ, that the Burrow's build has and this one lacks, and the reverse. */
      readonly changed: readonly string[];
      readonly missing: readonly string[];
      readonly extra: readonly string[];
    }
  /** The Burrow has no Pocket build to vouch for (R-B-BUILD-1 `files: null`). */
  | { readonly kind: 'none-vouched' }
  /** This page cannot tell what its service worker serves. */
  | { readonly kind: 'unverifiable'; readonly why: string };

export function compareBuild(vouched: readonly BuildFile[] | null, served: ServedBuild): BuildVerdict {
  if (vouched === null) return { kind: 'none-vouched' };
  if (served.kind === 'unavailable') return { kind: 'unverifiable', why: served.why };
  const theirs = new Map(vouched.map((f) => [f.path, f.sha256]));
  const ours = new Map(served.files.map((f) => [f.path, f.sha256]));
  const changed: string[] = [];
  const extra: string[] = [];
  for (const [path, sha256] of ours) {
    const expected = theirs.get(path);
    if (expected === undefined) extra.push(path);
    else if (expected !== sha256) changed.push(path);
  }
  const missing = [...theirs.keys()].filter((path) => !ours.has(path));
  if (changed.length + missing.length + extra.length === 0)
    return { kind: 'vouched', buildId: served.buildId };
  return { kind: 'differs', buildId: served.buildId, changed, missing, extra };
}

/** Only a vouched build may send a Burrow input (R-BUILD-2). */
export function allowsInput(verdict: BuildVerdict): boolean {
  return verdict.kind === 'vouched';
}
