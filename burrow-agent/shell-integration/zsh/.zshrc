# Burrow shell integration for zsh (interactive shells): the user's .zshrc, then Burrow's hooks. See .zshenv.
__burrow_source_user .zshrc
builtin source "$__burrow_dir/burrow-hooks.zsh"
if [[ -o login ]]; then
  ZDOTDIR=$__burrow_dir
else
  __burrow_finish_startup
fi
