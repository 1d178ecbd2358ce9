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
/** Most compressed bytes kept per session (blocks waiting to be compressed count at the expected ratio). */
export const MAX_HISTORY_BYTES = 2 * 1024 * 1024;
/** Longest history line kept, in UTF-16 units (a terminal row is at most a few thousand columns). */
export const MAX_HISTORY_LINE = 4096;
/** Most lines one `read` returns. */
export const MAX_HISTORY_PAGE = 1000;
/**
 * Blocks whose compression may run at once on the libuv thread pool; past this many in flight, blocks compress
 * synchronously (backpressure).
 */
export const MAX_PENDING_COMPRESSIONS = 8;
/**
 * Once history is full, sealed blocks wait this long (ms) after the last seal before they are compressed.
 * During a flood, history keeps only its newest MAX_HISTORY_LINES and drops the rest a moment later: blocks
 * dropped while waiting are never compressed (issue 14: deflating every block of a 200 MB flood was the
 * daemon's largest single cost per MB, for lines nobody could ever page back to).
 */
export const COMPRESS_AFTER_IDLE_MS = 250;
/** Text of sealed blocks waiting to be compressed; past this the oldest are compressed at once. */
export const MAX_UNCOMPRESSED_BYTES = 8 * 1024 * 1024;
/** What a waiting block is counted as against MAX_HISTORY_BYTES: terminal text deflates ~4–8× at level 1. */
const EXPECTED_RATIO = 4;

interface Block {
  readonly first: number;
  readonly count: number;
  /** The block's lines joined by '\n' until its compressed form is ready. */
  text: string | null;
  data: Uint8Array | null;
  /** What the block counts against MAX_HISTORY_BYTES: its compressed size, or the expected one until then. */
  cost: number;
  /** Compression started (its text stays readable until the result lands). */
  compressing: boolean;
}

export class LineHistory {
  private readonly sealed: Block[] = [];
  private sealedBytes = 0;
  private pending = 0;
  /** Text bytes of sealed blocks not yet handed to compression. */
  private waitingBytes = 0;
  private compressTimer: NodeJS.Timeout | undefined;
  private open: string[] = [];
  /** Absolute index of the first line of `open`. */
  private openFirst = 0;
  /** Lines that scrolled away before they could be kept (a single write scrolled past the slack). */
  lost = 0;
  /** Blocks compressed so far (for tests and benches). */
  compressions = 0;

  /** Absolute index of the oldest line still held. */
  get firstLine(): number {
    return this.sealed[0]?.first ?? this.openFirst;
  }

  /** Absolute index one past the newest line (= total lines ever added). */
  get endLine(): number {
    return this.openFirst + this.open.length;
  }

  /** Approximate bytes held: compressed blocks, and the text of blocks not compressed yet and of the open one. */
  get byteSize(): number {
    let held = 0;
    for (const l of this.open) held += l.length;
    for (const b of this.sealed) held += b.text?.length ?? b.data?.byteLength ?? 0;
    return held;
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
    const cost = Math.ceil(text.length / EXPECTED_RATIO);
    this.sealed.push({
      first: this.openFirst,
      count: this.open.length,
      text,
      data: null,
      cost,
      compressing: false,
    });
    this.sealedBytes += cost;
    this.waitingBytes += text.length;
    this.openFirst += this.open.length;
    this.open = [];
    while (
      this.sealed.length > 0 &&
      (this.sealedBytes > MAX_HISTORY_BYTES || this.endLine - this.firstLine > MAX_HISTORY_LINES)
    ) {
      const dropped = this.sealed.shift()!;
      this.sealedBytes -= dropped.cost;
      if (!dropped.compressing && dropped.text !== null) this.waitingBytes -= dropped.text.length;
      dropped.text = null;
      dropped.data = null;
    }
    const block = this.sealed.at(-1);
    // Until history is full nothing is dropped, so a block is compressed at once (waiting would only raise
    // the memory high-water mark of many sessions printing together). Once full, every new block pushes an
    // old one out: then blocks wait for the output to pause, and those pushed out meanwhile never cost zlib.
    if (block !== undefined && this.endLine - this.firstLine + HISTORY_BLOCK_LINES <= MAX_HISTORY_LINES) {
      this.compress(block);
      return;
    }
    // Too much text waiting: the oldest goes now, the rest waits for the output to pause.
    for (const b of this.sealed) {
      if (this.waitingBytes <= MAX_UNCOMPRESSED_BYTES) break;
      if (!b.compressing && b.text !== null) this.compress(b);
    }
    clearTimeout(this.compressTimer);
    if (this.waitingBytes > 0) {
      this.compressTimer = setTimeout(() => this.compressWaiting(), COMPRESS_AFTER_IDLE_MS);
      this.compressTimer.unref();
    }
  }

  /**
   * Once the output paused: one block at a time, each after the last finished (all at once meant as many zlib
   * contexts as blocks, and the daemon's RSS kept that high-water mark: +1.3 MB per 10k-line session).
   */
  private compressWaiting(): void {
    if (this.pending > 0) return; // the block in flight continues the chain
    const next = this.sealed.find((b) => !b.compressing && b.text !== null);
    if (next !== undefined) this.compress(next, () => this.compressWaiting());
  }

  /** Level 1: history is written far more than read, and level 1 still shrinks terminal text ~4–8×. */
  private compress(block: Block, then: () => void = () => {}): void {
    const text = block.text!;
    block.compressing = true;
    this.compressions++;
    this.waitingBytes -= text.length;
    const done = (out: Buffer) => {
      // Dropped meanwhile: no longer in `sealed`, its cost already subtracted.
      if (block.text === null) return;
      // zlib hands back a view into its 16 KiB output chunk; copy to an exact-size buffer, or every ~2 KB block
      // would keep 16 KB alive.
      const data = new Uint8Array(out);
      this.sealedBytes += data.byteLength - block.cost;
      block.cost = data.byteLength;
      block.data = data;
      block.text = null;
    };
    if (this.pending >= MAX_PENDING_COMPRESSIONS) {
      done(deflateRawSync(Buffer.from(text, 'utf8'), { level: 1 }));
      then();
      return;
    }
    this.pending++;
    deflateRaw(Buffer.from(text, 'utf8'), { level: 1 }, (err, data) => {
      this.pending--;
      if (err === null) done(data);
      then();
    });
  }
}
