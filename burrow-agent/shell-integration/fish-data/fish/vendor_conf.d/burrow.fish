# Burrow shell integration for fish, loaded from vendor_conf.d because Burrow prepended its directory to
# XDG_DATA_DIRS (burrow-agent/src/shell-integration/launch.ts). It reports prompts and commands with OSC 633
# (VS Code's shell integration sequences), each signed with the session nonce as its last field (Burrow's
# parser takes nothing else, src/terminal/shell-integration.ts): A;<nonce> prompt start, B prompt end
# (unsigned: it is part of the prompt), E;<command line>;<nonce>, C;<nonce> command start, D;<exit>;<nonce>,
# P;Cwd=<dir>, plus OSC 7 (file:// URL) for the working directory.

# Put XDG_DATA_DIRS back as it was, first, so nothing the user runs sees Burrow's entry.
if set -q BURROW_FISH_DATA_DIR
    set -l kept
    for dir in (string split : -- "$XDG_DATA_DIRS")
        test "$dir" = "$BURROW_FISH_DATA_DIR"; or set -a kept $dir
    end
    if set -q BURROW_XDG_DATA_DIRS_UNSET
        set -e XDG_DATA_DIRS
    else
        set -gx XDG_DATA_DIRS (string join : -- $kept)
    end
    set -e BURROW_FISH_DATA_DIR
    set -e BURROW_XDG_DATA_DIRS_UNSET
end

# The nonce proves a mark came from this script; no program the user runs may read it. It comes in a one-time
# file (src/shell-integration/nonce-file.ts), read and removed here: the environment, which every program of
# this user can read in /proc/<pid>/environ, only names the file.
set -g __burrow_nonce ''
if set -q BURROW_SHELL_NONCE_FILE
    read -l nonce <$BURROW_SHELL_NONCE_FILE 2>/dev/null
    and string match -qr '^[0-9a-f]{16,128}$' -- $nonce
    and set -g __burrow_nonce $nonce
    command rm -f -- $BURROW_SHELL_NONCE_FILE 2>/dev/null
    set -e BURROW_SHELL_NONCE_FILE
end

status is-interactive; or return 0
set -q __burrow_si_loaded; and return 0
set -g __burrow_si_loaded 1

# Escapes $argv for a 633 value: url-style escaping percent-encodes every byte but A-Z a-z 0-9 / . _ ~ -, and
# each %HH becomes 633's \xHH (Burrow's parser, src/terminal/text-decoding.ts unescapeVscodeValue, turns it
# back into the byte). The result is cut to stay under the parser's OSC_MAX_BYTES (8192), a partial escape
# at the cut dropped; the parser keeps at most 2048 characters anyway.
set -g __burrow_escaped_max_chars 7600
function __burrow_escape
    string escape --style=url -- "$argv" | string replace -ra '%([0-9A-Fa-f]{2})' '\\\\x$1' \
        | string sub -l $__burrow_escaped_max_chars | string replace -r '\\\\(x[0-9A-Fa-f]?)?$' ''
end

function __burrow_report_cwd
    set -l url (string escape --style=url -- $PWD)
    printf '\e]7;file://%s%s\a\e]633;P;Cwd=%s\a' $hostname $url (__burrow_escape $PWD)
end

# fish 4 also marks prompts and commands itself with OSC 133 (A, `C;cmdline_url=…`, D). Those carry no nonce,
# so Burrow's parser counts none of them (any program could print the same): these signed hooks report every
# fish version's commands, once.
set -g __burrow_ran 0

function __burrow_set_status
    return $argv[1]
end

function __burrow_preexec --on-event fish_preexec
    set -l line (__burrow_escape $argv)
    printf '\e]633;E;%s;%s\a\e]633;C;%s\a' "$line" "$__burrow_nonce" "$__burrow_nonce"
    set -g __burrow_ran 1
end

function __burrow_postexec --on-event fish_postexec
    set -l st $status
    printf '\e]633;D;%s;%s\a' $st "$__burrow_nonce"
    set -g __burrow_ran 0
    __burrow_set_status $st
end

# A prompt starts: once per prompt, from the event (fish_prompt the function also runs on every repaint).
function __burrow_prompt_start
    __burrow_report_cwd
    printf '\e]633;A;%s\a' "$__burrow_nonce"
end

# The user's config.fish is read after vendor_conf.d, so their fish_prompt is wrapped at the first prompt;
# B follows whatever it prints.
function __burrow_wrap_prompt --on-event fish_prompt
    functions -e __burrow_wrap_prompt
    if functions -q fish_prompt
        functions -c fish_prompt __burrow_user_prompt
    else
        function __burrow_user_prompt
            printf '> '
        end
    end
    function fish_prompt
        __burrow_user_prompt
        printf '\e]633;B\a'
    end
    __burrow_prompt_start
    function __burrow_prompt_hook --on-event fish_prompt
        __burrow_prompt_start
    end
end
