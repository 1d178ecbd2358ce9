/**
 * The bench's side of the ttyd baseline (server.ts): starts a forwarder process for one command and connects
 * to it as ttyd's web client does (subprotocol `tty`, the window size first, no permessage-deflate — Burrow's
 * phone socket does not offer it either, so both paths move the same bytes).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';

const SERVER = fileURLToPath(new URL('./server.ts', import.meta.url));
const START_TIMEOUT_MS = 30_000;
const INPUT = 0x30;
const OUTPUT = 0x30;

export interface BaselineServer {
  readonly pid: number;
  readonly port: number;
  stop(): Promise<void>;
}

/** A forwarder process running `command` for each connection; resolves once it listens. */
export function startBaseline(command: readonly string[]): Promise<BaselineServer> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', SERVER], {
    env: { ...process.env, BASELINE_COMMAND: JSON.stringify(command) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the ttyd baseline did not start'));
    }, START_TIMEOUT_MS);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n')[0];
      if (!out.includes('\n') || line === undefined) return;
      clearTimeout(timer);
      const { port } = JSON.parse(line) as { port: number };
      resolve({
        pid: child.pid!,
        port,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the ttyd baseline exited (${code}) before listening`));
    });
  });
}

export interface BaselineTerminal {
  input(data: string | Uint8Array): void;
  close(): void;
}

/** Connects like ttyd's web client; `onOutput` gets each OUTPUT message's bytes. */
export function connectBaseline(
  server: BaselineServer,
  size: { cols: number; rows: number },
  onOutput: (data: Buffer) => void,
): Promise<BaselineTerminal> {
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws`, ['tty'], { perMessageDeflate: false });
  ws.on('message', (d: Buffer, isBinary: boolean) => {
    if (isBinary && d[0] === OUTPUT) onOutput(d.subarray(1));
  });
  return new Promise((resolve, reject) => {
    ws.once('error', reject);
    ws.once('open', () => {
      ws.send(Buffer.from(JSON.stringify({ AuthToken: '', columns: size.cols, rows: size.rows })));
      resolve({
        input(data) {
          const bytes = typeof data === 'string' ? Buffer.from(data) : data;
          const msg = Buffer.allocUnsafe(1 + bytes.byteLength);
          msg[0] = INPUT;
          msg.set(bytes, 1);
          ws.send(msg);
        },
        close: () => ws.close(),
      });
    });
  });
}
