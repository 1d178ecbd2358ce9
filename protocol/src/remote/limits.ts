/**
 * Every bound of the remote API v1, in one place, with units. [SPEC: R-LIM-1]
 *
 * Text bounds are in Unicode code points (the unit the Burrow's sanitizer bounds in, DESIGN §2); byte bounds are
 * in bytes of the encoded frame. A decoder rejects anything over a bound; an encoder refuses to produce it.
 */

/** Largest Noise transport plaintext (DESIGN §4.2): 65535-byte message minus the 16-byte ChaChaPoly tag. */
export const MAX_NOISE_PLAINTEXT_BYTES = 65_519;

/**
 * Largest application message after reassembly, in bytes. A 10,000-line × 120-column snapshot with colours is
 * typically 2–6 MB once serialized (SGR sequences only where attributes change); 16 MiB leaves room for dense
 * truecolour screens. A Burrow whose snapshot would exceed MAX_SNAPSHOT_BYTES trims the oldest scrollback and
 * sets `hasOlder` (R-ATTACH-4), so no screen is ever unsendable.
 */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** Largest snapshot / history text, in UTF-8 bytes: the message bound minus room for its JSON header. */
export const MAX_SNAPSHOT_BYTES = MAX_MESSAGE_BYTES - 64 * 1024;

/**
 * Largest JSON part of a control message, in UTF-8 bytes. The worst-case directory snapshot (MAX_SESSIONS entries
 * with every text field at its bound, four UTF-8 bytes per code point) is about 4 MB; a test pins that it fits.
 */
export const MAX_CONTROL_JSON_BYTES = 5 * 1024 * 1024;

/** Largest output chunk in one `output` frame, in bytes (the Burrow usually sends far less per frame). */
export const MAX_OUTPUT_CHUNK_BYTES = 1024 * 1024;

/** Largest `input` frame payload, in bytes: a big paste. */
export const MAX_INPUT_CHUNK_BYTES = 1024 * 1024;

/**
 * Pastes (R-FLOW-2, issue 24.8): a phone cuts input into `input` frames of at most INPUT_CHUNK_BYTES (under
 * the Burrow's 64 KiB per write), keeps at most INPUT_WINDOW_BYTES of them unacknowledged by `input-ack`, and
 * sends no faster than PASTE_BYTES_PER_SECOND after a burst of PASTE_BURST_BYTES — half the relay's inbound
 * budget for a Burrow (RL-LIM-7: 4 MiB burst, 1 MiB/s), so a paste never trips it and leaves room for the
 * Burrow's other phones. A paste over MAX_PASTE_BYTES is refused before any of it is sent (32 s at that rate).
 */
export const INPUT_CHUNK_BYTES = 32 * 1024;
export const INPUT_WINDOW_BYTES = 256 * 1024;
export const PASTE_BYTES_PER_SECOND = 512 * 1024;
export const PASTE_BURST_BYTES = 1024 * 1024;
export const MAX_PASTE_BYTES = 16 * 1024 * 1024;

/** Reassembler: bytes it may hold across all partial messages (each reserved at its first fragment). */
export const MAX_REASSEMBLY_BYTES = 2 * MAX_MESSAGE_BYTES;

/** Reassembler: partial (fragmented, not yet complete) messages it may hold at once. */
export const MAX_PARTIAL_MESSAGES = 4;

/** Smallest fragment payload a sender may choose, in bytes (keeps header overhead and fragment counts sane). */
export const MIN_FRAGMENT_CHUNK_BYTES = 1024;

/** Session ids: 1–32 characters of [A-Za-z0-9_-] (ASCII, so one byte each in binary frames). */
export const MAX_SESSION_ID_CHARS = 32;

/** Request correlation ids: integers 1 … 2^32−1, chosen by the requester. */
export const MAX_RID = 0xffff_ffff;

/** Sessions in one directory snapshot. */
export const MAX_SESSIONS = 256;

/** Session label (`name`), burrow name, device label: code points. */
export const MAX_LABEL_CHARS = 64;

/** Window title reported by the program: code points. */
export const MAX_TITLE_CHARS = 256;

/** Working directory: code points. */
export const MAX_CWD_CHARS = 1024;

/** Running command line: code points. */
export const MAX_COMMAND_CHARS = 1024;

/** A resumable or resumed session's coding-agent conversation id (R-DIR-8, R-DIR-9): code points. */
export const MAX_CONVERSATION_ID_CHARS = 128;

/** The name of the coding agent a resumable or resumed session ran (`claude`, `codex`, …): code points. */
export const MAX_AGENT_NAME_CHARS = 32;

/** Watch key (`commandWatchKey`) and one watch rule: code points. */
export const MAX_WATCH_KEY_CHARS = 128;

/** Watch rules in one list. */
export const MAX_WATCH_RULES = 256;

/** Notification title: code points. */
export const MAX_NOTIFICATION_TITLE_CHARS = 256;

/** Notification body: code points. */
export const MAX_NOTIFICATION_BODY_CHARS = 1024;

/** Episode id: 1–32 characters of the session-id alphabet. */
export const MAX_EPISODE_ID_CHARS = 32;

