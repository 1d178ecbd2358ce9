# Burrow shell integration for bash, loaded with `bash --init-file <this file>` (burrow-agent/src/shell-integration/launch.ts).
# It loads the user's own startup files first, then reports prompts and commands with OSC 633 (VS Code's shell
# integration sequences), each signed with the session nonce as its last field (Burrow's parser takes nothing
# else, src/terminal/shell-integration.ts): A;<nonce> prompt start, B prompt end (unsigned: it lives in PS1),
# E;<command line>;<nonce>, C;<nonce> command start, D;<exit>;<nonce>, P;Cwd=<dir>, plus OSC 7 (file:// URL)
# for the working directory. Values use 633's escaping, which Burrow's parser undoes
# (src/terminal/text-decoding.ts unescapeVscodeValue): `\` is `\\`, and `;` and control characters are `\xHH`;
# other text (UTF-8 included) is sent as it is.

if [[ -n "${__burrow_si_loaded-}" ]]; then builtin return 0; fi
__burrow_si_loaded=1

# The nonce proves a mark came from this script; no program the user runs may read it. It comes in a one-time
# file (src/shell-integration/nonce-file.ts), read and removed before any user file runs: the environment, which
# every program of this user can read in /proc/<pid>/environ, only names the file.
__burrow_nonce=''
if [[ -n ${BURROW_SHELL_NONCE_FILE-} ]]; then
  builtin read -r __burrow_nonce < "$BURROW_SHELL_NONCE_FILE" 2>/dev/null
  command rm -f -- "$BURROW_SHELL_NONCE_FILE" 2>/dev/null
  if [[ ! $__burrow_nonce =~ ^[0-9a-f]{16,128}$ ]]; then __burrow_nonce=''; fi
fi
builtin unset BURROW_SHELL_NONCE_FILE
__burrow_login=${BURROW_SHELL_LOGIN-}
builtin unset BURROW_SHELL_LOGIN

# --init-file replaces ~/.bashrc and cannot be combined with -l, so a login shell's files are read here, in
# bash's own order (bash(1) INVOCATION): /etc/profile, then the first of ~/.bash_profile, ~/.bash_login, ~/.profile.
if [[ $__burrow_login == 1 ]]; then
  if [[ -r /etc/profile ]]; then builtin . /etc/profile; fi
  if [[ -r ~/.bash_profile ]]; then builtin . ~/.bash_profile
  elif [[ -r ~/.bash_login ]]; then builtin . ~/.bash_login
  elif [[ -r ~/.profile ]]; then builtin . ~/.profile
  fi
else
  if [[ -r ~/.bashrc ]]; then builtin . ~/.bashrc; fi
fi
builtin unset __burrow_login

if [[ $- != *i* ]]; then builtin return 0; fi

# Command lines are cut to this many characters before escaping: at most 4 bytes each once escaped, so
# `633;E;<line>;<nonce>` stays under the parser's OSC_MAX_BYTES (8192), and the parser keeps 2048 anyway.
__burrow_cmdline_max_chars=1900

