/**
 * Scrollback older than the live screen model keeps, as plain text lines in deflated blocks. The live model
 * (headless xterm) costs ~12 bytes per cell, so 10,000 lines of 120 columns would be ~14 MB per session; plain
 * text compresses to a few bytes per line, and is paged in only when a viewer scrolls that far back
 * (`history(before, count)`). Colour is not kept for these old lines: keeping it meant serializing every
 * line as it scrolled away, which cost more CPU than the parser budget allows (see bench/session-bench.ts).
 * A plain flood the screen model skipped comes as one block of its bytes, cut into rows only when read
 * (`pushFlood`); lines are counted as rows either way, so the bounds and indices do not depend on how lines
 * fell into blocks.
 */
import { deflateRaw, deflateRawSync, inflateRawSync } from 'node:zlib';

/** Lines per compressed block. */
export const HISTORY_BLOCK_LINES = 256;
/** Most lines kept, exactly (older lines are dropped; a block goes once all its lines have). */
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

const LF = 0x0a;

interface Block {
  readonly first: number;
  /** Rows (history lines) the block holds. */
  readonly count: number;
  /** A plain flood's block: the width its lines are cut into rows at; 0 for a block of lines. */
  readonly cols: number;
  /**
   * The uncompressed content until its compressed form is ready: a block of lines, joined by '\n'; a flood's
   * block, its bytes as the terminal got them (printable ASCII lines, each ended by CR LF).
   */
  plain: string | Buffer | null;
  data: Uint8Array | null;
  /** What the block counts against MAX_HISTORY_BYTES: its compressed size, or the expected one until then. */
  cost: number;
  /** Compression started (its plain form stays readable until the result lands). */
  compressing: boolean;
  dropped: boolean;
}

/**
 * Rows [from, to) of a flood block, cut as xterm wraps them (a line of n characters fills ceil(n / cols) rows,
 * an empty line one row): the rows ScreenModel.skipPlainFlood would have pushed one by one. Lines are found
 * with Buffer.indexOf (native) and only the rows asked for become strings.
 */
function floodRows(bytes: Buffer, cols: number, from: number, to: number, into: string[]): void {
  let row = 0;
  for (let pos = 0; pos < bytes.length && row < to; ) {
    const lf = bytes.indexOf(LF, pos);
    const end = lf - 1; // the line's CR
    const rows = end === pos ? 1 : Math.ceil((end - pos) / cols);
    if (row + rows > from) {
      for (let r = Math.max(0, from - row); r < rows && row + r < to; r++) {
        const at = pos + r * cols;
        into.push(bytes.toString('latin1', at, Math.min(end, at + cols)));
      }
    }
    row += rows;
    pos = lf + 1;
  }
}

export class LineHistory {
  private readonly sealed: Block[] = [];
  private sealedBytes = 0;
  private pending = 0;
  /** Plain bytes of sealed blocks not yet handed to compression. */
  private waitingBytes = 0;
  private compressTimer: NodeJS.Timeout | undefined;
  /**
   * The output paused with blocks still waiting: they are compressed one after another, each chained off the
   * completion of whatever compression was in flight (see `compressWaiting`).
   */
  private paused = false;
  private open: string[] = [];
  /** Absolute index of the first line of `open`. */
  private openFirst = 0;
  /** Absolute index of the oldest line kept (a block may start before it: its older rows are gone). */
  private start = 0;
  /**
   * Something was dropped, or soon will be, to keep the bounds: from then on blocks wait for the output to pause
   * before they are compressed (see `added`).
   */
  private full = false;
  /** Lines that scrolled away before they could be kept (a single write scrolled past the slack). */
  lost = 0;
  /** Blocks compressed so far (for tests and benches). */
  compressions = 0;

  /** Absolute index of the oldest line still held. */
  get firstLine(): number {
    return this.start;
  }

  /** Absolute index one past the newest line (= total lines ever added). */
  get endLine(): number {
    return this.openFirst + this.open.length;
  }

  /** Approximate bytes held: compressed blocks, and the plain form of blocks not compressed yet and of the open one. */
  get byteSize(): number {
    let held = 0;
    for (const l of this.open) held += l.length;
    for (const b of this.sealed) held += b.plain?.length ?? b.data?.byteLength ?? 0;
    return held;
  }

  push(line: string): void {
    this.open.push(line.length > MAX_HISTORY_LINE ? line.slice(0, MAX_HISTORY_LINE) : line);
    if (this.endLine - this.start > MAX_HISTORY_LINES) this.bound();
    if (this.open.length >= HISTORY_BLOCK_LINES) this.seal();
  }