/** argv of a created session: entries, and code points per entry. */
export const MAX_ARGV_ENTRIES = 256;
export const MAX_ARG_CHARS = 4096;
/** …and code points across all entries, so a worst-case `create` stays far inside MAX_CONTROL_JSON_BYTES. */
export const MAX_ARGV_TOTAL_CHARS = 32 * 1024;

/** App version string (`hello`): printable ASCII characters. */
export const MAX_VERSION_CHARS = 32;

/** Capabilities in `hello`, and characters per capability token. */
export const MAX_CAPABILITIES = 32;
export const MAX_CAPABILITY_CHARS = 32;

/** Human-readable text in `error` and `pair-rejected`: code points. */
export const MAX_ERROR_TEXT_CHARS = 512;

/** Device platform / user-agent text in `pair-request`: code points. */
export const MAX_DEVICE_INFO_CHARS = 256;

/** Relay URL in `pair-accepted`: characters. */
export const MAX_URL_CHARS = 2048;

/** Terminal size: columns and rows, each 1 … this. */
export const MAX_TERMINAL_COLS = 1000;
export const MAX_TERMINAL_ROWS = 1000;

/** Lines one `history` request may ask for. */
export const MAX_HISTORY_LINES = 10_000;

/** Every duration setting (ms) the wire accepts; the Burrow clamps further to its own policy. */
export const MAX_SETTING_MS = 24 * 60 * 60 * 1000;

/** Byte offsets and line numbers are non-negative integers below 2^53 (exact in a JS number). */
export const MAX_OFFSET = Number.MAX_SAFE_INTEGER;

/** Timestamps are Unix epoch milliseconds, 0 … this (year 2286; catches seconds-vs-ms mix-ups only loosely). */
export const MAX_TIMESTAMP_MS = 9_999_999_999_999;

/** Devices counted in a `push-test-result` (the relay clamps targets to its MAX_PUSH_TARGETS, far below this). */
export const MAX_REPORTED_DEVICES = 1024;

/**
 * R-FLOW-1: the phone acknowledges every this many bytes of whole Burrow frames received. Small against the
 * Burrow's per-viewer backlog cap (1 MiB), so a phone that reads keeps well inside it while output streams.
 */
export const FLOW_ACK_EVERY_BYTES = 128 * 1024;

/**
 * R-BUILD-1: files in one Pocket build manifest. A build is ~20 files (index.html, a few chunks, CSS, icons,
 * the web manifest); 256 leaves room for fonts and code splitting while keeping `pocket-build` under ~90 KB.
 */
export const MAX_BUILD_FILES = 256;

/** R-BUILD-1: characters in one build path (`/assets/TerminalScreen-Bx3k9a1Q.js`). */
export const MAX_BUILD_PATH_CHARS = 256;

/** R-BUILD-1: bytes of `pocket-build.json` a reader accepts (MAX_BUILD_FILES lines of at most ~330 bytes). */
export const MAX_BUILD_MANIFEST_BYTES = 128 * 1024;

/**
 * R-DIRECT-2: bytes of one SDP in `direct-offer` / `direct-answer`. A data-channel-only description is ~600
 * bytes without candidates and ~100 bytes more per candidate line; 16 KiB holds MAX_DIRECT_CANDIDATES of them
 * with room to spare, while keeping what reaches the WebRTC stack's parser small.
 */
export const MAX_SDP_BYTES = 16 * 1024;

/** R-DIRECT-2: lines of one SDP (a browser's data-channel offer has ~20). */
export const MAX_SDP_LINES = 128;

/** R-DIRECT-2: characters of one SDP line. */
export const MAX_SDP_LINE_CHARS = 1024;

/** R-DIRECT-3: characters of one ICE candidate (`candidate:…`, RFC 8839 §5.1; a browser's are ~150). */
export const MAX_ICE_CANDIDATE_CHARS = 512;

/** R-DIRECT-3: characters of a candidate's media id (`sdpMid`; browsers use "0"). */
export const MAX_ICE_MID_CHARS = 32;

/**
 * R-DIRECT-4: ICE candidates one side may announce for one direct path, inline in its SDP and trickled
 * together. A host on a few interfaces has ~2–6 (UDP and TCP per address, plus reflexive and relayed ones
 * with ICE servers configured).
 */
export const MAX_DIRECT_CANDIDATES = 32;

/** R-NET-2: ICE servers in the network policy (STUN/TURN URLs the owner configured). */
export const MAX_ICE_SERVERS = 4;

/** R-NET-2: characters of one ICE server URL, of its username and of its credential. */
export const MAX_ICE_URL_CHARS = 256;
export const MAX_ICE_CREDENTIAL_CHARS = 256;

/** R-DIRECT-6: `rejoin` ids are 16 random bytes (a routing hint for a new relay socket, never a secret). */
export const REJOIN_ID_BYTES = 16;

/**
 * R-PATH-2: the largest direct-path message, in bytes: one DATA frame, a kind byte and one whole Noise message
 * (65535). Exactly the 64 KiB RFC 8841 §6 lets a peer assume when the other's SDP names no
 * `a=max-message-size`, so every engine takes it as one SCTP user message (R-DIRECT-2 refuses an SDP that
 * announces less).
 */
export const MAX_DIRECT_MESSAGE_BYTES = 1 + 65_535;
