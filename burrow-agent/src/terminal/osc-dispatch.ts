/**
 * What a complete OSC means to Burrow (alert-spec "Terminal reports"; DESIGN §5). Called once per OSC with its
 * payload bytes (a view of the parser's buffer, valid only during the call); text is decoded and sanitized
 * here, once per field.
 *
 * - 0 / 1 / 2: titles. The number is read whole, so OSC 10 (a colour query) is never OSC 1.
 * - 7: working directory as a file URL.
 * - 9: iTerm2's message, unless it starts with a number (alone or before `;`): then it is a ConEmu
 *   subcommand, of which only 9;4 (progress) and 9;9 (working directory) mean anything here. A message of
 *   several lines is `<title>` then `<body>` (see `osc9Message`).
 * - 99: kitty notifications (kitty-notifications.ts). 133 / 633: shell integration (shell-integration.ts).
 * - 777: `notify;<title>;<body>` (urxvt, Ghostty); other subcommands are ignored.
 * - 7501: program status (program-status.ts), and its `?` capability query.
 * - 1337: iTerm2's `CurrentDir=<path>` (the working directory); its other keys are ignored.
 */
import { sanitizeText } from '@burrow/crypto';
import type { ProgressState, TerminalEvent } from './events.js';
import { decodeFileUrlPath } from './file-url.js';
import type { KittyNotifications } from './kitty-notifications.js';
import {
  CWD_MAX_CODE_POINTS,
  NOTIFY_BODY_MAX_CODE_POINTS,
  NOTIFY_TITLE_MAX_CODE_POINTS,
  TITLE_MAX_CODE_POINTS,
} from './limits.js';
import { dispatchProgramStatus } from './program-status.js';
import type { ShellIntegration } from './shell-integration.js';
import { decodeUtf8, parseDecimal, splitFields, startsWithAscii } from './text-decoding.js';

export interface OscHandlers {
  readonly kitty: KittyNotifications;
  readonly shell: ShellIntegration;
}

/** OSC numbers are short; anything longer is not one Burrow knows. */
const OSC_NUMBER_MAX_DIGITS = 4;

const PROGRESS_STATES: readonly ProgressState[] = ['clear', 'normal', 'error', 'indeterminate', 'paused'];
/** OSC 9;4 percents are clamped to this. */
const MAX_PROGRESS_PERCENT = 100;

export function dispatchOsc(osc: Uint8Array, handlers: OscHandlers, events: TerminalEvent[]): void {
  // Read the leading number up to ';' (or the end).
  let command = 0;
  let i = 0;
  while (i < osc.length && i <= OSC_NUMBER_MAX_DIGITS) {
    const d = osc[i]! - 0x30;
    if (d < 0 || d > 9) break;
    command = command * 10 + d;
    i++;
  }
  if (i === 0 || i > OSC_NUMBER_MAX_DIGITS) return;
  if (i < osc.length && osc[i] !== 0x3b) return; // "9x;…" is not OSC 9
  const payload = osc.subarray(Math.min(i + 1, osc.length));
  switch (command) {
    case 0:
    case 1:
    case 2:
      events.push({
        type: 'title',
        which: command === 0 ? 'both' : command === 1 ? 'icon' : 'window',
        title: sanitizeText(decodeUtf8(payload), TITLE_MAX_CODE_POINTS),
      });
      return;
    case 7: {
      const path = decodeFileUrlPath(payload);
      if (path === null) return;
      const cwd = sanitizeText(path, CWD_MAX_CODE_POINTS);
      if (cwd !== '') events.push({ type: 'cwd', cwd });
      return;
    }
    case 9:
      osc9(payload, events);
      return;
    case 99:
      handlers.kitty.dispatch(payload, events);
      return;
    case 133:
      handlers.shell.osc133(payload, events);
      return;
    case 633:
      handlers.shell.osc633(payload, events);
      return;
    case 777:
      osc777(payload, events);
      return;
    case 7501:
      dispatchProgramStatus(payload, events);
      return;
    case 1337:
      if (startsWithAscii(payload, 'CurrentDir=')) {
        const cwd = sanitizeText(decodeUtf8(payload.subarray(11)), CWD_MAX_CODE_POINTS);
        if (cwd !== '') events.push({ type: 'cwd', cwd });
      }
      return;
    default:
      return;
  }
}

