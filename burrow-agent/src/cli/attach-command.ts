/**
 * `burrow attach <session>`: the local terminal becomes a viewer of the session. Raw mode; attaching takes the
 * size (last attach wins, protocol R-SIZE-1), the terminal's resizes (SIGWINCH) follow while it holds it, and
 * the prefix then `f` takes it back (R-SIZE-2); focus reports (DECSET 1004) and typing are forwarded as
 * presence; Ctrl-B d detaches; the terminal is restored on every way out. While the terminal and the session
 * have the same size the output is byte-exact, and a terminal that cannot keep up slows the program instead of
 * losing bytes; while they differ it shows the session clipped, with a hint line (attach-view.ts).
 */

import { MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS } from '../screen/screen-limits.js';
import { signalName } from '../session/signal-name.js';
import { printable } from '../text/printable.js';
import { AttachInputFilter, DEFAULT_DETACH_KEY, type DetachKey } from './attach-input.js';
import { type AttachedSession, attachLine } from './attach-line.js';
import { AttachView, FOCUS_REPORTS_ON } from './attach-view.js';
import { connectDaemon } from './daemon-connection.js';
import { ExitCode } from './exit-codes.js';

/**
 * Undo what a session's snapshot or output (or a clipped view) may have switched on in the host terminal:
 * focus reports, mouse tracking, bracketed paste, application cursor/keypad, alternate screen, autowrap off,
 * hidden cursor, colours.
 */
const RESTORE_TERMINAL =
  '\x1b[?1004l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[?1l\x1b>\x1b[?1049l\x1b[?7h\x1b[?25h\x1b[0m';
/** Typing is reported at most this often (the engine needs "the owner is here", not every key). */
const TYPING_REPORT_MS = 1000;

export interface AttachIo {
  readonly stdin: NodeJS.ReadStream;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: NodeJS.ProcessEnv;
}

export async function runAttach(
  ref: string,
  io: AttachIo,
  detach: DetachKey = DEFAULT_DETACH_KEY,
): Promise<number> {
  const { stdin, stdout } = io;
  if (!stdin.isTTY || !stdout.isTTY) {
    io.stderr.write('burrow attach: needs a terminal (stdin and stdout must be a TTY)\n');
    return ExitCode.Usage;
  }
  const client = await connectDaemon(io.env);
  const filter = new AttachInputFilter(detach);
  let lastTyping = 0;
  // Names come from the daemon, which may have them from a phone: shown, never interpreted (printable.ts).
  let sessionName = printable(ref, 64);
  let hinted = false;
  /** The session as the attach answer described it (read before the first snapshot: control-client.ts). */
  let attached: AttachedSession | undefined;
  /** Why the daemon is asked to wait: the terminal's buffer is full, or the clipped view's model is behind. */
  const holds = new Set<'stdout' | 'model'>();
  const hold = (why: 'stdout' | 'model', held: boolean) => {
    const before = holds.size;
    if (held) holds.add(why);
    else holds.delete(why);
    if (before === 0 && holds.size > 0) client.pauseStream();
    else if (before > 0 && holds.size === 0) client.resumeStream();
  };
  /** Backpressure all the way to the program: a full terminal pauses our reading, which holds the PTY. */
  const write = (data: string | Uint8Array): boolean => {
    const ok = stdout.write(data);
    if (!ok && !holds.has('stdout')) {
      hold('stdout', true);
      stdout.once('drain', () => hold('stdout', false));
    }
    return ok;
  };
  const view = new AttachView({
    write,
    resync: () => client.send({ type: 'resync' }),
    hold: (held) => hold('model', held),
    local: localSize(stdout),
    fitKey: detach.fitHelp,
    sessionName: () => sessionName,
  });

  return new Promise<number>((resolve) => {
    let done = false;
    const finish = (code: number, note: string) => {
      if (done) return;
      done = true;
      process.off('SIGWINCH', onResize);
      stdin.off('data', onInput);
      stdin.setRawMode(false);
      stdin.pause();
      view.dispose();
      stdout.write(`${RESTORE_TERMINAL}\r\n${note}\r\n`);
      client.close();
      resolve(code);
    };
    const onResize = () => {
      const size = localSize(stdout);
      client.send({ type: 'resize', ...size });
      view.localResize(size);
    };
    const onInput = (chunk: Buffer) => {
      const r = filter.push(chunk);
      for (const f of r.focus) client.send({ type: 'presence', focused: f });
      if (r.fit) client.send({ type: 'fit', ...localSize(stdout) });
      if (r.forward.byteLength > 0) {
        client.input(r.forward);
        const t = Date.now();
        if (t - lastTyping >= TYPING_REPORT_MS) {
          lastTyping = t;
          client.send({ type: 'typing' });
        }
      }
      if (r.detach) finish(ExitCode.Ok, `[detached from ${sessionName}]`);
    };

    client
      .attach(
        { session: ref, ...localSize(stdout) },
        {
          attached: (result) => {
            attached = (result as { session?: AttachedSession }).session;
            if (typeof attached?.name === 'string') sessionName = printable(attached.name, 64);
          },
          snapshot: (h, data) => {
            // Which session (and, resumed, which conversation) and the keys, said once as the session appears;
            // the terminal keeps the line in its scrollback, just above the session (attach-view.ts).
            const preface = hinted ? undefined : attachLine(ref, attached, detach);
            hinted = true;
            view.snapshot({ cols: h.cols, rows: h.rows }, data, preface);
          },
          output: (_offset, data) => {
            // The fast path: same size, the bytes go straight to the terminal.
            if (view.direct) write(data);
            else view.output(data);
          },
          event: (e) => {
            if (e.event === 'size') view.size(e);
            else if (e.event === 'exit') {
              const signal =
                typeof e.signal === 'number' ? (signalName(e.signal) ?? `signal ${e.signal}`) : null;
              const exitNote =
                signal !== null
                  ? `killed by ${printable(signal, 16)}${e.exitCode !== null ? ` (exit ${e.exitCode})` : ''}`
                  : `exited with code ${e.exitCode ?? '?'}`;
              finish(
                ExitCode.Ok,
                `[${sessionName} ${exitNote}; it stays listed until \`burrow kill ${printable(ref, 64)}\`]`,
              );
            } else if (e.event === 'closed') {
              finish(ExitCode.Ok, `[${sessionName} closed: ${printable(String(e.reason), 200)}]`);
            }
          },
          end: (err) =>
            finish(
              err ? ExitCode.Failure : ExitCode.Ok,
              err
                ? `[connection lost: ${printable(err.message, 200)}]`
                : '[the daemon closed the connection]',
            ),
        },
      )
      .then(() => {
        stdin.setRawMode(true);
        stdin.resume();
        stdin.on('data', onInput);
        process.on('SIGWINCH', onResize);
        stdout.write(FOCUS_REPORTS_ON);
      })
      .catch((err: Error & { code?: string }) => {
        done = true;
        client.close();
        io.stderr.write(`burrow attach: ${printable(String(err.message), 512)}\n`);
        resolve(err.code === 'not-found' ? ExitCode.NotFound : ExitCode.Failure);
      });
  });
}

/** The terminal's size, within what a session accepts. */
function localSize(stdout: NodeJS.WriteStream): { cols: number; rows: number } {
  const clamp = (n: number | undefined, min: number, max: number) =>
    Math.min(max, Math.max(min, Number.isInteger(n) ? n! : min));
  return { cols: clamp(stdout.columns, MIN_COLS, MAX_COLS), rows: clamp(stdout.rows, MIN_ROWS, MAX_ROWS) };
}
