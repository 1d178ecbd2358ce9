# Burrow shell integration for zsh: zsh reads this first because Burrow set ZDOTDIR to this directory
# (burrow-agent/src/shell-integration/launch.ts). Each of these startup files points ZDOTDIR back at the
# user's directory while it sources the user's file of the same name, then back here so zsh finds the next
# one; the last file zsh reads (.zshrc, or .zlogin for a login shell) leaves the user's ZDOTDIR in place.

typeset -g __burrow_dir=$ZDOTDIR
# The nonce proves a mark came from Burrow's hooks; no program the user runs may read it. It comes in a one-time
# file (src/shell-integration/nonce-file.ts), read and removed before any user file runs: the environment, which
# every program of this user can read in /proc/<pid>/environ, only names the file.
typeset -g __burrow_nonce=''
if [[ -n ${BURROW_SHELL_NONCE_FILE-} ]]; then
  IFS= builtin read -r __burrow_nonce < "$BURROW_SHELL_NONCE_FILE" 2>/dev/null
  command rm -f -- "$BURROW_SHELL_NONCE_FILE" 2>/dev/null
  if [[ ! $__burrow_nonce =~ '^[0-9a-f]{16,128}$' ]]; then __burrow_nonce=''; fi
fi
builtin unset BURROW_SHELL_NONCE_FILE
if (( ${+BURROW_USER_ZDOTDIR} )); then
  typeset -g __burrow_user_zdotdir=$BURROW_USER_ZDOTDIR __burrow_had_zdotdir=1
else
  typeset -g __burrow_user_zdotdir=$HOME __burrow_had_zdotdir=0
fi
builtin unset BURROW_USER_ZDOTDIR

# Sources the user's file $1 from their ZDOTDIR, and notes a ZDOTDIR that file changes.
__burrow_source_user() {
  ZDOTDIR=$__burrow_user_zdotdir
  if [[ -r $ZDOTDIR/$1 ]]; then builtin source "$ZDOTDIR/$1"; fi
  if [[ $ZDOTDIR != "$__burrow_user_zdotdir" ]]; then
    __burrow_user_zdotdir=$ZDOTDIR
    __burrow_had_zdotdir=1
  fi
}

# Leaves the user's ZDOTDIR (or none, as they had it) and removes the startup helpers.
__burrow_finish_startup() {
  if (( __burrow_had_zdotdir )); then
    export ZDOTDIR=$__burrow_user_zdotdir
  else
    builtin unset ZDOTDIR
  fi
  builtin unset __burrow_user_zdotdir __burrow_had_zdotdir
  builtin unfunction __burrow_source_user __burrow_finish_startup
}

__burrow_source_user .zshenv
if [[ -o interactive || -o login ]]; then
  ZDOTDIR=$__burrow_dir
else
  __burrow_finish_startup
fi