  /**
   * A plain flood's rows, taken whole (ScreenModel.skipPlainFlood): `bytes` are complete lines of printable
   * ASCII, each ended by CR LF, that fill `rows` rows at `cols` columns. They stay bytes — one block, no
   * string per row — until a page asks for some of them (issue 26: cutting every row of a flood into a string
   * was the largest cost per MB left in the screen model). The model gives up `bytes` (do not reuse them).
   */
  pushFlood(bytes: Buffer, cols: number, rows: number): void {
    if (rows === 0) return;
    if (this.open.length > 0) this.seal();
    const cost = Math.ceil(bytes.length / EXPECTED_RATIO);
    this.added({
      first: this.openFirst,
      count: rows,
      cols,
      plain: bytes,
      data: null,
      cost,
      compressing: false,
      dropped: false,
    });
    this.openFirst += rows;
    if (this.endLine - this.start > MAX_HISTORY_LINES) this.bound();
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
      const from = Math.max(first, b.first) - b.first;
      const to = Math.min(end, b.first + b.count) - b.first;
      if (b.cols > 0) {
        const bytes = typeof b.plain === 'object' && b.plain !== null ? b.plain : inflateRawSync(b.data!);
        floodRows(bytes, b.cols, from, to, lines);
        continue;
      }
      const text = typeof b.plain === 'string' ? b.plain : inflateRawSync(b.data!).toString('utf8');
      const all = text.split('\n');
      for (let i = from; i < to; i++) lines.push(all[i]!);
    }
    for (let i = Math.max(first, this.openFirst); i < end; i++) lines.push(this.open[i - this.openFirst]!);
    return { first: Math.min(end, first), lines };
  }

  private seal(): void {
    const text = this.open.join('\n');
    const block: Block = {
      first: this.openFirst,
      count: this.open.length,
      cols: 0,
      plain: text,
      data: null,
      cost: Math.ceil(text.length / EXPECTED_RATIO),
      compressing: false,
      dropped: false,
    };
    this.openFirst += this.open.length;
    this.open = [];
    this.added(block);
  }

  /**
   * Keeps the bounds: exactly the newest MAX_HISTORY_LINES lines (however they fell into blocks, so a model that
   * took a flood whole holds the same lines as one that took it row by row), and at most MAX_HISTORY_BYTES,
   * oldest blocks dropped whole. A block partly older than `start` stays whole until all of it is (at most one
   * flood's bytes, ≤ PLAIN_SKIP_MERGE_BYTES in ScreenModel).
   */
  private bound(): void {
    if (this.endLine - this.start > MAX_HISTORY_LINES) {
      this.start = this.endLine - MAX_HISTORY_LINES;
      this.full = true;
    }
    while (
      this.sealed.length > 0 &&
      (this.sealedBytes > MAX_HISTORY_BYTES || this.sealed[0]!.first + this.sealed[0]!.count <= this.start)
    ) {
      const dropped = this.sealed.shift()!;
      this.sealedBytes -= dropped.cost;
      if (!dropped.compressing && dropped.plain !== null) this.waitingBytes -= dropped.plain.length;
      dropped.plain = null;
      dropped.data = null;
      dropped.dropped = true;
      this.start = Math.max(this.start, dropped.first + dropped.count);
      this.full = true;
    }
  }

  private added(block: Block): void {
    this.sealed.push(block);
    this.sealedBytes += block.cost;
    this.waitingBytes += block.plain!.length;
    this.bound();
    // Until history is full nothing is dropped, so a block is compressed at once (waiting would only raise
    // the memory high-water mark of many sessions printing together). Once full — lines or bytes — every new
    // block pushes an old one out: then blocks wait for the output to pause, and those pushed out meanwhile
    // never cost zlib.
    if (!this.full && this.endLine - this.firstLine + HISTORY_BLOCK_LINES <= MAX_HISTORY_LINES) {
      this.compress(block);
      return;
    }
    this.full = true;
    // Too much waiting: the oldest goes now, the rest waits for the output to pause.
    for (const b of this.sealed) {
      if (this.waitingBytes <= MAX_UNCOMPRESSED_BYTES) break;
      if (!b.compressing && b.plain !== null) this.compress(b);
    }
    clearTimeout(this.compressTimer);
    this.paused = false;
    if (this.waitingBytes > 0) {
      this.compressTimer = setTimeout(() => {
        this.paused = true;
        this.compressWaiting();
      }, COMPRESS_AFTER_IDLE_MS);
      this.compressTimer.unref();
    }
  }

  /**
   * Once the output paused: one block at a time, each after the last finished (all at once meant as many zlib
   * contexts as blocks, and the daemon's RSS kept that high-water mark: +1.3 MB per 10k-line session). Newest
   * first: a block's real compressed size can push the oldest out of MAX_HISTORY_BYTES, and those then never
   * cost zlib.
   */
  private compressWaiting(): void {
    // A compression in flight — this chain's, or one begun during the flood — continues the chain when it
    // completes (`compress`). Chaining only off this chain's own blocks left the rest uncompressed, and over
    // MAX_HISTORY_BYTES, whenever the pause came while a block started during the flood was still deflating.
    if (this.pending > 0) return;
    for (let i = this.sealed.length - 1; i >= 0; i--) {
      const b = this.sealed[i]!;
      if (!b.compressing && b.plain !== null) {
        this.compress(b);
        return;
      }
    }
    this.paused = false;
  }

  /** Level 1: history is written far more than read, and level 1 still shrinks terminal text ~4–8×. */
  private compress(block: Block): void {
    const plain = block.plain!;
    block.compressing = true;
    this.compressions++;
    this.waitingBytes -= plain.length;
    const done = (out: Buffer) => {
      // Dropped meanwhile: no longer in `sealed`, its cost already subtracted.
      if (block.dropped) return;
      // zlib hands back a view into its 16 KiB output chunk; copy to an exact-size buffer, or every ~2 KB block
      // would keep 16 KB alive.
      const data = new Uint8Array(out);
      this.sealedBytes += data.byteLength - block.cost;
      block.cost = data.byteLength;
      block.data = data;
      block.plain = null;
      // Its real size may be over what it was counted as (text that hardly compresses: base64).
      if (this.sealedBytes > MAX_HISTORY_BYTES) this.bound();
    };
    const input = typeof plain === 'string' ? Buffer.from(plain, 'utf8') : plain;
    if (this.pending >= MAX_PENDING_COMPRESSIONS) {
      // Only while MAX_PENDING_COMPRESSIONS are in flight: their completions continue any chain.
      done(deflateRawSync(input, { level: 1 }));
      return;
    }
    this.pending++;
    deflateRaw(input, { level: 1 }, (err, data) => {
      this.pending--;
      if (err === null) done(data);
      if (this.pending === 0 && this.paused) this.compressWaiting();
    });
  }
}
