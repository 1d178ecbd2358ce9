/**
 * A viewer's position in one attached session's output, enforcing contiguity. [SPEC: R-ATTACH-2]
 *
 * Start it at the offset of `attached`, `resumed` or `resync`; feed it every `output` for that session. It says
 * whether the chunk is the next one; on a gap or an overlap the viewer must re-attach (with `resumeFrom` =
 * `cursor.offset`), because its screen no longer matches the session's byte stream.
 */
import { ProtocolError } from './errors.js';
import { MAX_OFFSET } from './limits.js';

export class OutputCursor {
  #offset: number;

  constructor(offset: number) {
    if (!Number.isInteger(offset) || offset < 0 || offset > MAX_OFFSET) {
      throw new RangeError('offset must be an integer 0 … 2^53−1');
    }
    this.#offset = offset;
  }

  /** The output byte offset the viewer's screen reflects: what to pass as `resumeFrom`. */
  get offset(): number {
    return this.#offset;
  }

  /**
   * Accepts the next chunk, returning the new offset. Throws a (non-fatal) ProtocolError R-ATTACH-2 if the chunk
   * does not start exactly where the last one ended; the cursor is then unchanged.
   */
  advance(chunk: { readonly offset: number; readonly data: Uint8Array }): number {
    if (chunk.offset !== this.#offset) {
      throw new ProtocolError(
        'R-ATTACH-2',
        chunk.offset > this.#offset ? 'output skipped bytes: re-attach' : 'output repeated bytes: re-attach',
      );
    }
    const next = this.#offset + chunk.data.length;
    if (next > MAX_OFFSET) throw new ProtocolError('R-FIELD-3', 'output offset passed 2^53−1');
    this.#offset = next;
    return next;
  }

  /** Moves to a fresh snapshot's offset (`resync`, or a new `attached`). */
  reset(offset: number): void {
    if (!Number.isInteger(offset) || offset < 0 || offset > MAX_OFFSET) {
      throw new RangeError('offset must be an integer 0 … 2^53−1');
    }
    this.#offset = offset;
  }
}
