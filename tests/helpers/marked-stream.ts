/**
 * A known output stream between two marker lines, for byte-exact checks of the output path (issue 14): the
 * program waits for a newline, prints START, `lines` numbered lines (53 bytes each, 54 through a terminal's
 * ONLCR), then END, and stays alive. The expected byte count and SHA-256 come from the same `seq` piped
 * through `sed` (the terminal's \n → \r\n), not from Burrow; `MarkedStreamReader` hashes what a viewer got
 * between the markers.
 */
import { execFile } from 'node:child_process';
import { createHash, type Hash } from 'node:crypto';

export const STREAM_START = '__BURROW_STREAM_START__';
export const STREAM_END = '__BURROW_STREAM_END__';
const START_LINE = Buffer.from(`${STREAM_START}\r\n`);
const END_LINE = Buffer.from(`${STREAM_END}\r\n`);
/** Bytes per line through a terminal (`line 0000000001 …` + \r\n). */
export const STREAM_LINE_BYTES = 54;

const seq = (lines: number) => `seq -f 'line %010.0f abcdefghijklmnopqrstuvwxyz0123456789' 1 ${lines}`;

/** The session's command: waits for a newline (so the viewer is attached first), then the marked stream. */
export function markedStreamCommand(lines: number): string[] {
  if (!Number.isInteger(lines) || lines < 1) throw new RangeError('lines must be a positive integer');
  return [
    '/bin/sh',
    '-c',
    `read _; echo ${STREAM_START}; ${seq(lines)}; echo ${STREAM_END}; exec sleep 3600`,
  ];
}

export interface StreamDigest {
  readonly bytes: number;
  readonly sha256: string;
}

/** What the viewer must see between the markers: the hash computed by coreutils, every line 54 bytes. */
export function expectedStream(lines: number): Promise<StreamDigest> {
  return new Promise((resolve, reject) => {
    execFile('/bin/sh', ['-c', `${seq(lines)} | sed 's/$/\\r/' | sha256sum`], (err, stdout) => {
      if (err) reject(err);
      else resolve({ bytes: lines * STREAM_LINE_BYTES, sha256: stdout.split(' ')[0]! });
    });
  });
}

/** Hashes the bytes a viewer receives between START and END; `done` once END has arrived. */
export class MarkedStreamReader {
  #state: 'start' | 'body' | 'done' = 'start';
  #pending: Buffer = Buffer.alloc(0);
  readonly #hash: Hash = createHash('sha256');
  #bytes = 0;

  get done(): boolean {
    return this.#state === 'done';
  }

  get started(): boolean {
    return this.#state !== 'start';
  }

  /** Bytes between the markers so far. */
  get bytes(): number {
    return this.#bytes;
  }

  digest(): StreamDigest {
    if (!this.done) throw new Error('the stream has not ended');
    return { bytes: this.#bytes, sha256: this.#hash.copy().digest('hex') };
  }

  push(chunk: Uint8Array): void {
    if (this.#state === 'done') return;
    let buf = this.#pending.byteLength === 0 ? Buffer.from(chunk) : Buffer.concat([this.#pending, chunk]);
    if (this.#state === 'start') {
      const at = buf.indexOf(START_LINE);
      if (at < 0) {
        this.#pending = Buffer.from(buf.subarray(Math.max(0, buf.byteLength - START_LINE.byteLength + 1)));
        return;
      }
      this.#state = 'body';
      buf = buf.subarray(at + START_LINE.byteLength);
    }
    const end = buf.indexOf(END_LINE);
    if (end >= 0) {
      this.#take(buf.subarray(0, end));
      this.#state = 'done';
      this.#pending = Buffer.alloc(0);
      return;
    }
    // Hold back what could be the start of END.
    const keep = Math.min(buf.byteLength, END_LINE.byteLength - 1);
    this.#take(buf.subarray(0, buf.byteLength - keep));
    this.#pending = Buffer.from(buf.subarray(buf.byteLength - keep));
  }

  #take(bytes: Uint8Array): void {
    this.#hash.update(bytes);
    this.#bytes += bytes.byteLength;
  }
}

/**
 * Undoes a terminal's ONLCR (\n → \r\n on output), which libuv's raw mode leaves on: `burrow attach` writes
 * the session's bytes exactly, and its terminal device then adds a \r before every \n. Feeds `push` what the
 * CLI wrote, before its terminal touched it.
 */
export function undoOnlcr(push: (chunk: Uint8Array) => void): (chunk: Uint8Array) => void {
  let heldCr = false;
  return (chunk) => {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let from = 0;
    const parts: Buffer[] = [];
    if (heldCr) {
      heldCr = false;
      // A \r at the end of the last chunk: dropped if it was ONLCR's (a \n follows), kept otherwise.
      if (bytes[0] !== 0x0a) parts.push(Buffer.from([0x0d]));
    }
    for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) {
      if (i > from && bytes[i - 1] === 0x0d) {
        parts.push(bytes.subarray(from, i - 1));
        from = i;
      }
    }
    let end = bytes.byteLength;
    if (end > from && bytes[end - 1] === 0x0d) {
      heldCr = true;
      end--;
    }
    parts.push(bytes.subarray(from, end));
    push(Buffer.concat(parts));
  };
}
