/**
 * This Burrow program: the directory it runs from, its version, and whether that directory is the installed
 * package or a development checkout. Every module of the agent sits two levels below the program's root
 * (`src/<dir>/` in a checkout, `dist/<dir>/` in a build or in the package, whose bundles keep that layout:
 * burrow-agent/packaging/bundle.ts), so one relative URL finds the root everywhere.
 *
 * The daemon reports both the version it started with and the version now on disk under its root: after an
 * `npm install -g` of a newer package they differ until the daemon is restarted (`burrow status` says so).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
// The two functions, not the package's index: the index loads all of semver (40 modules) into every CLI call.
import semverGt from 'semver/functions/gt.js';
import semverValid from 'semver/functions/valid.js';

/** The program's root directory (the package, or burrow-agent/ in a checkout), with no trailing slash. */
export const PROGRAM_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** The `version` of `root`/package.json as it is now, or null when it cannot be read (uninstalled, moved). */
export function versionOnDisk(root: string = PROGRAM_ROOT): string | null {
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : null;
  } catch {
    return null;
  }
}

/** The version this process started with ('unknown' if its package.json was unreadable then). */
export const AGENT_VERSION: string = versionOnDisk() ?? 'unknown';

/** The bin script of the program at `root`. */
export function programBin(root: string = PROGRAM_ROOT): string {
  return join(root, 'bin', 'burrow.js');
}

/** A development checkout runs from tsc's output beside its sources; the installed package has no sources. */
export function isCheckout(root: string = PROGRAM_ROOT): boolean {
  return existsSync(join(root, 'src', 'cli', 'main.ts'));
}

/** Whether `candidate` is a strictly newer version than `running` (semver order; false if either is not one). */
export function isNewerVersion(candidate: string | null, running: string): boolean {
  if (candidate === null || semverValid(candidate) === null || semverValid(running) === null) return false;
  return semverGt(candidate, running);
}
