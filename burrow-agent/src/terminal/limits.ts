/**
 * Every bound the terminal parser holds untrusted PTY bytes to (DESIGN §5 "Parsing": bounded state; common
 * rules: every buffer, queue, map and string from outside has a named bound). Text caps count code points and
 * are applied by `sanitizeText` at parse time (alert-spec "Text And Security").
 */

/** Largest OSC payload kept (bytes after `ESC ]`). A longer one is consumed to its terminator and dropped. */
export const OSC_MAX_BYTES = 8192;

/** Largest CSI parameter value tracked; bigger numbers saturate (only 1004 matters to us). */
export const CSI_PARAM_MAX = 99_999;

/** Window / icon title (OSC 0 / 1 / 2). */
export const TITLE_MAX_CODE_POINTS = 256;

/** Notification title (OSC 777, OSC 99). */
export const NOTIFY_TITLE_MAX_CODE_POINTS = 256;

/** Notification body (OSC 9, OSC 777, OSC 99). */
export const NOTIFY_BODY_MAX_CODE_POINTS = 1024;

/** Working directory from OSC 7 or OSC 9;9 (PATH_MAX is 4096 bytes on Linux). */
export const CWD_MAX_CODE_POINTS = 4096;

/** Command line from a signed OSC 633;E (line breaks included). */
export const COMMAND_LINE_MAX_CODE_POINTS = 2048;
/** Lines kept of a multi-line command line (each a command for the watch key). */
export const MAX_COMMAND_LINES = 64;

/** OSC 633;P property key and value. */
export const PROPERTY_KEY_MAX_CODE_POINTS = 64;
export const PROPERTY_VALUE_MAX_CODE_POINTS = 1024;

/** Largest decimal field (exit code, progress percent, OSC number) read as a number, in digits. */
export const NUMBER_MAX_DIGITS = 9;

/**
 * Kitty OSC 99 chunk assembly (alert-spec: "Incomplete chunk state is capped and expired"): at most this many
 * notification ids open at once (the oldest is evicted), at most this many payload bytes kept per id (the rest
 * is dropped, the notification still completes), each id's key at most this long, and an id not completed
 * within the TTL is forgotten.
 */
export const KITTY_MAX_OPEN_IDS = 16;
export const KITTY_MAX_BYTES_PER_ID = 4096;
export const KITTY_ID_MAX_BYTES = 64;
export const KITTY_PENDING_TTL_MS = 30_000;

/** Upper bound of `TerminalParser.retainedBytes()`, whatever the input (asserted by the property tests). */
export const PARSER_RETAINED_BYTES_LIMIT =
  OSC_MAX_BYTES +
  KITTY_MAX_OPEN_IDS * (KITTY_MAX_BYTES_PER_ID + KITTY_ID_MAX_BYTES) +
  COMMAND_LINE_MAX_CODE_POINTS * 4;
