# Burrow shell integration for zsh (login shells): the user's .zlogin, the last startup file. See .zshenv.
__burrow_source_user .zlogin
__burrow_finish_startup