/** True when the OSC 9 payload starts with digits followed by ';' or the end: a ConEmu subcommand. */
function isConEmuSubcommand(payload: Uint8Array): boolean {
  let i = 0;
  while (i < payload.length && payload[i]! >= 0x30 && payload[i]! <= 0x39) i++;
  return i > 0 && (i === payload.length || payload[i] === 0x3b);
}

/** Line breaks in an OSC 9 message: LF, CR LF or a lone CR. */
const LINE_BREAK = /\r\n?|\n/;

/**
 * An OSC 9 message as title and body. iTerm2's sequence has one text field, so programs that have a title put
 * it on the first line: Claude Code writes `\n\n<title>:\n<message>` ("Claude Code:" then "Claude needs your
 * permission…"). So a message of several non-empty lines is read as the first line (a trailing ':' dropped)
 * for the title and the rest for the body; a one-line message is all body, title ''. Splitting at a colon
 * within a line is deliberately not done: "Error: build failed" and URLs stay whole.
 */
export function osc9Message(text: string): { title: string; body: string } {
  const lines = text.split(LINE_BREAK).filter((l) => l.trim() !== '');
  if (lines.length >= 2) {
    const title = sanitizeText(lines[0]!.replace(/:\s*$/, ''), NOTIFY_TITLE_MAX_CODE_POINTS);
    const body = sanitizeText(lines.slice(1).join('\n'), NOTIFY_BODY_MAX_CODE_POINTS);
    if (title !== '' && body !== '') return { title, body };
  }
  return { title: '', body: sanitizeText(text, NOTIFY_BODY_MAX_CODE_POINTS) };
}

function osc9(payload: Uint8Array, events: TerminalEvent[]): void {
  if (!isConEmuSubcommand(payload)) {
    const { title, body } = osc9Message(decodeUtf8(payload));
    if (body !== '') events.push({ type: 'notify', source: 'osc9', title, body });
    return;
  }
  const fields = splitFields(payload, 4);
  const sub = parseDecimal(fields[0]!);
  if (sub === 4) progress(fields, events);
  else if (sub === 9 && fields.length >= 2) {
    // ConEmu 9;9;"<path>" (the quotes are optional).
    let path = decodeUtf8(payload.subarray(fields[0]!.length + 1));
    if (path.length >= 2 && path.startsWith('"') && path.endsWith('"')) path = path.slice(1, -1);
    const cwd = sanitizeText(path, CWD_MAX_CODE_POINTS);
    if (cwd !== '') events.push({ type: 'cwd', cwd });
  }
}

/**
 * ConEmu / Windows Terminal `9;4;<state>;<percent>`: 0 clear, 1 normal, 2 error, 3 indeterminate, 4 paused.
 * An invalid state or a percent that is not a number is ignored; clear and indeterminate carry no value;
 * error's percent is optional. Where alert-spec's table says "missing percent for 1/4, out-of-range percent:
 * ignored", Burrow follows the terminals instead (issue 13; attention README "Choices"): a missing or empty
 * percent for 1 or 4 still starts or updates the cycle, with no value, and a percent above 100 is clamped to
 * 100 (Windows Terminal and Ghostty clamp it too), so `9;4;1;150` completes the cycle rather than vanishing.
 */
function progress(fields: Uint8Array[], events: TerminalEvent[]): void {
  if (fields.length < 2) return;
  const stateNumber = parseDecimal(fields[1]!);
  const state = PROGRESS_STATES[stateNumber];
  if (state === undefined) return;
  const percentField = fields[2];
  const hasPercent = percentField !== undefined && percentField.length > 0;
  const parsed = hasPercent ? parseDecimal(percentField) : -1;
  if (hasPercent && parsed < 0 && (state === 'normal' || state === 'paused' || state === 'error')) return;
  const percent = parsed < 0 ? null : Math.min(parsed, MAX_PROGRESS_PERCENT);
  switch (state) {
    case 'clear':
    case 'indeterminate':
      events.push({ type: 'progress', state, value: null });
      return;
    default:
      events.push({ type: 'progress', state, value: percent });
  }
}

function osc777(payload: Uint8Array, events: TerminalEvent[]): void {
  if (!startsWithAscii(payload, 'notify;')) return;
  const fields = splitFields(payload.subarray(7), 2);
  const title = sanitizeText(decodeUtf8(fields[0]!), NOTIFY_TITLE_MAX_CODE_POINTS);
  const body = fields.length > 1 ? sanitizeText(decodeUtf8(fields[1]!), NOTIFY_BODY_MAX_CODE_POINTS) : '';
  if (title !== '' || body !== '') events.push({ type: 'notify', source: 'osc777', title, body });
}
