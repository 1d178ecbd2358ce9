/**
 * The kitty keyboard protocol flags a program pushed (https://sw.kovidgoyal.net/kitty/keyboard-protocol/
 * "Progressive enhancement"): xterm.js 6.0 parses and ignores these sequences, but a viewer whose terminal speaks
 * the protocol (kitty, foot, WezTerm, Ghostty under `burrow attach`) must get them back in a snapshot, or a
 * program that asked for disambiguated keys gets legacy ones. Tracked here through xterm's public parser hooks,
 * one stack per screen as the spec says, bounded like kitty's own.
 *
 *   CSI > flags u        push flags (default 0)
 *   CSI < n u            pop n entries (default 1)
 *   CSI = flags ; mode u set the current flags: mode 1 replace (default), 2 set bits, 3 clear bits
 *   ESC c (RIS)          both stacks empty
 *   CSI ? 1049 l (47, 1047) the alternate screen's stack empty (xterm.js clears that screen too)
 */
import type { IDisposable, Terminal } from '@xterm/headless';

/** Entries per stack; the oldest is dropped past it (kitty drops the oldest too). */
export const MAX_KITTY_STACK = 64;
/** The protocol defines five flag bits. */
const FLAG_MASK = 0b11111;

export interface KittyScreenState {
  /** The flags in force with an empty stack (set by `CSI = … u` before any push). */
  base: number;
  stack: number[];
}

export interface KittyKeyboardState {
  readonly main: KittyScreenState;
  readonly alt: KittyScreenState;
}

export function emptyKittyState(): KittyKeyboardState {
  return { main: { base: 0, stack: [] }, alt: { base: 0, stack: [] } };
}

/** The flags in force on one screen. */
export function kittyFlags(s: KittyScreenState): number {
  return s.stack.length > 0 ? s.stack[s.stack.length - 1]! : s.base;
}

/** Follows `term`'s kitty keyboard sequences into `state`; dispose the result to stop. */
export function trackKittyKeyboard(term: Terminal, state: KittyKeyboardState): IDisposable {
  const screen = () => (term.buffer.active.type === 'alternate' ? state.alt : state.main);
  const first = (params: (number | number[])[], fallback: number): number => {
    const p = params[0];
    const v = typeof p === 'number' ? p : Array.isArray(p) ? (p[0] ?? fallback) : fallback;
    return v;
  };
  const hooks = [
    term.parser.registerCsiHandler({ prefix: '>', final: 'u' }, (params) => {
      const s = screen();
      s.stack.push(first(params, 0) & FLAG_MASK);
      if (s.stack.length > MAX_KITTY_STACK) s.stack.shift();
      return true;
    }),
    term.parser.registerCsiHandler({ prefix: '<', final: 'u' }, (params) => {
      const s = screen();
      const n = Math.max(1, first(params, 1));
      s.stack.splice(Math.max(0, s.stack.length - n));
      return true;
    }),
    term.parser.registerCsiHandler({ prefix: '=', final: 'u' }, (params) => {
      const s = screen();
      const flags = first(params, 0) & FLAG_MASK;
      const mode = params.length > 1 ? first(params.slice(1), 1) : 1;
      const now = kittyFlags(s);
      const next = mode === 2 ? now | flags : mode === 3 ? now & ~flags : flags;
      if (s.stack.length > 0) s.stack[s.stack.length - 1] = next;
      else s.base = next;
      return true;
    }),
    // Leaving the alternate screen: xterm.js clears that buffer, and its stack goes with it (false: xterm
    // handles the sequence too).
    term.parser.registerCsiHandler({ prefix: '?', final: 'l' }, (params) => {
      if (
        term.buffer.active.type === 'alternate' &&
        params.some((p) => p === 47 || p === 1047 || p === 1049)
      ) {
        state.alt.base = 0;
        state.alt.stack.length = 0;
      }
      return false;
    }),
    // RIS resets the terminal; xterm handles it too (false: not consumed).
    term.parser.registerEscHandler({ final: 'c' }, () => {
      for (const s of [state.main, state.alt]) {
        s.base = 0;
        s.stack.length = 0;
      }
      return false;
    }),
  ];
  return {
    dispose: () => {
      for (const h of hooks) h.dispose();
    },
  };
}

/** The sequences that rebuild one screen's state on a terminal whose stack is empty. */
export function kittyRestore(s: KittyScreenState): string {
  let out = s.base !== 0 ? `\x1b[=${s.base};1u` : '';
  for (const flags of s.stack) out += `\x1b[>${flags}u`;
  return out;
}
