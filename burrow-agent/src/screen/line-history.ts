/**
 * Scrollback older than the live screen model keeps, as plain text lines in deflated blocks. The live model
 * (headless xterm) costs ~12 bytes per cell, so 10,000 lines of 120 columns would be ~14 MB per session; plain
 * text compresses to a few bytes per line, and is paged in only when a viewer scrolls that far back
 * (`history(before, count)`). Colour is not kept for these old lines: keeping it meant serializing every
 * line as it scrolled away, which cost more CPU than the parser budget allows (see bench/session-bench.ts).
 */
import { deflateRaw, deflateRawSync, inflateRawSync } from 'node:zlib';

/** Lines per compressed block. */
export const HISTORY_BLOCK_LINES = 256;
/** Most lines kept; older blocks are dropped whole. */
export const MAX_HISTORY_LINES = 100_000;
/** Most compressed bytes kept per session. */
export const MAX_HISTORY_BYTES = 2 * 1024 * 1024;
/** Longest history line kept, in UTF-16 units (a terminal row is at most a few thousand columns). */
export const MAX_HISTORY_LINE = 4096;
/** Most lines one `read` returns. */
export const MAX_HISTORY_PAGE = 1000;
/**
 * Blocks whose compression may run at once on the libuv thread pool. Compression is off the main thread so a
 * burst of output is not slowed by it; past this many in flight, blocks compress synchronously (backpressure).
 */
export const MAX_PENDING_COMPRESSIONS = 8;

interface Block {
  readonly first: number;
  readonly count: number;
  /** The block's lines joined by '\n' until its compressed form is ready. */
  text: string | null;
  data: Uint8Array | null;
}

export class LineHistory {
  private readonly sealed: Block[] = [];
  private sealedBytes = 0;
  private pending = 0;
  private open: string[] = [];
  /** Absolute index of the first line of `open`. */
  private openFirst = 0;
  /** Lines that scrolled away before they could be kept (a single write scrolled past the slack). */
  lost = 0;

  /** Absolute index of the oldest line still held. */
  get firstLine(): number {
    return this.sealed[0]?.first ?? this.openFirst;
  }

  /** Absolute index one past the newest line (= total lines ever added). */
  get endLine(): number {
    return this.openFirst + this.open.length;
  }

  /** Approximate bytes held (compressed blocks plus the open block's text). */
  get byteSize(): number {
    let open = 0;
    for (const l of this.open) open += l.length;
    return this.sealedBytes + open;
  }

  push(line: string): void {
    this.open.push(line.length > MAX_HISTORY_LINE ? line.slice(0, MAX_HISTORY_LINE) : line);
    if (this.open.length >= HISTORY_BLOCK_LINES) this.seal();
  }

  /** Records `n` lines that scrolled away unseen, as empty lines so indices stay true. */
  markLost(n: number): void {
    this.lost += n;
    for (let i = 0; i < n; i++) this.push('');
  }

  /** Up to `count` lines ending just before absolute line `before`, oldest first, and the index of the first. */
  read(before: number, count: number): { first: number; lines: string[] } {
    if (!Number.isSafeInteger(before) || before < 0)
      throw new RangeError('before must be a non-negative integer');
    if (!Number.isSafeInteger(count) || count < 0 || count > MAX_HISTORY_PAGE) {
      throw new RangeError(`count must be an integer in 0..${MAX_HISTORY_PAGE}`);
    }
    const end = Math.min(before, this.endLine);
    const first = Math.max(this.firstLine, end - count);
    const lines: string[] = [];
    for (const b of this.sealed) {
      if (b.first + b.count <= first || b.first >= end) continue;
      const all = (b.text ?? inflateRawSync(b.data!).toString('utf8')).split('\n');
      for (let i = Math.max(first, b.first); i < Math.min(end, b.first + b.count); i++)
        lines.push(all[i - b.first]!);
    }
    for (let i = Math.max(first, this.openFirst); i < end; i++) lines.push(this.open[i - this.openFirst]!);
    return { first: Math.min(end, first), lines };
  }

  private seal(): void {
    const text = this.open.join('\n');
    const block: Block = { first: this.openFirst, count: this.open.length, text, data: null };
    this.sealed.push(block);
    this.sealedBytes += text.length;
    this.openFirst += this.open.length;
    this.open = [];
    // Level 1: history is written far more than read, and level 1 still shrinks terminal text ~4–8×.
    const done = (out: Buffer) => {
      if (block.text === null) return;
      // zlib hands back a view into its 16 KiB output chunk; copy to an exact-size buffer, or every ~2 KB block
      // would keep 16 KB alive.
      const data = new Uint8Array(out);
      this.sealedBytes += data.byteLength - block.text.length;
      block.data = data;
      block.text = null;
    };
    if (this.pending >= MAX_PENDING_COMPRESSIONS) {
      done(deflateRawSync(Buffer.from(text, 'utf8'), { level: 1 }));
    } else {
      this.pending++;
      deflateRaw(Buffer.from(text, 'utf8'), { level: 1 }, (err, data) => {
        this.pending--;
        // A block dropped meanwhile is no longer in `sealed`; its bytes were already subtracted.
        if (err === null) done(data);
      });
    }
    while (
      this.sealed.length > 0 &&
      (this.sealedBytes > MAX_HISTORY_BYTES || this.endLine - this.firstLine > MAX_HISTORY_LINES)
    ) {
      const dropped = this.sealed.shift()!;
      this.sealedBytes -= dropped.data?.byteLength ?? dropped.text!.length;
      dropped.text = null;
    }
  }
}
