/**
 * The byte-level transition table of the DEC ANSI parser (Paul Williams' state diagram,
 * vt100.net/emu/dec_ansi_parser, as xterm.js's EscapeSequenceParser implements it), reduced to what Burrow
 * needs: the DCS, SOS, PM and APC strings collapse into one ignoring state, and printing is only counted.
 *
 * Raw PTY bytes are UTF-8, so bytes 0x80–0xFF are never C1 controls here: in UTF-8 they are lead and
 * continuation bytes (0x9C is the continuation byte of U+011C, for instance), and treating a raw 0x9C as ST
 * or 0x9B as CSI would cut printable text. The 7-bit forms (`ESC \`, `ESC [`, `ESC ]`) are recognised, and
 * one 8-bit form the way a UTF-8 terminal sees it: ST as the character U+009C, the bytes C2 9C, ends an OSC
 * or an ignored string (xterm.js decodes UTF-8 first and then ends an OSC on U+009C; issue 13). Two states
 * remember a C2 inside a string so the pair is recognised even when a read splits it.
 *
 * Each entry is `action << 4 | nextState`, one byte, looked up as `TABLE[state << 8 | byte]`.
 */

export enum State {
  Ground = 0,
  Escape = 1,
  EscapeIntermediate = 2,
  CsiEntry = 3,
  CsiParam = 4,
  CsiIntermediate = 5,
  CsiIgnore = 6,
  OscString = 7,
  /** DCS, SOS, PM and APC: consumed until ST (or CAN / SUB), never interpreted. BEL does not end them. */
  StringIgnore = 8,
  /** In an OSC right after a C2 byte (already kept): a 9C now is U+009C, ST. */
  OscC2 = 9,
  /** In an ignored string right after a C2 byte: a 9C now is U+009C, ST. */
  StringIgnoreC2 = 10,
}

export enum Action {
  /** Nothing beyond the state change (ignored byte). */
  None = 0,
  /** A C0 control executed in place: BEL rings, the rest count as output. */
  Execute = 1,
  /** Enter a CSI: reset the parameter state. */
  Clear = 2,
  /** A CSI private marker (0x3C–0x3F) or an intermediate (0x20–0x2F). */
  Collect = 3,
  /** A CSI parameter digit or separator. */
  Param = 4,
  CsiDispatch = 5,
  /** An escape sequence completed (none of them matter to Burrow). */
  EscDispatch = 6,
  OscStart = 7,
  OscPut = 8,
  /** The OSC ended (BEL, or the ESC of an ST): interpret it. */
  OscEnd = 9,
  /** CAN / SUB: drop the sequence in progress. */
  Abort = 10,
  /** A printable byte in ground. */
  Print = 11,
  /** The 9C of U+009C ended the OSC: drop the C2 kept before it, then interpret the OSC. */
  OscEndC1 = 12,
}

const STATE_COUNT = 11;
const CAN = 0x18;
const SUB = 0x1a;
const ESC = 0x1b;
const BEL = 0x07;
const LF = 0x0a;
const CR = 0x0d;
/** U+009C (8-bit ST) in UTF-8 is C2 9C. */
export const UTF8_C2 = 0xc2;
export const ST_AFTER_C2 = 0x9c;

