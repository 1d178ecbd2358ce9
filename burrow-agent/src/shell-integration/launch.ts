/**
 * How Burrow starts a shell with its integration injected (DESIGN §5 "Shell integration"), without touching
 * the user's dotfiles, the way VS Code does (terminalEnvironment.ts `getShellIntegrationInjection`):
 *
 * - bash: `--init-file <dir>/bash/burrow.bash`; that file sources `~/.bashrc`, or for a login shell the profile
 *   chain (`--init-file` does nothing for a login shell, so `-l` is dropped and the file imitates it);
 * - zsh: `ZDOTDIR=<dir>/zsh`, whose startup files put the user's ZDOTDIR back, source the user's files and then
 *   add the hooks;
 * - fish: `<dir>/fish-data` prepended to `XDG_DATA_DIRS`, so fish loads `fish/vendor_conf.d/burrow.fish`.
 *
 * Each script reads the session nonce from the one-time file `BURROW_SHELL_NONCE_FILE` names, removes it and
 * unsets the variable before any user file runs (nonce-file.ts: the nonce itself is never in the environment).
 * A shell Burrow does not know, a non-interactive invocation, `BURROW_SHELL_INTEGRATION=0`, or a missing script
 * leaves the launch unchanged with `integrated: false`; the caller then gives the parser a null nonce.
 */

import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import {
  BASH_LOGIN_ENV,
  FISH_DATA_DIR_ENV,
  FISH_XDG_UNSET_ENV,
  NONCE_FILE_ENV,
  OPT_OUT_ENV,
  ZSH_USER_ZDOTDIR_ENV,
} from './env-names.js';
import { type IntegratedShell, interactiveFlags, shellKindOf } from './shell-kind.js';

export type LaunchEnv = Readonly<Record<string, string | undefined>>;

export interface ShellLaunchRequest {
  /** The program to run (a path or a name looked up on PATH). */
  readonly shellPath: string;
  readonly args: readonly string[];
  /** The environment the session would get without integration. */
  readonly env: LaunchEnv;
  /**
   * The session's nonce file (`writeNonceFile(createShellNonce())`): the script reads the nonce from it and
   * removes it; the same nonce goes to the session's TerminalParser.
   */
  readonly nonceFile: string;
  /** The shipped scripts directory, normally `defaultIntegrationDir()`. */
  readonly integrationDir: string;
}

export interface ShellLaunch {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  /** True when the scripts were injected: only then may the parser be given the nonce. */
  readonly integrated: boolean;
  readonly shell: IntegratedShell | null;
}

/** The XDG Base Directory default for XDG_DATA_DIRS, kept when Burrow prepends to an unset variable. */
const XDG_DATA_DIRS_DEFAULT = '/usr/local/share:/usr/share';

/** The script each shell needs, relative to the integration directory. */
const SCRIPT_OF: Record<IntegratedShell, string> = {
  bash: 'bash/burrow.bash',
  zsh: 'zsh/.zshrc',
  fish: 'fish-data/fish/vendor_conf.d/burrow.fish',
};

function definedEnv(env: LaunchEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (typeof v === 'string') out[k] = v;
  return out;
}

function checkRequest(request: ShellLaunchRequest): void {
  if (typeof request !== 'object' || request === null) {
    throw new TypeError('shellIntegrationLaunch: request must be an object');
  }
  const { shellPath, args, env, integrationDir } = request;
  if (typeof shellPath !== 'string' || shellPath === '') {
    throw new TypeError('shellIntegrationLaunch: shellPath must be a non-empty string');
  }
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) {
    throw new TypeError('shellIntegrationLaunch: args must be an array of strings');
  }
  if (typeof env !== 'object' || env === null)
    throw new TypeError('shellIntegrationLaunch: env must be an object');
  if (typeof integrationDir !== 'string' || integrationDir === '') {
    throw new TypeError('shellIntegrationLaunch: integrationDir must be a non-empty string');
  }
  if (typeof request.nonceFile !== 'string' || !isAbsolute(request.nonceFile)) {
    throw new TypeError('shellIntegrationLaunch: nonceFile must be an absolute path');
  }
}

/**
 * The command and environment that start `shellPath` with Burrow's shell integration.
 *
 * @throws TypeError on a malformed request.
 */
export function shellIntegrationLaunch(request: ShellLaunchRequest): ShellLaunch {
  checkRequest(request);
  const { shellPath, args, nonceFile, integrationDir } = request;
  const env = definedEnv(request.env);
  const unchanged: ShellLaunch = { file: shellPath, args: [...args], env, integrated: false, shell: null };
  const shell = shellKindOf(shellPath);
  if (shell === null || env[OPT_OUT_ENV] === '0') return unchanged;
  const flags = interactiveFlags(shell, args);
  if (flags === null || !existsSync(join(integrationDir, SCRIPT_OF[shell]))) return unchanged;

  const injected: Record<string, string> = { ...env, [NONCE_FILE_ENV]: nonceFile };
  switch (shell) {
    case 'bash': {
      if (flags.login) injected[BASH_LOGIN_ENV] = '1';
      const rc = join(integrationDir, SCRIPT_OF.bash);
      return { file: shellPath, args: ['--init-file', rc, '-i'], env: injected, integrated: true, shell };
    }
    case 'zsh': {
      if (env.ZDOTDIR !== undefined) injected[ZSH_USER_ZDOTDIR_ENV] = env.ZDOTDIR;
      injected.ZDOTDIR = join(integrationDir, 'zsh');
      return { file: shellPath, args: [...args], env: injected, integrated: true, shell };
    }
    case 'fish': {
      const dataDir = join(integrationDir, 'fish-data');
      // XDG_DATA_DIRS is colon-separated: a directory with a colon in it cannot be listed there.
      if (dataDir.includes(':')) return unchanged;
      if (env.XDG_DATA_DIRS === undefined) injected[FISH_XDG_UNSET_ENV] = '1';
      injected.XDG_DATA_DIRS = `${dataDir}:${env.XDG_DATA_DIRS ?? XDG_DATA_DIRS_DEFAULT}`;
      injected[FISH_DATA_DIR_ENV] = dataDir;
      return { file: shellPath, args: [...args], env: injected, integrated: true, shell };
    }
  }
}
