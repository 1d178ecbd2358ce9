/**
 * Shell-integration marks (DESIGN §5 "Shell integration"): OSC 133 (FinalTerm / semantic prompts, with fish
 * 4's `133;C;cmdline_url=<percent-encoded>` and kitty's `133;C;cmdline=<shell-quoted>`) and OSC 633 (VS Code:
 * A B C D as 133, E the command line, P properties). Holds the one piece of cross-sequence state: the command
 * line 633;E announced for the next C. A command line from 133;C is never trusted: any program can print it.
 *
 * VS Code prints `633;E;<escaped command>;<nonce>` right before `633;C` (shellIntegration-bash.sh
 * `__vsc_command_output_start`). The nonce is a secret the Burrow puts in the shell's environment, so a
 * program printing its own 633;E cannot make a command line look like the shell's: `trusted` is true only
 * when the E had exactly those two fields and its nonce equals the session's (constant-time compare).
 */
import { sanitizeText } from '@burrow/crypto';
import type { TerminalEvent } from './events.js';
import {
  COMMAND_LINE_MAX_CODE_POINTS,
  CWD_MAX_CODE_POINTS,
  MAX_COMMAND_LINES,
  PROPERTY_KEY_MAX_CODE_POINTS,
  PROPERTY_VALUE_MAX_CODE_POINTS,
} from './limits.js';
import { unquoteShellWords } from './shell-quoting.js';
import {
  decodeUtf8,
  parseDecimal,
  percentDecode,
  splitFields,
  startsWithAscii,
  unescapeVscodeValue,
} from './text-decoding.js';

/** At most this many `;` fields are split out of a 133 / 633 payload; the last keeps any remainder. */
const MAX_FIELDS = 16;

const PROMPT_START: TerminalEvent = Object.freeze({ type: 'prompt-start' });
const COMMAND_INPUT_START: TerminalEvent = Object.freeze({ type: 'command-input-start' });

/**
 * A command line as the engine keys it: each line sanitized on its own (controls stripped, whitespace
 * collapsed) and the lines joined with '\n', because a line break separates commands — sanitizing the whole
 * line at once folded `cd /tmp⏎busyq` into `cd /tmp busyq`, which keys as `cd` (issue 13). Empty lines are
 * dropped; at most `MAX_COMMAND_LINES` lines and `COMMAND_LINE_MAX_CODE_POINTS` code points in all are kept.
 */
export function sanitizeCommandLine(raw: string): string {
  let out = '';
  let room = COMMAND_LINE_MAX_CODE_POINTS;
  let lines = 0;
  for (const line of raw.split(/\r\n?|\n/)) {
    if (lines >= MAX_COMMAND_LINES || room <= 1) break;
    const budget = lines === 0 ? room : room - 1;
    const clean = sanitizeText(line, budget);
    if (clean === '') continue;
    out += lines === 0 ? clean : `\n${clean}`;
    room -= (lines === 0 ? 0 : 1) + [...clean].length;
    lines++;
  }
  return out;
}

