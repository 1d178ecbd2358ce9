/**
 * What `burrow attach` does with the bytes typed into the local terminal, as a pure state machine:
 *  - the detach key, tmux-style: the prefix (Ctrl-B unless configured, `parseDetachKey`) then `d` detaches;
 *    the prefix then `f` takes the session's size for this terminal ("fit to this screen", protocol R-SIZE-2);
 *    the prefix twice sends one prefix; the prefix followed by anything else sends both, so nothing typed is lost;
 *  - focus reports from the host terminal (`CSI I` / `CSI O`, enabled by DECSET 1004) are removed from the
 *    stream and reported as presence, never typed into the session.
 */

export const DETACH_PREFIX = 0x02; // Ctrl-B
export const DETACH_KEY = 0x64; // 'd'
export const DETACH_KEY_HELP = 'Ctrl-B d';
/** After the prefix: take the size back (tmux binds nothing to it; `f` for "fit"). */
export const FIT_KEY = 0x66; // 'f'
/** Where the prefix is configured when `burrow attach --detach-key` is not given. */
export const DETACH_KEY_ENV = 'BURROW_DETACH_KEY';

export interface DetachKey {
  /** The control byte that starts the detach sequence. */
  readonly prefix: number;
  /** How it is written for people, e.g. "Ctrl-A d". */
  readonly help: string;
  /** The take-back key the same way, e.g. "Ctrl-A f". */
  readonly fitHelp: string;
}

export const DEFAULT_DETACH_KEY: DetachKey = {
  prefix: DETACH_PREFIX,
  help: DETACH_KEY_HELP,
  fitHelp: 'Ctrl-B f',
};

/**
 * Prefixes that would take a key a terminal cannot do without: Ctrl-@ (NUL), Ctrl-H (Backspace), Ctrl-I
 * (Tab), Ctrl-J / Ctrl-M (Enter), Ctrl-[ (Esc, which starts every arrow key).
 */
const RESERVED = new Set(['@', 'h', 'i', 'j', 'm', '[']);

/**
 * A detach prefix as people write it — `ctrl-a`, `C-a`, `^A`, `Ctrl-]` — for a key other than Ctrl-B (which
 * tmux uses too). RangeError, naming what is accepted, for anything else.
 */
export function parseDetachKey(spec: string): DetachKey {
  if (typeof spec !== 'string') throw new TypeError('the detach key is a string such as ctrl-a');
  const m = /^(?:ctrl-|c-|\^)(.)$/i.exec(spec.trim());
  const ch = m?.[1]?.toLowerCase();
  if (ch === undefined || !/^[a-z\\\]^_@[]$/.test(ch) || RESERVED.has(ch))
    throw new RangeError(
      `detach key must be Ctrl and one of a–z, \\, ], ^ or _ (not Ctrl-H, I, J, M or [), e.g. ctrl-a; got "${spec.slice(0, 32).replace(/[^\x20-\x7e]/g, '?')}"`,
    );
  const name = `Ctrl-${ch.toUpperCase()}`;
  return { prefix: ch.toUpperCase().charCodeAt(0) & 0x1f, help: `${name} d`, fitHelp: `${name} f` };
}

export interface FilteredInput {
  /** Bytes for the session. */
  readonly forward: Uint8Array;
  /** Focus changes seen, in order (true = focus in). */
  readonly focus: readonly boolean[];
  readonly detach: boolean;
  /** The take-back key was pressed (once or more in this chunk). */
  readonly fit: boolean;
}

export class AttachInputFilter {
  private prefixPending = false;
  private readonly prefix: number;

  constructor(detach: DetachKey = DEFAULT_DETACH_KEY) {
    this.prefix = detach.prefix;
  }

  push(chunk: Uint8Array): FilteredInput {
    const out: number[] = [];
    const focus: boolean[] = [];
    let fit = false;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.prefixPending) {
        this.prefixPending = false;
        if (b === DETACH_KEY) return { forward: Uint8Array.from(out), focus, detach: true, fit };
        if (b === FIT_KEY) {
          fit = true;
          continue;
        }
        out.push(this.prefix);
        if (b !== this.prefix) out.push(b);
        continue;
      }
      if (b === this.prefix) {
        this.prefixPending = true;
        continue;
      }
      // A focus report arrives whole in one read from the terminal; matching only within a chunk means a lone
      // Esc keypress is never held back waiting for bytes that may not come.
      if (b === 0x1b && chunk[i + 1] === 0x5b && (chunk[i + 2] === 0x49 || chunk[i + 2] === 0x4f)) {
        focus.push(chunk[i + 2] === 0x49);
        i += 2;
        continue;
      }
      out.push(b);
    }
    return { forward: Uint8Array.from(out), focus, detach: false, fit };
  }
}