function build(): Uint8Array {
  const table = new Uint8Array(STATE_COUNT * 256);
  const set = (state: State, from: number, to: number, action: Action, next: State): void => {
    for (let b = from; b <= to; b++) table[(state << 8) | b] = (action << 4) | next;
  };
  const executeC0 = (state: State): void => {
    set(state, 0x00, 0x1f, Action.Execute, state);
  };

  set(State.Ground, 0x00, 0x1f, Action.Execute, State.Ground);
  set(State.Ground, 0x20, 0xff, Action.Print, State.Ground);

  executeC0(State.Escape);
  set(State.Escape, 0x20, 0x2f, Action.Collect, State.EscapeIntermediate);
  set(State.Escape, 0x30, 0x7e, Action.EscDispatch, State.Ground);
  set(State.Escape, 0x5b, 0x5b, Action.Clear, State.CsiEntry); // [
  set(State.Escape, 0x5d, 0x5d, Action.OscStart, State.OscString); // ]
  for (const introducer of [0x50, 0x58, 0x5e, 0x5f]) {
    set(State.Escape, introducer, introducer, Action.None, State.StringIgnore); // P X ^ _
  }
  set(State.Escape, 0x7f, 0x7f, Action.None, State.Escape);
  set(State.Escape, 0x80, 0xff, Action.None, State.Ground);

  executeC0(State.EscapeIntermediate);
  set(State.EscapeIntermediate, 0x20, 0x2f, Action.Collect, State.EscapeIntermediate);
  set(State.EscapeIntermediate, 0x30, 0x7e, Action.EscDispatch, State.Ground);
  set(State.EscapeIntermediate, 0x7f, 0x7f, Action.None, State.EscapeIntermediate);
  set(State.EscapeIntermediate, 0x80, 0xff, Action.None, State.Ground);

  executeC0(State.CsiEntry);
  set(State.CsiEntry, 0x20, 0x2f, Action.Collect, State.CsiIntermediate);
  set(State.CsiEntry, 0x30, 0x3b, Action.Param, State.CsiParam);
  set(State.CsiEntry, 0x3c, 0x3f, Action.Collect, State.CsiParam);
  set(State.CsiEntry, 0x40, 0x7e, Action.CsiDispatch, State.Ground);
  set(State.CsiEntry, 0x7f, 0x7f, Action.None, State.CsiEntry);
  set(State.CsiEntry, 0x80, 0xff, Action.None, State.CsiIgnore);

  executeC0(State.CsiParam);
  set(State.CsiParam, 0x20, 0x2f, Action.Collect, State.CsiIntermediate);
  set(State.CsiParam, 0x30, 0x3b, Action.Param, State.CsiParam);
  set(State.CsiParam, 0x3c, 0x3f, Action.None, State.CsiIgnore);
  set(State.CsiParam, 0x40, 0x7e, Action.CsiDispatch, State.Ground);
  set(State.CsiParam, 0x7f, 0x7f, Action.None, State.CsiParam);
  set(State.CsiParam, 0x80, 0xff, Action.None, State.CsiIgnore);

  executeC0(State.CsiIntermediate);
  set(State.CsiIntermediate, 0x20, 0x2f, Action.Collect, State.CsiIntermediate);
  set(State.CsiIntermediate, 0x30, 0x3f, Action.None, State.CsiIgnore);
  set(State.CsiIntermediate, 0x40, 0x7e, Action.CsiDispatch, State.Ground);
  set(State.CsiIntermediate, 0x7f, 0x7f, Action.None, State.CsiIntermediate);
  set(State.CsiIntermediate, 0x80, 0xff, Action.None, State.CsiIgnore);

  executeC0(State.CsiIgnore);
  set(State.CsiIgnore, 0x20, 0x3f, Action.None, State.CsiIgnore);
  set(State.CsiIgnore, 0x40, 0x7e, Action.None, State.Ground);
  set(State.CsiIgnore, 0x7f, 0xff, Action.None, State.CsiIgnore);

  set(State.OscString, 0x00, 0x1f, Action.None, State.OscString);
  // Line breaks are kept (xterm.js drops every C0 in an OSC): an OSC 9 message's first line is its title
  // (osc-dispatch.ts osc9Message), and the sanitizer turns them into spaces everywhere else.
  set(State.OscString, LF, LF, Action.OscPut, State.OscString);
  set(State.OscString, CR, CR, Action.OscPut, State.OscString);
  set(State.OscString, BEL, BEL, Action.OscEnd, State.Ground);
  set(State.OscString, 0x20, 0xff, Action.OscPut, State.OscString);
  set(State.OscString, UTF8_C2, UTF8_C2, Action.OscPut, State.OscC2);

  set(State.OscC2, 0x00, 0x1f, Action.None, State.OscString);
  set(State.OscC2, LF, LF, Action.OscPut, State.OscString);
  set(State.OscC2, CR, CR, Action.OscPut, State.OscString);
  set(State.OscC2, BEL, BEL, Action.OscEnd, State.Ground);
  set(State.OscC2, 0x20, 0xff, Action.OscPut, State.OscString);
  set(State.OscC2, UTF8_C2, UTF8_C2, Action.OscPut, State.OscC2);
  set(State.OscC2, ST_AFTER_C2, ST_AFTER_C2, Action.OscEndC1, State.Ground);

  set(State.StringIgnore, 0x00, 0xff, Action.None, State.StringIgnore);
  set(State.StringIgnore, UTF8_C2, UTF8_C2, Action.None, State.StringIgnoreC2);
  set(State.StringIgnoreC2, 0x00, 0xff, Action.None, State.StringIgnore);
  set(State.StringIgnoreC2, UTF8_C2, UTF8_C2, Action.None, State.StringIgnoreC2);
  set(State.StringIgnoreC2, ST_AFTER_C2, ST_AFTER_C2, Action.None, State.Ground);

  // "Anywhere" transitions: CAN and SUB abort, ESC starts a new sequence (and ends an OSC, as in xterm.js,
  // so `ESC \` and a bare ESC both terminate it).
  for (let state = 0; state < STATE_COUNT; state++) {
    set(state, CAN, CAN, Action.Abort, State.Ground);
    set(state, SUB, SUB, Action.Abort, State.Ground);
    const inOsc = state === State.OscString || state === State.OscC2;
    set(state, ESC, ESC, inOsc ? Action.OscEnd : Action.None, State.Escape);
  }
  return table;
}

export const TRANSITIONS: Uint8Array = build();
