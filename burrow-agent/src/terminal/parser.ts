/**
 * The streaming terminal parser: one per PTY generation (DESIGN §5 "Parsing"). Takes raw PTY bytes in any
 * chunking and returns the `TerminalEvent`s they contain, in stream order, from `feed()`.
 *
 * Why a returned array rather than a callback: one small allocation per chunk costs less than a megamorphic
 * call per event, and the attention engine applies a chunk's events as one batch anyway (alert-spec: "apply a
 * parse batch's reports and command boundaries in stream order").
 *
 * The byte machine is the DEC parser (transition-table.ts). Fast paths skip it where it would only confirm
 * the obvious, and bail to it on anything unusual, so both always agree (the chunking property test compares
 * them, since a split sequence always takes the table):
 * - ground, where almost all bytes are, skips to the next ESC or BEL with a short loop and, for long runs,
 *   `indexOf` (its results remembered for the rest of the chunk), so plain text pays no per-byte dispatch;
 * - a CSI wholly inside the chunk is read by one tight loop (`scanCsi`);
 * - an OSC wholly inside the chunk is interpreted in place, without copying; a split one is buffered.
 * Nothing is allocated per byte; OSC text is decoded once, when the OSC ends.
 *
 * Bounds (limits.ts): an OSC longer than `OSC_MAX_BYTES` is consumed to its terminator and dropped; kitty
 * chunk state is bounded in kitty-notifications.ts; `retainedBytes()` reports what is held.
 */
import type { TerminalEvent } from './events.js';
import { KittyNotifications } from './kitty-notifications.js';
import { CSI_PARAM_MAX, OSC_MAX_BYTES } from './limits.js';
import { dispatchOsc, type OscHandlers } from './osc-dispatch.js';
import { ShellIntegration } from './shell-integration.js';
import { Action, ST_AFTER_C2, State, TRANSITIONS, UTF8_C2 } from './transition-table.js';

const BEL = 0x07;
const ESC = 0x1b;
/** Ground bytes scanned by the plain loop before switching to `indexOf`; also the OSC byte-copy threshold. */
const SHORT_RUN = 32;
/** DECSET / DECRST mode number of focus-event reporting (xterm ctlseqs, "FocusIn/FocusOut"). */
const FOCUS_REPORTING_MODE = 1004;

const BELL: TerminalEvent = Object.freeze({ type: 'bell' });
const FOCUS_ON: TerminalEvent = Object.freeze({ type: 'focus-reporting', enabled: true });
const FOCUS_OFF: TerminalEvent = Object.freeze({ type: 'focus-reporting', enabled: false });

const CSI_FOCUS_ON = 1;
const CSI_FOCUS_OFF = 2;

/**
 * Events stay in byte order (events.ts `output`): when something at index `mark` onward was just reported,
 * the printable bytes counted before it go in front of it. Returns the count still pending (0 once reported).
 * Inserted after the fact, not pushed before every dispatch, because most OSCs (hyperlinks, colours) report
 * nothing and splitting the count there would only cost allocations.
 */
function outputBefore(events: TerminalEvent[], mark: number, output: number): number {
  if (output === 0 || events.length === mark) return output;
  // Shift the (usually one) new event up by hand: cheaper than splice, which allocates its result array.
  for (let k = events.length; k > mark; k--) events[k] = events[k - 1]!;
  events[mark] = { type: 'output', bytes: output };
  return 0;
}

/**
 * The common CSI in one tight loop: `[private marker] digits/separators final`, wholly inside this chunk.
 * Returns `(index after the final) << 2 | focus mode` (0 none, CSI_FOCUS_ON, CSI_FOCUS_OFF), or -1 when the CSI
 * has intermediates, is cut by the chunk's end or is malformed: the table then parses it from its `[` exactly
 * as it would have anyway, so this is only a shortcut, never a second grammar.
 */
function scanCsi(chunk: Uint8Array, start: number, n: number): number {
  let j = start;
  let privateMarker = 0;
  if (j < n && chunk[j]! >= 0x3c && chunk[j]! <= 0x3f) privateMarker = chunk[j++]!;
  let param = 0;
  let focusMode = false;
  while (j < n) {
    const b = chunk[j]!;
    if (b >= 0x30 && b <= 0x39) {
      param = param * 10 + (b - 0x30);
      if (param > CSI_PARAM_MAX) param = CSI_PARAM_MAX;
    } else if (b === 0x3b || b === 0x3a) {
      if (param === FOCUS_REPORTING_MODE) focusMode = true;
      param = 0;
    } else if (b >= 0x40 && b <= 0x7e) {
      if (j + 1 > 0x1fffffff) return -1;
      let mode = 0;
      if (privateMarker === 0x3f && (focusMode || param === FOCUS_REPORTING_MODE)) {
        if (b === 0x68) mode = CSI_FOCUS_ON;
        else if (b === 0x6c) mode = CSI_FOCUS_OFF;
      }
      return ((j + 1) << 2) | mode;
    } else {
      return -1;
    }
    j++;
  }
  return -1;
}

