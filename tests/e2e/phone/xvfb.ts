/**
 * A private X server for an engine that needs a display (WebKitGTK's MiniBrowser has no headless mode):
 * Xvfb picks a free display itself (-displayfd), so parallel test files never collide.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

export const XVFB_PATH = '/usr/bin/Xvfb';
/** How long Xvfb may take to report its display. */
const XVFB_START_MS = 10_000;

export interface Display {
  /** For DISPLAY, e.g. ":3". */
  readonly name: string;
  stop(): Promise<void>;
}

export async function startXvfb(): Promise<Display> {
  if (!existsSync(XVFB_PATH)) throw new Error(`${XVFB_PATH} is missing: install Debian's xvfb package`);
  const child: ChildProcess = spawn(
    XVFB_PATH,
    ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp', '-noreset'],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  const number = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`Xvfb reported no display in ${XVFB_START_MS} ms: ${stderr}`)),
      XVFB_START_MS,
    );
    let out = '';
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve(out.trim());
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb exited (${code}): ${stderr}`));
    });
  });
  return {
    name: `:${number}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
