/**
 * One program in a pseudo-terminal, whose output Burrow reads itself so that no byte is lost at exit.
 *
 * Why not node-pty's own reader (UnixTerminal): on Linux it reads the master through libuv's stream reader,
 * and libuv treats POLLHUP after a short read as end of file (uv__stream_io, "short-circuit iff POLLHUP is
 * set … and uv__read() reported a partial read"). A pty master hands out at most ~4 KiB per read, so every
 * read is "partial": when a program exits with more than one read's worth unread, the rest is discarded
 * (microsoft/node-pty#726, #72). On this machine `head -c 2000000 /dev/zero | base64 -w0 | cat` lost its
 * tail in 10 of 20 runs through node-pty. node-pty also destroys the socket 200 ms after the exit whatever
 * is still unread.
 *
 * So this keeps node-pty's native `fork` (forkpty, the termios it sets, exec, the exit watcher) and:
 *  - holds the slave side open itself, so the master never hangs up while libuv reads it;
 *  - when the child exits, stops libuv and drains the master synchronously until EAGAIN — n_tty_read flushes
 *    the tty's pending buffers before answering EAGAIN, so every byte written before the exit is read — then
 *    closes both sides (which hangs up any background job still holding the terminal, as node-pty did) and
 *    only then reports the exit.
 * Reading uses a socket with a fixed user buffer (`onread`): no allocation per read, and `pause()` stops
 * reading at once (the pipeline's backpressure).
 */
