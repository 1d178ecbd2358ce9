/**
 * What `burrow attach` does with the bytes typed into the local terminal, as a pure state machine:
 *  - the detach key, tmux-style: Ctrl-B then `d` detaches; Ctrl-B Ctrl-B sends one Ctrl-B; Ctrl-B followed by
 *    anything else sends both, so nothing typed is lost;
 *  - focus reports from the host terminal (`CSI I` / `CSI O`, enabled by DECSET 1004) are removed from the
 *    stream and reported as presence, never typed into the session.
 */

export const DETACH_PREFIX = 0x02; // Ctrl-B
export const DETACH_KEY = 0x64; // 'd'
export const DETACH_KEY_HELP = 'Ctrl-B d';

export interface FilteredInput {
  /** Bytes for the session. */
  readonly forward: Uint8Array;
  /** Focus changes seen, in order (true = focus in). */
  readonly focus: readonly boolean[];
  readonly detach: boolean;
}

export class AttachInputFilter {
  private prefixPending = false;

  push(chunk: Uint8Array): FilteredInput {
    const out: number[] = [];
    const focus: boolean[] = [];
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.prefixPending) {
        this.prefixPending = false;
        if (b === DETACH_KEY) return { forward: Uint8Array.from(out), focus, detach: true };
        out.push(DETACH_PREFIX);
        if (b !== DETACH_PREFIX) out.push(b);
        continue;
      }
      if (b === DETACH_PREFIX) {
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
    return { forward: Uint8Array.from(out), focus, detach: false };
  }
}
