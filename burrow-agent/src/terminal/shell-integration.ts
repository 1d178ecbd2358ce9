/**
 * Shell-integration marks (DESIGN §5 "Shell integration"): OSC 633 as Burrow's own scripts print it
 * (burrow-agent/shell-integration/), and the parts of OSC 133 that say nothing about commands.
 *
 * Any program in a session can print these sequences, so only what the shell's integration script signed may
 * name a command, start one or end one (issue 24.2: a program printing `633;E;claude` + `633;C` changed what
 * was watched, and a bare `133;D` made an exit ring). The signature is the session's nonce, a secret only the
 * script holds (it reads it from a one-time file, never from the environment: shell-integration/nonce-file.ts),
 * as the last field:
 *
 *   633;A;<nonce>                  prompt start (forgets an announced command line)
 *   633;E;<escaped line>;<nonce>   the command line the next C starts (VS Code's shape, nonce included)
 *   633;C;<nonce>                  command start
 *   633;D;<exit>;<nonce>           command end (`633;D;;<nonce>` without an exit code)
 *   633;B  / 133;B                 prompt end: a boundary only, accepted from anyone (it is in the prompt
 *                                  string, which must not hold the nonce: users export PS1)
 *
 * Everything else that would set a command line, a watch key or an exit — 633 A/C/D/E without the nonce or
 * with another, 133 A/C/D (FinalTerm has no signature; fish 4's `cmdline_url`, kitty's `cmdline`) — is
 * treated as text: no event. A session Burrow did not integrate has no nonce, so nothing from its output ever
 * names a command (a command it was started with is named by the daemon, not by its output). 633;P properties
 * (Cwd among them) are not signed: a working directory attributes nothing.
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
import { decodeUtf8, parseDecimal, splitFields, unescapeVscodeValue } from './text-decoding.js';

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
  /** A signed 633;E's command line, for the next signed C. */
  #pendingCommandLine: string | null = null;

  constructor(nonce: string | null) {
    this.#nonce = nonce === null ? null : new TextEncoder().encode(nonce);
  }

  /** Bytes (two per UTF-16 code unit) held for the next command start, for the retained-state bound. */
  retainedBytes(): number {
    return this.#pendingCommandLine === null ? 0 : this.#pendingCommandLine.length * 2;
  }

  /** OSC 133 ; <payload>: only B (a boundary); A, C and D carry no signature and attribute nothing. */
  osc133(payload: Uint8Array, events: TerminalEvent[]): void {
    if (payload.length === 1 && payload[0] === 0x42) events.push(COMMAND_INPUT_START);
    else if (payload.length > 1 && payload[0] === 0x42 && payload[1] === 0x3b)
      events.push(COMMAND_INPUT_START);
  }

  /** OSC 633 ; <payload>. */
  osc633(payload: Uint8Array, events: TerminalEvent[]): void {
    const fields = splitFields(payload, MAX_FIELDS);
    const mark = fields[0]!;
    if (mark.length !== 1) return;
    switch (mark[0]) {
      case 0x41: // A ; <nonce>
        if (!this.#signed(fields, 2)) return;
        this.#pendingCommandLine = null;
        events.push(PROMPT_START);
        return;
      case 0x42: // B
        events.push(COMMAND_INPUT_START);
        return;
      case 0x43: {
        // C ; <nonce>
        if (!this.#signed(fields, 2)) return;
        const commandLine = this.#pendingCommandLine;
        this.#pendingCommandLine = null;
        events.push({ type: 'command-start', commandLine });
        return;
      }
      case 0x44: {
        // D ; <exit> ; <nonce>
        if (!this.#signed(fields, 3)) return;
        // A command line announced but never started belongs to no later command.
        this.#pendingCommandLine = null;
        const code = fields[1]!.length === 0 ? -1 : parseDecimal(fields[1]!);
        events.push({ type: 'command-end', exitCode: code < 0 ? null : code });
        return;
      }
      case 0x45: {
        // E ; <escaped command line> ; <nonce>
        if (!this.#signed(fields, 3)) return;
        const sanitized = sanitizeCommandLine(decodeUtf8(unescapeVscodeValue(fields[1]!)));
        this.#pendingCommandLine = sanitized === '' ? null : sanitized;
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

  /** Exactly `count` fields, the last being this session's nonce (constant-time compare). */
  #signed(fields: readonly Uint8Array[], count: number): boolean {
    return (
      fields.length === count && this.#nonce !== null && constantTimeEqual(fields[count - 1]!, this.#nonce)
    );
  }
}
