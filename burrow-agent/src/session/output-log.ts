/**
 * A session's recent output, addressed by absolute stream offset (bytes since the session spawned; 2^53 is
 * never reached in practice): what a reconnecting viewer resumes from with no loss or duplication
 * (standalone-host-spec: bounded replay), and what a viewer that is momentarily behind catches up from.
 *
 * Bytes live in fixed-size blocks; `read` hands out a view of a block without copying, and a block a view was
 * taken from is never reused, so nothing overwrites what a reader holds. Dropped blocks nobody viewed are
 * reused (with no viewer attached, the log would otherwise leave a dead 32 KiB buffer behind every 32 KiB of
 * output until the next collection: ~1 MB per busy session in the daemon's RSS). Old blocks are dropped once nothing needs them: the
 * log keeps at least the last `keepBytes`, more while a viewer still needs older bytes (the `floor` the owner
 * reports), never more than `maxBytes` (a viewer further behind than that is resynced from a snapshot).
 */

export interface OutputLogOptions {
  /** Bytes per block (allocation granularity). */
  readonly blockBytes: number;
  /** Bytes always kept behind the end, whatever the floor says. */
  readonly keepBytes: number;
  /** Most bytes kept, whatever the floor says. */
  readonly maxBytes: number;
  /** The oldest offset some reader still needs (or Infinity); asked only when a block could be dropped. */
  readonly floor: () => number;
}

/** Dropped blocks kept for reuse: the log's churn must not pile up as dead ArrayBuffers between collections. */
const MAX_SPARE_BLOCKS = 2;

export class OutputLog {
  readonly #o: OutputLogOptions;
  readonly #blocks: Uint8Array[] = [];
  /** Blocks a view was handed out of: never reused, whoever holds the view keeps its bytes. */
  readonly #lent = new WeakSet<Uint8Array>();
  readonly #spare: Uint8Array[] = [];
  /** Offset of the first byte of `#blocks[0]`. */
  #first = 0;
  #end = 0;

  constructor(options: OutputLogOptions) {
    for (const k of ['blockBytes', 'keepBytes', 'maxBytes'] as const) {
      const n = options[k];
      if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`${k} must be a positive integer`);
    }
    if (options.keepBytes > options.maxBytes) throw new RangeError('keepBytes must not exceed maxBytes');
    if (typeof options.floor !== 'function') throw new TypeError('floor must be a function');
    this.#o = options;
  }

  /** Offset of the oldest byte still held. */
  get startOffset(): number {
    return this.#first;
  }

  /** Offset just past the newest byte. */
  get endOffset(): number {
    return this.#end;
  }

  /** Bytes of blocks held (a multiple of blockBytes, at most maxBytes + one block). */
  get heldBytes(): number {
    return this.#blocks.length * this.#o.blockBytes;
  }

  /** Copies `chunk` in, then drops blocks nothing needs any more. */
  append(chunk: Uint8Array): void {
    const size = this.#o.blockBytes;
    let at = 0;
    while (at < chunk.byteLength) {
      const used = this.#end - this.#first - (this.#blocks.length - 1) * size;
      let block = this.#blocks.at(-1);
      let room = block === undefined ? 0 : size - used;
      if (block === undefined || room === 0) {
        // allocUnsafe: every byte is written before it can be read.
        block = this.#spare.pop() ?? Buffer.allocUnsafe(size);
        if (this.#blocks.length === 0) this.#first = this.#end;
        this.#blocks.push(block);
        room = size;
      }
      const n = Math.min(room, chunk.byteLength - at);
      block.set(chunk.subarray(at, at + n), size - room);
      at += n;
      this.#end += n;
    }
    this.trim();
  }

  /** Drops blocks that lie wholly below what must be kept (call after the floor rose). */
  trim(): void {
    const size = this.#o.blockBytes;
    const hardFloor = this.#end - this.#o.maxBytes;
    const keepFloor = this.#end - this.#o.keepBytes;
    // Never drop the block being written: the log always holds the last byte.
    while (this.#blocks.length > 1 && this.#first + size <= keepFloor) {
      if (this.#first + size > hardFloor && this.#first + size > this.#o.floor()) return;
      const dropped = this.#blocks.shift()!;
      this.#first += size;
      if (!this.#lent.has(dropped) && this.#spare.length < MAX_SPARE_BLOCKS) this.#spare.push(dropped);
    }
  }

  /**
   * Copies bytes [from, to) into `into` (at index 0): the screen model's hand-over (lazy-screen.ts). RangeError
   * if the range is not wholly held or does not fit.
   */
  copy(from: number, to: number, into: Uint8Array): void {
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from > to)
      throw new RangeError('copy needs integer bounds from ≤ to');
    if (from < this.#first || to > this.#end)
      throw new RangeError(`bytes ${from}..${to} are not all held (${this.#first}..${this.#end})`);
    if (to - from > into.byteLength) throw new RangeError('copy target too small');
    const size = this.#o.blockBytes;
    let index = Math.floor((from - this.#first) / size);
    let pos = from - this.#first - index * size;
    let filled = 0;
    while (filled < to - from) {
      const n = Math.min(size - pos, to - from - filled);
      into.set(this.#blocks[index]!.subarray(pos, pos + n), filled);
      filled += n;
      index++;
      pos = 0;
    }
  }

  /**
   * Up to `maxBytes` from `offset` on, or null if `offset` is older than the log holds. A view of one block
   * when the range fits in it (blocks are never rewritten), else a copy.
   */
  read(offset: number, maxBytes: number): Uint8Array | null {
    if (!Number.isSafeInteger(offset) || offset < 0)
      throw new RangeError('offset must be a non-negative integer');
    if (offset > this.#end)
      throw new RangeError(`offset ${offset} is past the end of the stream (${this.#end})`);
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0)
      throw new RangeError('maxBytes must be a non-negative integer');
    if (offset < this.#first) return null;
    const size = this.#o.blockBytes;
    const len = Math.min(maxBytes, this.#end - offset);
    const index = Math.floor((offset - this.#first) / size);
    const pos = offset - this.#first - index * size;
    if (pos + len <= size) {
      const block = this.#blocks[index];
      if (block === undefined) return new Uint8Array(0);
      this.#lent.add(block);
      return block.subarray(pos, pos + len);
    }
    const out = new Uint8Array(len);
    this.copy(offset, offset + len, out);
    return out;
  }
}
