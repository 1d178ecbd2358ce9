/**
 * The last N bytes a PTY wrote, addressed by absolute stream offset, so a viewer that reconnects can resume from
 * the offset it last saw with no loss or duplication (standalone-host-spec: bounded replay). Offsets count
 * bytes since the session spawned and never wrap in practice (2^53 bytes).
 */

export class OutputRing {
  private readonly buf: Uint8Array;
  /** Absolute offset just past the last byte written. */
  private end = 0;

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity <= 0)
      throw new RangeError('ring capacity must be a positive integer');
    this.buf = new Uint8Array(capacity);
  }

  /** Offset of the oldest byte still held. */
  get startOffset(): number {
    return Math.max(0, this.end - this.capacity);
  }

  get endOffset(): number {
    return this.end;
  }

  append(chunk: Uint8Array): void {
    let src = chunk;
    if (src.byteLength > this.capacity) src = src.subarray(src.byteLength - this.capacity);
    const skipped = chunk.byteLength - src.byteLength;
    const pos = (this.end + skipped) % this.capacity;
    const first = Math.min(src.byteLength, this.capacity - pos);
    this.buf.set(src.subarray(0, first), pos);
    if (first < src.byteLength) this.buf.set(src.subarray(first), 0);
    this.end += chunk.byteLength;
  }

  /** A copy of the bytes from `offset` to the end, or null if `offset` is older than the ring holds. */
  readFrom(offset: number): Uint8Array | null {
    if (!Number.isSafeInteger(offset) || offset < 0)
      throw new RangeError('offset must be a non-negative integer');
    if (offset > this.end)
      throw new RangeError(`offset ${offset} is past the end of the stream (${this.end})`);
    if (offset < this.startOffset) return null;
    const len = this.end - offset;
    const out = new Uint8Array(len);
    const pos = offset % this.capacity;
    const first = Math.min(len, this.capacity - pos);
    out.set(this.buf.subarray(pos, pos + first), 0);
    if (first < len) out.set(this.buf.subarray(0, len - first), first);
    return out;
  }
}
