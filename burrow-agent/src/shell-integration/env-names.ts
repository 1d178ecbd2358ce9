/**
 * The environment variables that carry Burrow's shell integration from the daemon into the shell's startup
 * files (DESIGN §5 "Shell integration"). Every one of them is read by the shipped scripts and then unset, so
 * programs the user starts never see them; the scripts spell the same names (burrow-agent/shell-integration/).
 * None is a secret: the shell's initial environment stays readable in /proc/<pid>/environ.
 */

/**
 * The path of the session's one-time nonce file (nonce-file.ts). The script reads the nonce, removes the file
 * and unsets this before any user file runs; the nonce itself is never in any environment (issue 24.3).
 */
export const NONCE_FILE_ENV = 'BURROW_SHELL_NONCE_FILE';
/** `0` turns integration off: the shell is started exactly as asked (the user's own opt-out). */
export const OPT_OUT_ENV = 'BURROW_SHELL_INTEGRATION';
/** bash: `1` when the shell was asked to be a login shell; `--init-file` cannot be combined with `-l`. */
export const BASH_LOGIN_ENV = 'BURROW_SHELL_LOGIN';
/** zsh: the user's own ZDOTDIR, present only when they had one (else zsh's default, $HOME, applies). */
export const ZSH_USER_ZDOTDIR_ENV = 'BURROW_USER_ZDOTDIR';
/** fish: the entry Burrow prepended to XDG_DATA_DIRS, which the script removes again. */
export const FISH_DATA_DIR_ENV = 'BURROW_FISH_DATA_DIR';
/** fish: `1` when XDG_DATA_DIRS was unset before Burrow prepended to it, so the script unsets it again. */
export const FISH_XDG_UNSET_ENV = 'BURROW_XDG_DATA_DIRS_UNSET';
