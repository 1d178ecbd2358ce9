/**
 * Tells xterm.js's answers to terminal queries apart from the user's typing. xterm emits both through
 * `onData`; the protocol sends them differently (`input` kind `reply` does not acknowledge a ring,
 * DESIGN §4.3 / client-messages `InputMessage`). Focus reports (CSI I / CSI O) are dropped: the Burrow sends
 * them to programs itself from engagement (DESIGN §5 "Focus reports to programs"), not from xterm's own focus.
 */
export type DataKind = 'user' | 'reply' | 'drop';

/** Longest reply we classify by shape; longer data is typing or paste. */
const MAX_REPLY_CHARS = 256;

const REPLY_SHAPES: readonly RegExp[] = [
  /^\x1b\[[?>=]?[\d;]*c$/, // primary / secondary / tertiary device attributes
  /^\x1b\[\??\d+;\d+R$/, // cursor position report
  /^\x1b\[\??[\d;]*n$/, // device status report
  /^\x1b\[\??[\d;]+\$y$/, // DECRQM mode report
  /^\x1bP[\s\S]*\x1b\\$/, // DCS answers (DECRQSS, XTGETTCAP)
  /^\x1b\][\d;]+[\s\S]*(\x07|\x1b\\)$/, // OSC colour queries answered
  /^\x1b\[\d+;\d+;\d+t$/, // window size reports
];

export function classifyTerminalData(data: string): DataKind {
  if (data === '\x1b[I' || data === '\x1b[O') return 'drop';
  if (data.length > MAX_REPLY_CHARS || !data.startsWith('\x1b')) return 'user';
  return REPLY_SHAPES.some((re) => re.test(data)) ? 'reply' : 'user';
}
