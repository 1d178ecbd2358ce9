/**
 * The ttyd baseline (issue 26): a minimal WebSocket + node-pty forwarder speaking ttyd's protocol — the floor
 * ttyd itself sits on (one PTY per connection, bytes forwarded as they are read, no screen model, no
 * encryption) — so the output-path bench can measure ttyd's ratios in the same run without an external binary.
 * Run as its own process (as ttyd is): `tsx server.ts`; it prints `{"port":N}` on stdout once listening.
 *
 * The protocol, as tsl0922/ttyd 1.7.x speaks it (src/server.h, src/protocol.c, html/src/components/terminal/
 * xterm/index.ts): WebSocket subprotocol `tty`; the client's first message is JSON `{"AuthToken", "columns",
 * "rows"}`, which spawns the command; every later message starts with a command byte — client → server: '0'
 * INPUT + bytes, '1' RESIZE_TERMINAL + JSON `{"columns", "rows"}`, '2' PAUSE, '3' RESUME; server → client:
 * '0' OUTPUT + bytes, '1' SET_WINDOW_TITLE, '2' SET_PREFERENCES (both sent first). Flow as in ttyd: after each
 * PTY read the PTY is paused, the OUTPUT message written, and reading resumes once the socket took it
 * (ttyd: read_cb → uv_read_stop, LWS_CALLBACK_SERVER_WRITEABLE → lws_write → pty_resume). The client's
 * PAUSE / RESUME pause the PTY besides (ttyd's flow control for a slow xterm.js).
 *
 * The command comes from BASELINE_COMMAND (JSON array); the server listens on 127.0.0.1 only.
 */
import { createServer } from 'node:http';
import * as pty from 'node-pty';
import { type RawData, WebSocket, WebSocketServer } from 'ws';

const INPUT = 0x30; // '0'
const RESIZE_TERMINAL = 0x31; // '1'
const PAUSE = 0x32; // '2'
const RESUME = 0x33; // '3'
const JSON_DATA = 0x7b; // '{'
const OUTPUT = 0x30; // '0'
const SET_WINDOW_TITLE = '1';
const SET_PREFERENCES = '2';
/** ttyd's bound on a window size field (uint16). */
const MAX_SIZE = 0xffff;

const command = JSON.parse(process.env.BASELINE_COMMAND ?? '["/bin/sh"]') as string[];
if (!Array.isArray(command) || command.length === 0 || !command.every((c) => typeof c === 'string'))
  throw new TypeError('BASELINE_COMMAND must be a JSON array of strings');

function windowSize(text: string): { cols: number; rows: number } {
  const o = JSON.parse(text) as { columns?: unknown; rows?: unknown };
  const dim = (v: unknown, dflt: number) =>
    Number.isInteger(v) && (v as number) > 0 && (v as number) <= MAX_SIZE ? (v as number) : dflt;
  return { cols: dim(o.columns, 80), rows: dim(o.rows, 24) };
}

function serve(ws: WebSocket): void {
  let term: pty.IPty | null = null;
  /** Why reading is stopped: the write in flight, the client's PAUSE. */
  let writing = false;
  let clientPaused = false;
  const sync = () => {
    if (term === null) return;
    if (writing || clientPaused) term.pause();
    else term.resume();
  };
  const bytes = (d: RawData) => (Array.isArray(d) ? Buffer.concat(d) : Buffer.from(d as ArrayBuffer));
  ws.on('message', (raw) => {
    const msg = bytes(raw);
    if (msg.byteLength === 0) return;
    if (term === null) {
      if (msg[0] !== JSON_DATA) return ws.close(1008, 'expected the window size first');
      const { cols, rows } = windowSize(msg.toString('utf8'));
      const t = pty.spawn(command[0]!, command.slice(1), {
        cols,
        rows,
        cwd: process.cwd(),
        env: { ...process.env, TERM: 'xterm-256color' } as Record<string, string>,
        encoding: null,
      } as pty.IPtyForkOptions);
      term = t;
      ws.send(Buffer.from(`${SET_WINDOW_TITLE}${command.join(' ')} (baseline)`));
      ws.send(Buffer.from(`${SET_PREFERENCES}{}`));
      t.onData((d: string | Buffer) => {
        const data = typeof d === 'string' ? Buffer.from(d) : d;
        // One message per read, as ttyd's wsi_output: the command byte, then a copy of the read.
        const out = Buffer.allocUnsafe(1 + data.byteLength);
        out[0] = OUTPUT;
        data.copy(out, 1);
        writing = true;
        sync();
        ws.send(out, () => {
          writing = false;
          sync();
        });
      });
      t.onExit(() => {
        term = null;
        if (ws.readyState === WebSocket.OPEN) ws.close(1000);
      });
      return;
    }
    switch (msg[0]) {
      case INPUT:
        term.write(msg.subarray(1));
        return;
      case RESIZE_TERMINAL: {
        const { cols, rows } = windowSize(msg.subarray(1).toString('utf8'));
        term.resize(cols, rows);
        return;
      }
      case PAUSE:
        clientPaused = true;
        sync();
        return;
      case RESUME:
        clientPaused = false;
        sync();
        return;
      default:
        // ttyd ignores unknown commands (and logs them).
        return;
    }
  });
  ws.on('close', () => {
    const t = term;
    term = null;
    t?.kill('SIGHUP');
  });
}

const http = createServer((_req, res) => {
  res.writeHead(404).end();
});
const wss = new WebSocketServer({
  server: http,
  path: '/ws',
  perMessageDeflate: false,
  handleProtocols: (protocols) => (protocols.has('tty') ? 'tty' : false),
});
wss.on('connection', serve);
http.listen(0, '127.0.0.1', () => {
  const address = http.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