# Sets __burrow_escaped to $1 in 633's value escaping.
__burrow_escape() {
  local s=$1 out='' c i n
  s=${s//\\/\\\\}
  s=${s//;/\\x3b}
  if [[ $s == *[[:cntrl:]]* ]]; then
    for ((i = 0; i < ${#s}; i++)); do
      c=${s:i:1}
      # C1 controls are multibyte in UTF-8 and pass as they are, like any other non-ASCII text.
      if [[ $c == [[:cntrl:]] ]]; then
        builtin printf -v n '%d' "'$c"
        if ((n < 128)); then builtin printf -v c '\\x%02x' "$n"; fi
      fi
      out+=$c
    done
    s=$out
  fi
  __burrow_escaped=$s
}

# Sets __burrow_url_path to $1 percent-encoded byte by byte (RFC 3986 unreserved characters and `/` kept).
__burrow_url_encode() {
  local LC_ALL=C
  local s=$1 out='' c i
  if [[ $s == *[!A-Za-z0-9/._~-]* ]]; then
    for ((i = 0; i < ${#s}; i++)); do
      c=${s:i:1}
      if [[ $c == [!A-Za-z0-9/._~-] ]]; then builtin printf -v c '%%%02X' "'$c"; fi
      out+=$c
    done
    s=$out
  fi
  __burrow_url_path=$s
}

__burrow_report_cwd() {
  __burrow_url_encode "$PWD"
  __burrow_escape "$PWD"
  builtin printf '\e]7;file://%s%s\a\e]633;P;Cwd=%s\a' "${HOSTNAME-}" "$__burrow_url_path" "$__burrow_escaped"
}

# Runs first in PROMPT_COMMAND: the finished command's status, then the prompt starts.
__burrow_precmd() {
  local st=$?
  if [[ $__burrow_ran == 1 ]]; then
    builtin printf '\e]633;D;%s;%s\a' "$st" "$__burrow_nonce"
    __burrow_ran=0
  fi
  __burrow_report_cwd
  builtin printf '\e]633;A;%s\a' "$__burrow_nonce"
  # The user's prompt commands (and $? in their PS1) still see the command's status.
  builtin return "$st"
}

# Runs last in PROMPT_COMMAND, after anything that rewrites PS1 or PS0: B ends the prompt, input starts.
__burrow_prompt_ready() {
  local st=$?
  if [[ ${PS1-} != *"$__burrow_ps1_mark" ]]; then PS1+=$__burrow_ps1_mark; fi
  if [[ ${PS0-} != *"$__burrow_ps0_mark" ]]; then PS0+=$__burrow_ps0_mark; fi
  __burrow_prompt_hist=$HISTCMD
  __burrow_at_prompt=1
  builtin return "$st"
}

# PS0 is expanded once per command line read, before it runs (bash >= 4.4), also for a line that starts
# with a subshell, which the DEBUG trap below never sees. Its arithmetic runs in this shell: when HISTCMD
# moved, the line was saved to the history and the command substitution prints it as E, then C. A line the
# history did not take (history off, ignorespace, ignoredups) is left to the DEBUG trap.
__burrow_ps0_marks() {
  [[ $__burrow_unsaved == 0 ]] || builtin return 0
  [[ $(HISTTIMEFORMAT='' builtin history 1) =~ $__burrow_history_re ]] || builtin return 0
  __burrow_print_command "${BASH_REMATCH[2]}"
}

__burrow_print_command() {
  __burrow_escape "${1:0:__burrow_cmdline_max_chars}"
  builtin printf '\e]633;E;%s;%s\a\e]633;C;%s\a' "$__burrow_escaped" "$__burrow_nonce" "$__burrow_nonce"
}

# DEBUG trap: for a line PS0 did not report, the first simple command after the prompt is the command
# starting, and bash's current command (BASH_COMMAND, the line's first simple command) names it.
__burrow_preexec() {
  [[ $__burrow_at_prompt == 1 ]] || builtin return 0
  [[ -z ${COMP_LINE-} ]] || builtin return 0
  __burrow_at_prompt=0
  # An empty line runs no command: the first thing the trap sees is PROMPT_COMMAND itself.
  [[ $BASH_COMMAND == __burrow_precmd* ]] && builtin return 0
  __burrow_print_command "$BASH_COMMAND"
  __burrow_ran=1
}

# `history 1` prints "<spaces><number>[*]<two spaces><line>" (a `*` marks an edited entry).
__burrow_history_re='^ *([0-9]+)\*?  (.*)$'
__burrow_ps1_mark='\[\e]633;B\a\]'
# ${__burrow_nil:<arithmetic>:0} expands to nothing; an unset variable would skip the arithmetic.
__burrow_nil=''
__burrow_ps0_mark='${__burrow_nil:$((__burrow_unsaved = HISTCMD == __burrow_prompt_hist, __burrow_ran |= 1 - __burrow_unsaved, __burrow_at_prompt &= __burrow_unsaved, 0)):0}$(__burrow_ps0_marks)'
__burrow_ran=0
__burrow_at_prompt=0
__burrow_unsaved=1
__burrow_prompt_hist=0

# Keep the user's PROMPT_COMMAND (a string or, in bash >= 5.1, an array) between our two hooks.
if [[ "$(builtin declare -p PROMPT_COMMAND 2>/dev/null)" == "declare -a"* ]]; then
  PROMPT_COMMAND=(__burrow_precmd "${PROMPT_COMMAND[@]}" __burrow_prompt_ready)
else
  PROMPT_COMMAND="__burrow_precmd${PROMPT_COMMAND:+$'\n'$PROMPT_COMMAND}"$'\n'__burrow_prompt_ready
fi

# Keep the user's DEBUG trap: it runs first, then ours, both before each command.
__burrow_capture_trap() { __burrow_user_debug=$1; }
__burrow_user_debug=''
__burrow_trap_line=$(builtin trap -p DEBUG)
if [[ -n $__burrow_trap_line ]]; then builtin eval "__burrow_capture_trap ${__burrow_trap_line#trap -- }"; fi
builtin trap "${__burrow_user_debug:+$__burrow_user_debug$'\n'}__burrow_preexec" DEBUG
builtin unset -f __burrow_capture_trap
builtin unset __burrow_trap_line __burrow_user_debug
