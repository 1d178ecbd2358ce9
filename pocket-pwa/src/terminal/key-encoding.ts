/**
 * What the key bar's keys and modified typed characters send to the PTY, as xterm (TERM=xterm-256color)
 * encodes them: CSI/SS3 cursor keys (SS3 while the program enabled application cursor keys, DECCKM), the
 * xterm modifier parameter `1 + alt·2 + ctrl·4` for modified special keys, C0 control characters for Ctrl with
 * a character, and an ESC prefix for Alt ("meta sends escape").
 */
export type BarKey =
  | 'Escape'
  | 'Tab'
  | 'ArrowUp'
  | 'ArrowDown'
  | 'ArrowRight'
  | 'ArrowLeft'
  | 'PageUp'
  | 'PageDown'
  | 'Home'
  | 'End';

export interface KeyModifiers {
  readonly ctrl: boolean;
  readonly alt: boolean;
}

const ESC = '\x1b';
const CURSOR_FINAL: Partial<Record<BarKey, string>> = {
  ArrowUp: 'A',
  ArrowDown: 'B',
  ArrowRight: 'C',
  ArrowLeft: 'D',
  Home: 'H',
  End: 'F',
};
const TILDE_CODE: Partial<Record<BarKey, number>> = { PageUp: 5, PageDown: 6 };

function modifierParam(m: KeyModifiers): number {
  return 1 + (m.alt ? 2 : 0) + (m.ctrl ? 4 : 0);
}

/** Bytes (as a JS string of code units < 0x80) for a special key. */
export function encodeBarKey(key: BarKey, mods: KeyModifiers, applicationCursor: boolean): string {
  const param = modifierParam(mods);
  const final = CURSOR_FINAL[key];
  if (final !== undefined) {
    if (param > 1) return `${ESC}[1;${param}${final}`;
    return applicationCursor ? `${ESC}O${final}` : `${ESC}[${final}`;
  }
  const tilde = TILDE_CODE[key];
  if (tilde !== undefined) return param > 1 ? `${ESC}[${tilde};${param}~` : `${ESC}[${tilde}~`;
  if (key === 'Tab') return mods.ctrl ? '\t' : mods.alt ? `${ESC}\t` : '\t';
  // Escape
  return mods.alt ? `${ESC}${ESC}` : ESC;
}

/** The C0 control character xterm sends for Ctrl with `ch`, or null if Ctrl does not change `ch`. */
export function ctrlChar(ch: string): string | null {
  if (ch.length !== 1) return null;
  const c = ch.charCodeAt(0);
  if (c >= 0x61 && c <= 0x7a) return String.fromCharCode(c - 0x60); // a-z → ^A..^Z
  if (c >= 0x40 && c <= 0x5f) return String.fromCharCode(c - 0x40); // @ A-Z [ \ ] ^ _
  if (ch === ' ' || ch === '2') return '\x00';
  if (ch === '/' || ch === '-' || ch === '7') return '\x1f';
  if (ch === '~' || ch === '6') return '\x1e';
  if (ch === '?' || ch === '8') return '\x7f';
  if (ch === '3') return ESC;
  if (ch === '4') return '\x1c';
  if (ch === '5') return '\x1d';
  return null;
}

/**
 * Applies sticky modifiers to typed text. Only the first code point is modified (a one-shot modifier is for one
 * key); the rest passes through.
 */
export function applyModifiers(text: string, mods: KeyModifiers): string {
  if (text === '' || (!mods.ctrl && !mods.alt)) return text;
  const first = String.fromCodePoint(text.codePointAt(0)!);
  const rest = text.slice(first.length);
  let head = first;
  if (mods.ctrl) head = ctrlChar(first) ?? first;
  if (mods.alt) head = ESC + head;
  return head + rest;
}
