/**
 * Bounds on a session's command line, checked by the registry and by every decoder that carries one (the
 * control protocol, the attention store). Their own module, so a decoder does not load the session stack.
 */
/** Most arguments in a session's command. */
export const MAX_COMMAND_ARGS = 256;
/** Longest argument of a session's command, in UTF-8 bytes. */
export const MAX_COMMAND_ARG_BYTES = 4096;
