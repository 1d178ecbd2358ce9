/**
 * Which shell a command line starts, and whether it starts it as an interactive shell Burrow may integrate:
 * only a bare shell, optionally with interactive / login flags. Anything else (`bash -c …`, a script, `zsh
 * -f`, options Burrow does not know) runs exactly as given, the same line VS Code draws in
 * `getShellIntegrationInjection` (terminalEnvironment.ts).
 */

export type IntegratedShell = 'bash' | 'zsh' | 'fish';

/** Longest argument list that can still be a bare interactive shell (`-i -l` and a spare). */
const MAX_SHELL_FLAGS = 4;

/** The shell a path names, by basename (a login-style leading `-` ignored), or null for any other program. */
export function shellKindOf(shellPath: string): IntegratedShell | null {
  const base = shellPath.slice(shellPath.lastIndexOf('/') + 1).replace(/^-/, '');
  return base === 'bash' || base === 'zsh' || base === 'fish' ? base : null;
}

export interface ShellFlags {
  readonly login: boolean;
  readonly interactive: boolean;
}

/**
 * Reads the flags of a bare interactive shell (`-i`, `-l`, `--login`, `--interactive` for fish, and short
 * clusters of `i` / `l`), or returns null when `args` asks for anything else.
 */
export function interactiveFlags(shell: IntegratedShell, args: readonly string[]): ShellFlags | null {
  if (args.length > MAX_SHELL_FLAGS) return null;
  let login = false;
  let interactive = false;
  for (const arg of args) {
    if (arg === '--login') login = true;
    else if (arg === '--interactive' && shell === 'fish') interactive = true;
    else if (/^-[il]+$/.test(arg)) {
      if (arg.includes('l')) login = true;
      if (arg.includes('i')) interactive = true;
    } else return null;
  }
  return { login, interactive };
}

/**
 * Every shell Burrow recognises as one when it is a session's whole command, integrated or not: a session
 * running one of these bare (`burrow new`, `burrow new -- dash`) is a shell whose commands come from shell
 * integration when it has any; anything else is a command the session runs itself (issue 13).
 */
const KNOWN_SHELLS: ReadonlySet<string> = new Set([
  'sh',
  'ash',
  'dash',
  'bash',
  'zsh',
  'fish',
  'ksh',
  'ksh93',
  'mksh',
  'pdksh',
  'oksh',
  'yash',
  'csh',
  'tcsh',
  'nu',
  'elvish',
  'xonsh',
  'pwsh',
  'osh',
  'ysh',
]);

/** An option that hands the shell a command string (bash/zsh/sh `-c`, `-lc`…; fish/nu `--command`; pwsh `-Command`). */
function isCommandOption(arg: string): boolean {
  if (/^-[A-Za-z]+$/.test(arg) && arg.length <= 4 && arg.includes('c')) return true;
  return /^--?command(=.*)?$/i.test(arg);
}

/**
 * True when `argv` starts an interactive shell: a known shell (by basename, a login `-` ignored) given only
 * options, none of them a command string. `bash -lc make`, `sh script.sh` and `python` are commands.
 */
export function isInteractiveShell(argv: readonly string[]): boolean {
  const program = argv[0];
  if (program === undefined) return false;
  const base = program.slice(program.lastIndexOf('/') + 1).replace(/^-/, '');
  if (!KNOWN_SHELLS.has(base)) return false;
  return argv.slice(1).every((a) => a.startsWith('-') && a !== '-' && a !== '--' && !isCommandOption(a));
}
