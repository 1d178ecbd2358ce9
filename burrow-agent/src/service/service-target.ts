/**
 * What the login service runs: `node` and the `burrow` script, each by the path that stays the same when
 * Node or Burrow is upgraded, so the unit written once keeps working after `npm install -g` of a newer Burrow.
 *
 * - node: process.execPath is the real file (Homebrew's `/opt/homebrew/Cellar/node/22.3.0/bin/node`, gone
 *   after `brew upgrade node`). A `node` on PATH that resolves to the same file is the name the package
 *   manager keeps pointing at the current Node (`/opt/homebrew/bin/node`); a symlink is preferred.
 * - burrow: the command the user typed when it is a link to this program (npm's `<prefix>/bin/burrow`,
 *   Homebrew's `/opt/homebrew/bin/burrow` into a versioned Cellar), else the program's own bin/burrow.js
 *   (`<prefix>/lib/node_modules/burrow-terminal/bin/burrow.js`, which `npm install -g` upgrades in place).
 *
 * The notes say when no such path exists: a development checkout (the unit points into the clone), or npx's
 * cache (removed at any time).
 */
import { lstatSync, realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve, sep } from 'node:path';
import type { ServiceTarget } from './service-files.js';

export interface ProgramPaths {
  /** process.execPath. */
  readonly execPath: string;
  /** process.argv[1]: the path the CLI was started by (a link, when run as `burrow` from PATH). */
  readonly argv1: string | undefined;
  /** The working directory argv1 is relative to. */
  readonly cwd: string;
  /** The user's PATH when they ran install-service. */
  readonly PATH: string | undefined;
  /** The program's root and whether it is a checkout (program/program.ts). */
  readonly root: string;
  readonly bin: string;
  readonly checkout: boolean;
  /** BURROW_STATE_DIR to pin, if set. */
  readonly stateDir: string | null;
}

export interface ResolvedTarget {
  readonly target: ServiceTarget;
  /** Where the unit would break on an upgrade or a move, one sentence each; empty when the paths are stable. */
  readonly warnings: readonly string[];
}

function real(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** The stable name of the running node: a PATH entry resolving to the same file (links first), else itself. */
export function stableNodePath(execPath: string, PATH: string | undefined): string {
  const target = real(execPath);
  if (target === null) return execPath;
  const same = (PATH ?? '')
    .split(delimiter)
    .filter((dir) => isAbsolute(dir))
    .map((dir) => join(dir, 'node'))
    .filter((candidate) => real(candidate) === target);
  return same.find(isLink) ?? same[0] ?? execPath;
}

/** The stable path of the burrow script: the link the user ran when it leads to this program, else its bin. */
export function stableScriptPath(argv1: string | undefined, cwd: string, bin: string): string {
  const binReal = real(bin) ?? bin;
  if (argv1 !== undefined) {
    const ran = resolve(cwd, argv1);
    if (ran !== binReal && isLink(ran) && real(ran) === binReal) return ran;
  }
  return binReal;
}

export function resolveServiceTarget(p: ProgramPaths): ResolvedTarget {
  const script = stableScriptPath(p.argv1, p.cwd, p.bin);
  const warnings: string[] = [];
  if (p.checkout)
    warnings.push(
      `the service runs burrow from the development checkout at ${p.root}: moving or deleting the clone, ` +
        'or a failed build in it, stops the service. For a service that survives, install the package ' +
        '(README "Install").',
    );
  else if (script.split(sep).includes('_npx'))
    warnings.push(
      `the service would run burrow from npx's cache (${script}), which npm may delete at any time: ` +
        'install it with `npm install -g` and run `burrow install-service` again.',
    );
  return {
    target: { node: stableNodePath(p.execPath, p.PATH), script, stateDir: p.stateDir },
    warnings,
  };
}
