/**
 * `burrow attach <session>`: the local terminal becomes a viewer of the session. Raw mode; size follows the
 * local terminal (SIGWINCH) and attaching takes the size (last attach wins); focus reports (DECSET 1004) and
 * typing are forwarded as presence; Ctrl-B d detaches; the terminal is restored on every way out. The output
 * is byte-exact: a terminal that cannot keep up slows the program instead of losing bytes.
 */

import { signalName } from '../attention-host/attention-host.js';
import { printable } from '../text/printable.js';
import { AttachInputFilter, DEFAULT_DETACH_KEY, type DetachKey } from './attach-input.js';
import { connectDaemon } from './daemon-connection.js';
import { ExitCode } from './exit-codes.js';

const FOCUS_REPORTS_ON = '\x1b[?1004h';
/**
 * Undo what a session's snapshot or output may have switched on in the host terminal: focus reports, mouse
 * tracking, bracketed paste, application cursor/keypad, alternate screen, hidden cursor, colours.
 */
const RESTORE_TERMINAL =
  '\x1b[?1004l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[?1l\x1b>\x1b[?1049l\x1b[?25h\x1b[0m';
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
  let paused = false;

  return new Promise<number>((resolve) => {
    let done = false;
    const finish = (code: number, note: string) => {
      if (done) return;
      done = true;
      process.off('SIGWINCH', onResize);
      stdin.off('data', onInput);
      stdin.setRawMode(false);
      stdin.pause();
      stdout.write(`${RESTORE_TERMINAL}\r\n${note}\r\n`);
      client.close();
      resolve(code);
    };
    const onResize = () => {
      if (stdout.columns > 1 && stdout.rows > 0)
        client.send({ type: 'resize', cols: stdout.columns, rows: stdout.rows });
    };
    const onInput = (chunk: Buffer) => {
      const r = filter.push(chunk);
      for (const f of r.focus) client.send({ type: 'presence', focused: f });
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
        { session: ref, cols: Math.max(2, stdout.columns), rows: Math.max(1, stdout.rows) },
        {
          snapshot: (_h, data) => {
            // The detach key, said once as the session appears (it stays in the terminal's scrollback). The
            // snapshot comes before the attach answer is read, so the session is named as it was typed.
            if (!hinted)
              stdout.write(`[burrow: attached to ${printable(ref, 64)}; detach with ${detach.help}]\r\n`);
            hinted = true;
            // RIS gives the snapshot a clean terminal; it also clears 1004, so ask for focus reports again.
            stdout.write(`\x1bc${data}${FOCUS_REPORTS_ON}`);
          },
          output: (_offset, data) => {
            // Backpressure all the way to the program: a terminal slower than the program pauses our reading,
            // which fills the daemon's socket, which holds the PTY. Nothing is dropped on the way.
            if (!stdout.write(data) && !paused) {
              paused = true;
              client.pauseStream();
              stdout.once('drain', () => {
                paused = false;
                client.resumeStream();
              });
            }
          },
          event: (e) => {
            if (e.event === 'exit') {
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
      .then((result) => {
        const r = result as { session?: { name?: unknown } };
        if (typeof r.session?.name === 'string') sessionName = printable(r.session.name, 64);
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