export interface TerminalParserOptions {
  /**
   * The session's shell-integration nonce (the secret Burrow handed its integration script), or null when it
   * injected none: then nothing in the output ever names, starts or ends a command (shell-integration.ts).
   */
  readonly nonce: string | null;
  /** Monotonic milliseconds, for expiring incomplete OSC 99 notifications. */
  readonly now: () => number;
}

export class TerminalParser {
  #state: State = State.Ground;
  readonly #osc = new Uint8Array(OSC_MAX_BYTES);
  #oscLength = 0;
  #oscOverflow = false;
  #csiPrivate = 0;
  #csiIntermediate = false;
  #csiParam = 0;
  #csiHasFocusMode = false;
  readonly #kitty: KittyNotifications;
  readonly #shell: ShellIntegration;
  readonly #handlers: OscHandlers;

  /**
   * @throws TypeError when `nonce` is neither null nor a non-empty string, or `now` is not a function.
   */
  constructor(options: TerminalParserOptions) {
    if (typeof options !== 'object' || options === null)
      throw new TypeError('TerminalParser: options required');
    const { nonce, now } = options;
    if (nonce !== null && (typeof nonce !== 'string' || nonce === '')) {
      throw new TypeError('TerminalParser: nonce must be null or a non-empty string');
    }
    if (typeof now !== 'function') throw new TypeError('TerminalParser: now must be a function');
    this.#kitty = new KittyNotifications(now);
    this.#shell = new ShellIntegration(nonce);
    this.#handlers = { kitty: this.#kitty, shell: this.#shell };
  }

  /** Bytes of untrusted input currently held (partial OSC, kitty chunks, a pending command line). */
  retainedBytes(): number {
    return this.#oscLength + this.#kitty.retainedBytes() + this.#shell.retainedBytes();
  }

