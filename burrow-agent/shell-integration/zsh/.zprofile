# Burrow shell integration for zsh (login shells): the user's .zprofile. See .zshenv.
__burrow_source_user .zprofile
ZDOTDIR=$__burrow_dir
