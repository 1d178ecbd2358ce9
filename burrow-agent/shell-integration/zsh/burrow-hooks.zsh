# Burrow's zsh hooks, sourced after the user's .zshrc. They report prompts and commands with OSC 633 (VS Code's
# shell integration sequences), each signed with the session nonce as its last field (Burrow's parser takes
# nothing else, src/terminal/shell-integration.ts): A;<nonce> prompt start, B prompt end (unsigned: it lives in
# PS1), E;<command line>;<nonce>, C;<nonce> command start, D;<exit>;<nonce>, P;Cwd=<dir>, plus OSC 7 (file://
# URL) for the working directory. Values use 633's escaping, which Burrow's parser undoes
# (src/terminal/text-decoding.ts unescapeVscodeValue): `\` is `\\`, and `;` and control characters are `\xHH`;
# other text (UTF-8 included) is sent as it is.

# Command lines are cut to this many characters before escaping: at most 4 bytes each once escaped, so
# `633;E;<line>;<nonce>` stays under the parser's OSC_MAX_BYTES (8192), and the parser keeps 2048 anyway.
typeset -g __burrow_cmdline_max_chars=1900
typeset -g __burrow_ran=0

# Sets REPLY to $1 in 633's value escaping.
__burrow_escape() {
  builtin emulate -L zsh
  local s=$1 out='' c i n
  s=${s//\\/\\\\}
  s=${s//;/\\x3b}
  if [[ $s == *[[:cntrl:]]* ]]; then
    for (( i = 1; i <= $#s; i++ )); do
      c=$s[i]
      # C1 controls are multibyte in UTF-8 and pass as they are, like any other non-ASCII text.
      if [[ $c == [[:cntrl:]] ]]; then
        builtin printf -v n '%d' "'$c"
        if (( n < 128 )); then builtin printf -v c '\\x%02x' "$n"; fi
      fi
      out+=$c
    done
    s=$out
  fi
  REPLY=$s
}

# Sets REPLY to $1 percent-encoded byte by byte (RFC 3986 unreserved characters and `/` kept).
__burrow_url_encode() {
  builtin emulate -L zsh
  builtin setopt no_multibyte
  local s=$1 out='' c i
  if [[ $s == *[^A-Za-z0-9/._~-]* ]]; then
    for (( i = 1; i <= $#s; i++ )); do
      c=$s[i]
      if [[ $c == [^A-Za-z0-9/._~-] ]]; then builtin printf -v c '%%%02X' "'$c"; fi
      out+=$c
    done
    s=$out
  fi
  REPLY=$s
}

__burrow_report_cwd() {
  local REPLY url
  __burrow_url_encode "$PWD"
  url=$REPLY
  __burrow_escape "$PWD"
  builtin printf '\e]7;file://%s%s\a\e]633;P;Cwd=%s\a' "$HOST" "$url" "$REPLY"
}

# First precmd hook: the finished command's status, then the prompt starts; B goes at the end of PROMPT so it
# is printed after the prompt itself (re-added whenever something replaces PROMPT).
__burrow_precmd() {
  local st=$?
  if (( __burrow_ran )); then
    builtin printf '\e]633;D;%s;%s\a' "$st" "$__burrow_nonce"
    __burrow_ran=0
  fi
  __burrow_report_cwd
  builtin printf '\e]633;A;%s\a' "$__burrow_nonce"
  if [[ $PS1 != *$'\e]633;B\a%}' ]]; then PS1="$PS1"$'%{\e]633;B\a%}'; fi
  return $st
}

# preexec gets the line as typed ($1), or, with the history off, the expanded text ($3).
__burrow_preexec() {
  local REPLY line=${1:-$3}
  __burrow_escape "${line[1,__burrow_cmdline_max_chars]}"
  builtin printf '\e]633;E;%s;%s\a\e]633;C;%s\a' "$REPLY" "$__burrow_nonce" "$__burrow_nonce"
  __burrow_ran=1
}

builtin autoload -Uz add-zsh-hook
add-zsh-hook preexec __burrow_preexec
add-zsh-hook precmd __burrow_precmd
# Run first among precmd hooks, so the status it reports is the command's, not another hook's.
precmd_functions=(__burrow_precmd ${precmd_functions:#__burrow_precmd})