/** Compares two byte strings in time that depends only on their lengths. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

export class ShellIntegration {
  readonly #nonce: Uint8Array | null;
  #pendingCommandLine: string | null = null;
  #pendingTrusted = false;

  constructor(nonce: string | null) {
    this.#nonce = nonce === null ? null : new TextEncoder().encode(nonce);
  }

  /** Bytes (two per UTF-16 code unit) held for the next command start, for the retained-state bound. */
  retainedBytes(): number {
    return this.#pendingCommandLine === null ? 0 : this.#pendingCommandLine.length * 2;
  }

  /** OSC 133 ; <payload>. */
  osc133(payload: Uint8Array, events: TerminalEvent[]): void {
    const fields = splitFields(payload, MAX_FIELDS);
    const mark = fields[0]!;
    if (mark.length !== 1) return;
    switch (mark[0]) {
      case 0x41: // A
        this.#clearPending();
        events.push(PROMPT_START);
        return;
      case 0x42: // B
        events.push(COMMAND_INPUT_START);
        return;
      case 0x43: {
        // C, options after it; fish 4 sends cmdline_url (fish-shell src/terminal.rs osc_133_command_start).
        for (let f = 1; f < fields.length; f++) {
          const option = fields[f]!;
          if (startsWithAscii(option, 'cmdline_url=')) {
            const line = sanitizeCommandLine(decodeUtf8(percentDecode(option.subarray(12))));
            this.#clearPending();
            events.push({ type: 'command-start', commandLine: line === '' ? null : line, trusted: false });
            return;
          }
          if (startsWithAscii(option, 'cmdline=')) {
            // kitty's quoted form may hold raw ';', so it runs to the end of the payload.
            const offset = option.byteOffset - payload.byteOffset + 8;
            const quoted = decodeUtf8(payload.subarray(offset));
            const line = sanitizeCommandLine(unquoteShellWords(quoted));
            this.#clearPending();
            events.push({ type: 'command-start', commandLine: line === '' ? null : line, trusted: false });
            return;
          }
        }
        this.#commandStart(events);
        return;
      }
      case 0x44: // D [; exit]
        this.#commandEnd(fields, events);
        return;
      default:
        return;
    }
  }

  /** OSC 633 ; <payload>. */
  osc633(payload: Uint8Array, events: TerminalEvent[]): void {
    const fields = splitFields(payload, MAX_FIELDS);
    const mark = fields[0]!;
    if (mark.length !== 1) return;
    switch (mark[0]) {
      case 0x41:
        this.#clearPending();
        events.push(PROMPT_START);
        return;
      case 0x42:
        events.push(COMMAND_INPUT_START);
        return;
      case 0x43:
        this.#commandStart(events);
        return;
      case 0x44:
        this.#commandEnd(fields, events);
        return;
      case 0x45: {
        // E ; <escaped command line> [; <nonce>]
        if (fields.length < 2) return;
        const line = decodeUtf8(unescapeVscodeValue(fields[1]!));
        const nonce = fields.length === 3 ? fields[2]! : null;
        const sanitized = sanitizeCommandLine(line);
        this.#pendingCommandLine = sanitized === '' ? null : sanitized;
        this.#pendingTrusted =
          nonce !== null && this.#nonce !== null && constantTimeEqual(nonce, this.#nonce);
        return;
      }
      case 0x50: {
        // P ; <Key>=<escaped value>
        if (fields.length !== 2) return;
        const property = fields[1]!;
        const eq = property.indexOf(0x3d);
        if (eq <= 0) return;
        const key = sanitizeText(decodeUtf8(property.subarray(0, eq)), PROPERTY_KEY_MAX_CODE_POINTS);
        if (key === '') return;
        const raw = decodeUtf8(unescapeVscodeValue(property.subarray(eq + 1)));
        if (key === 'Cwd') {
          // VS Code's working-directory property: the same event as OSC 7 (issue 13).
          const cwd = sanitizeText(raw, CWD_MAX_CODE_POINTS);
          if (cwd !== '') events.push({ type: 'cwd', cwd });
          return;
        }
        events.push({ type: 'property', key, value: sanitizeText(raw, PROPERTY_VALUE_MAX_CODE_POINTS) });
        return;
      }
      default:
        return; // F G H I and others: continuation prompts, right prompts; nothing Burrow uses
    }
  }

  #commandStart(events: TerminalEvent[]): void {
    const commandLine = this.#pendingCommandLine;
    const trusted = commandLine !== null && this.#pendingTrusted;
    this.#clearPending();
    events.push({ type: 'command-start', commandLine, trusted });
  }

  #commandEnd(fields: Uint8Array[], events: TerminalEvent[]): void {
    // A command line announced but never started belongs to no later command.
    this.#clearPending();
    const code = fields.length >= 2 ? parseDecimal(fields[1]!) : -1;
    events.push({ type: 'command-end', exitCode: code < 0 ? null : code });
  }

  #clearPending(): void {
    this.#pendingCommandLine = null;
    this.#pendingTrusted = false;
  }
}