import { closeSync, constants, openSync, readSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { ReadStream } from 'node:tty';

/** libuv reads the master into this buffer (one per session): a pty read returns at most the line discipline's 4 KiB. */
export const PTY_READ_BUFFER_BYTES = 16 * 1024;
/** Input accepted for the program but not yet taken by its terminal; past this, `write` refuses. */
export const MAX_PENDING_INPUT_BYTES = 4 * 1024 * 1024;
/**
 * Retry delay for input the terminal could not take yet (its input queue is full), ms: doubles up to
 * MAX_INPUT_RETRY_MS while the program does not read, so a stuck program costs no busy loop.
 */
export const INPUT_RETRY_MS = 2;
export const MAX_INPUT_RETRY_MS = 100;

/** node-pty 1.1.0's native binding (src/unix/pty.cc), the part this module uses. */
interface NativePty {
  fork(
    file: string,
    args: string[],
    env: string[],
    cwd: string,
    cols: number,
    rows: number,
    uid: number,
    gid: number,
    utf8: boolean,
    helperPath: string,
    onExit: (code: number, signal: number) => void,
  ): { fd: number; pid: number; pty: string };
  resize(fd: number, cols: number, rows: number): void;
}

const require = createRequire(import.meta.url);
// node-pty's own loader (build/Release, then prebuilds/<platform>-<arch>); pinned version, see package.json.
const loaded = (
  require('node-pty/lib/utils.js') as { loadNativeModule(n: string): { dir: string; module: NativePty } }
).loadNativeModule('pty');
const native = loaded.module;
// Only macOS spawns through the helper; the argument is required on every platform.
const helperPath = resolve(dirname(require.resolve('node-pty/lib/utils.js')), loaded.dir, 'spawn-helper');

export interface PtySpawnOptions {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly cols: number;
  readonly rows: number;
}

export interface PtyHandlers {
  /**
   * Bytes the program wrote, in order. `chunk` is a view of a buffer reused for the next read: copy what you
   * keep. `pause()` from here stops reading before the next read.
   */
  data(chunk: Uint8Array): void;
  /** The program exited and every byte it wrote was delivered; `signal` is null for a normal exit. */
  exit(code: number, signal: number | null): void;
}

export class PtyProcess {
  readonly pid: number;
  /** The slave's device path (/dev/pts/N). */
  readonly ptsName: string;
  readonly #fd: number;
  #slaveFd: number | null;
  readonly #socket: ReadStream;
  readonly #buffer = Buffer.allocUnsafe(PTY_READ_BUFFER_BYTES);
  readonly #handlers: PtyHandlers;
  #paused = false;
  #closed = false;
  #masterClosed = false;
  readonly #input: Buffer[] = [];
  #inputBytes = 0;
  #inputTimer: NodeJS.Timeout | undefined;
  #inputRetryMs = INPUT_RETRY_MS;

  constructor(opts: PtySpawnOptions, handlers: PtyHandlers) {
    this.#handlers = handlers;
    const env = { ...opts.env, PWD: opts.cwd };
    const term = native.fork(
      opts.file,
      [...opts.args],
      Object.entries(env).map(([k, v]) => `${k}=${v}`),
      opts.cwd,
      opts.cols,
      opts.rows,
      -1,
      -1,
      // IUTF8: the line discipline erases whole UTF-8 characters (every Burrow viewer is UTF-8).
      true,
      helperPath,
      (code, signal) => this.#childExited(code, signal),
    );
    this.pid = term.pid;
    this.ptsName = term.pty;
    this.#fd = term.fd;
    // Opened before libuv ever polls the master, so it can never see the hang-up of the child's last close.
    // O_CLOEXEC comes with Node's open: other sessions' programs never inherit it. Should the slave not open
    // (an unusual /dev/pts), reading still works; only a tail written in the last moment before an exit could
    // then be cut short, as with node-pty.
    try {
      this.#slaveFd = openSync(term.pty, constants.O_RDWR | constants.O_NOCTTY);
    } catch {
      this.#slaveFd = null;
    }
    this.#socket = new ReadStream(this.#fd, {
      onread: {
        buffer: this.#buffer,
        callback: (n: number) => {
          this.#handlers.data(this.#buffer.subarray(0, n));
        },
      },
    } as ConstructorParameters<typeof ReadStream>[1]);
    this.#socket.on('error', () => {
      // EIO cannot happen while the slave is held; anything else ends reading, and the exit drain takes over.
    });
    // The socket closes the master itself after an error or end of file: from then on the fd number may
    // belong to something else, so the exit drain must not read it.
    this.#socket.once('close', () => {
      this.#masterClosed = true;
    });
    this.#socket.resume();
  }

  /** True once the program exited and the terminal is closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Stops reading the program's output (it blocks once the terminal's buffer fills). */
  pause(): void {
    if (this.#paused || this.#closed) return;
    this.#paused = true;
    this.#socket.pause();
  }

  resume(): void {
    if (!this.#paused || this.#closed) return;
    this.#paused = false;
    this.#socket.resume();
  }

  /** Queues bytes for the program; RangeError past MAX_PENDING_INPUT_BYTES not yet taken by the terminal. */
  /** Input accepted by `write` that the terminal has not taken yet (the program has not read it). */
  get pendingInputBytes(): number {
    return this.#inputBytes;
  }

  write(data: Uint8Array | string): void {
    if (this.#closed) return;
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
    if (bytes.byteLength === 0) return;
    if (this.#inputBytes + bytes.byteLength > MAX_PENDING_INPUT_BYTES) {
      throw new RangeError(`the program has not read ${this.#inputBytes} bytes of input yet`);
    }
    this.#input.push(bytes);
    this.#inputBytes += bytes.byteLength;
    if (this.#input.length === 1 && this.#inputTimer === undefined) this.#flushInput();
  }

  resize(cols: number, rows: number): void {
    if (this.#closed) return;
    native.resize(this.#fd, cols, rows);
  }

  kill(signal: NodeJS.Signals): void {
    if (this.#closed) return;
    process.kill(this.pid, signal);
  }

  /**
   * Writes what the terminal takes now, synchronously: a keystroke reaches the program without a trip through
   * the thread pool (node-pty uses fs.write, which waits behind history compression there). The rest is
   * retried shortly, in order.
   */
  #flushInput(): void {
    this.#inputTimer = undefined;
    while (this.#input.length > 0 && !this.#closed) {
      const head = this.#input[0]!;
      let n: number;
      try {
        n = writeSync(this.#fd, head);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') {
          this.#inputTimer = setTimeout(() => this.#flushInput(), this.#inputRetryMs);
          this.#inputRetryMs = Math.min(MAX_INPUT_RETRY_MS, this.#inputRetryMs * 2);
          return;
        }
        // The terminal is gone (the program exited); what was typed has nowhere to go.
        this.#dropInput();
        return;
      }
      this.#inputBytes -= n;
      this.#inputRetryMs = INPUT_RETRY_MS;
      if (n === head.byteLength) this.#input.shift();
      else this.#input[0] = head.subarray(n);
    }
  }

  #dropInput(): void {
    this.#input.length = 0;
    this.#inputBytes = 0;
    clearTimeout(this.#inputTimer);
    this.#inputTimer = undefined;
  }

  #childExited(code: number, signal: number): void {
    this.#socket.pause();
    // Everything the program wrote is in the terminal's buffers now; read it all, ignoring backpressure (at
    // most the tty's own buffer limits: a few tens of KiB).
    while (!this.#masterClosed) {
      let n: number;
      try {
        n = readSync(this.#fd, this.#buffer, 0, this.#buffer.byteLength, null);
      } catch {
        break; // EAGAIN: drained (EIO: nobody holds the slave, also drained)
      }
      if (n <= 0) break;
      this.#handlers.data(this.#buffer.subarray(0, n));
    }
    this.#close();
    // node-pty reports signal 0 for a normal exit.
    this.#handlers.exit(code, signal === 0 ? null : signal);
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#dropInput();
    this.#socket.destroy(); // closes the master: a background job still on the terminal is hung up
    if (this.#slaveFd !== null) closeSync(this.#slaveFd);
    this.#slaveFd = null;
  }
}