  /**
   * Parses one chunk of PTY output. Events come in byte order; `output` events count the printable bytes
   * between them (one before each event that had some, one at the end for the rest).
   *
   * @throws TypeError when `chunk` is not a Uint8Array.
   */
  feed(chunk: Uint8Array): TerminalEvent[] {
    if (!(chunk instanceof Uint8Array))
      throw new TypeError('TerminalParser.feed: chunk must be a Uint8Array');
    const events: TerminalEvent[] = [];
    this.#kitty.expire();
    const n = chunk.length;
    let state = this.#state;
    let output = 0;
    let nextEsc = -1;
    let nextBel = -1;
    let i = 0;
    while (i < n) {
      if (state === State.Ground) {
        let j = i;
        const limit = Math.min(i + SHORT_RUN, n);
        while (j < limit) {
          const b = chunk[j]!;
          if (b === ESC || b === BEL) break;
          j++;
        }
        if (j === limit && j < n) {
          // A long run: let indexOf find the next stop, remembering each result for the rest of the chunk.
          if (nextEsc < j) {
            nextEsc = chunk.indexOf(ESC, j);
            if (nextEsc < 0) nextEsc = n;
          }
          if (nextBel < j) {
            nextBel = chunk.indexOf(BEL, j);
            if (nextBel < 0) nextBel = n;
          }
          j = Math.min(nextEsc, nextBel);
        }
        output += j - i;
        i = j;
        if (i >= n) break;
        if (chunk[i] === BEL) {
          const mark = events.length;
          events.push(BELL);
          output = outputBefore(events, mark, output);
          i++;
          continue;
        }
        if (i + 1 < n && chunk[i + 1] === 0x5b) {
          const scanned = scanCsi(chunk, i + 2, n);
          if (scanned >= 0) {
            const mode = scanned & 3;
            if (mode !== 0) {
              const mark = events.length;
              events.push(mode === CSI_FOCUS_ON ? FOCUS_ON : FOCUS_OFF);
              output = outputBefore(events, mark, output);
            }
            i = scanned >>> 2;
            continue;
          }
        }
        if (i + 1 < n && chunk[i + 1] === 0x5d) {
          // An OSC wholly inside this chunk, with no control bytes in it: interpret it in place, no copy. It
          // ends at BEL, ESC (of ST) or U+009C (C2 9C); a 9C after anything else is text and takes the table.
          let j = i + 2;
          while (j < n && chunk[j]! >= 0x20 && chunk[j] !== ST_AFTER_C2) j++;
          const terminator = j < n ? chunk[j]! : -1;
          const c1 = terminator === ST_AFTER_C2 && chunk[j - 1] === UTF8_C2;
          const end = c1 ? j - 1 : j;
          if ((terminator === BEL || terminator === ESC || c1) && end - (i + 2) <= OSC_MAX_BYTES) {
            const mark = events.length;
            dispatchOsc(chunk.subarray(i + 2, end), this.#handlers, events);
            output = outputBefore(events, mark, output);
            if (terminator === ESC) state = State.Escape;
            i = j + 1;
            continue;
          }
        }
        state = State.Escape;
        i++;
        continue;
      }
      if (state === State.OscString) {
        // Copy the run of payload bytes (0x20–0xFF) in one go, stopping at a 9C so the table can tell whether
        // a C2 before it made the pair U+009C (ST).
        let j = i;
        while (j < n && chunk[j]! >= 0x20 && chunk[j] !== ST_AFTER_C2) j++;
        if (j > i) {
          this.#oscPut(chunk, i, j);
          if (chunk[j - 1] === UTF8_C2) state = State.OscC2;
          i = j;
          if (i >= n) break;
        }
      }
      if (state === State.CsiParam) {
        // Parameters are most of a CSI's bytes (SGR colours): accumulate them without table dispatch.
        let param = this.#csiParam;
        let j = i;
        while (j < n) {
          const p = chunk[j]!;
          if (p >= 0x30 && p <= 0x39) {
            param = param * 10 + (p - 0x30);
            if (param > CSI_PARAM_MAX) param = CSI_PARAM_MAX;
          } else if (p === 0x3b || p === 0x3a) {
            if (param === FOCUS_REPORTING_MODE) this.#csiHasFocusMode = true;
            param = 0;
          } else break;
          j++;
        }
        this.#csiParam = param;
        i = j;
        if (i >= n) break;
      }
      const b = chunk[i]!;
      const transition = TRANSITIONS[(state << 8) | b]!;
      state = transition & 0x0f;
      switch ((transition >> 4) as Action) {
        case Action.None:
          break;
        case Action.Execute:
          if (b === BEL) {
            const mark = events.length;
            events.push(BELL);
            output = outputBefore(events, mark, output);
          } else output++;
          break;
        case Action.Print:
          output++;
          break;
        case Action.Clear:
          this.#csiPrivate = 0;
          this.#csiIntermediate = false;
          this.#csiParam = 0;
          this.#csiHasFocusMode = false;
          break;
        case Action.Collect:
          if (b >= 0x3c) this.#csiPrivate = b;
          else this.#csiIntermediate = true;
          break;
        case Action.Param:
          if (b <= 0x39) {
            const value = this.#csiParam * 10 + (b - 0x30);
            this.#csiParam = Math.min(value, CSI_PARAM_MAX);
          } else {
            if (this.#csiParam === FOCUS_REPORTING_MODE) this.#csiHasFocusMode = true;
            this.#csiParam = 0;
          }
          break;
        case Action.CsiDispatch: {
          const mark = events.length;
          this.#csiDispatch(b, events);
          output = outputBefore(events, mark, output);
          break;
        }
        case Action.EscDispatch:
          break;
        case Action.OscStart:
          this.#oscLength = 0;
          this.#oscOverflow = false;
          break;
        case Action.OscPut:
          this.#oscPut(chunk, i, i + 1);
          break;
        case Action.OscEnd:
        case Action.OscEndC1: {
          // U+009C: the C2 already kept is part of the terminator, not of the payload.
          if (transition >> 4 === Action.OscEndC1 && this.#oscLength > 0) this.#oscLength--;
          const mark = events.length;
          this.#oscEnd(events);
          output = outputBefore(events, mark, output);
          break;
        }
        case Action.Abort:
          this.#oscLength = 0;
          this.#oscOverflow = false;
          break;
      }
      i++;
    }
    this.#state = state;
    if (output > 0) events.push({ type: 'output', bytes: output });
    return events;
  }

  #oscPut(chunk: Uint8Array, from: number, to: number): void {
    if (this.#oscOverflow) return;
    if (this.#oscLength + (to - from) > OSC_MAX_BYTES) {
      // Oversized: forget what was kept now, so memory is bounded, and drop the OSC when it ends.
      this.#oscOverflow = true;
      this.#oscLength = 0;
      return;
    }
    if (to - from < SHORT_RUN) {
      const osc = this.#osc;
      let length = this.#oscLength;
      for (let k = from; k < to; k++) osc[length++] = chunk[k]!;
      this.#oscLength = length;
      return;
    }
    this.#osc.set(chunk.subarray(from, to), this.#oscLength);
    this.#oscLength += to - from;
  }

  #oscEnd(events: TerminalEvent[]): void {
    const length = this.#oscLength;
    const overflow = this.#oscOverflow;
    this.#oscLength = 0;
    this.#oscOverflow = false;
    if (!overflow) dispatchOsc(this.#osc.subarray(0, length), this.#handlers, events);
  }

  #csiDispatch(final: number, events: TerminalEvent[]): void {
    // DECSET `CSI ? Pm h` / DECRST `CSI ? Pm l`, with 1004 anywhere among the parameters.
    if (this.#csiPrivate !== 0x3f || this.#csiIntermediate) return;
    if (final !== 0x68 && final !== 0x6c) return;
    if (this.#csiHasFocusMode || this.#csiParam === FOCUS_REPORTING_MODE) {
      events.push(final === 0x68 ? FOCUS_ON : FOCUS_OFF);
    }
  }
}
