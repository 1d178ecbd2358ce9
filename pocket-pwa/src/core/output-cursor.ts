/**
 * Per attached terminal: the byte offset delivered so far, so a reconnect resumes exactly there and an output
 * frame that overlaps what was already delivered (after a resume) is trimmed, never shown twice
 * (DESIGN §4.3 "resumes from its offset without loss or duplication").
 */

export type CursorResult =
  /** Deliver these bytes; the cursor moved to `end`. */
  | { readonly kind: 'deliver'; readonly data: Uint8Array }
  /** Everything in the frame was already delivered. */
  | { readonly kind: 'duplicate' }
  /** The frame starts after the cursor: bytes were lost; the viewer must re-attach for a fresh snapshot. */
  | { readonly kind: 'gap' };

export class OutputCursor {
  #offset: number;

  constructor(offset: number) {
    if (!Number.isSafeInteger(offset) || offset < 0)
      throw new RangeError('offset must be a non-negative integer');
    this.#offset = offset;
  }

  get offset(): number {
    return this.#offset;
  }

  /** A snapshot (attach or resync) moves the cursor to its offset, whatever it was. */
  reset(offset: number): void {
    if (!Number.isSafeInteger(offset) || offset < 0)
      throw new RangeError('offset must be a non-negative integer');
    this.#offset = offset;
  }

  accept(offset: number, data: Uint8Array): CursorResult {
    const end = offset + data.length;
    if (offset > this.#offset) return { kind: 'gap' };
    if (end <= this.#offset) return { kind: 'duplicate' };
    const fresh = data.subarray(this.#offset - offset);
    this.#offset = end;
    return { kind: 'deliver', data: fresh };
  }
}
