/** Runs the built CLI (`bin/burrow.js` → `dist/cli/main.js`) against a daemon with a temp state directory. */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from './helpers.js';
import { testHome } from './test-home.js';

export const PKG = fileURLToPath(new URL('..', import.meta.url));
export const BIN = join(PKG, 'bin', 'burrow.js');

/** Builds the package once (tsc -b emits even while other packages' work in progress has type errors). */
export function buildOnce(): void {
  const r = spawnSync(
    process.execPath,
    [join(PKG, '..', 'node_modules', 'typescript', 'bin', 'tsc'), '-b', join(PKG, 'tsconfig.json')],
    {
      encoding: 'utf8',
    },
  );
  if (!existsSync(join(PKG, 'dist', 'cli', 'main.js')))
    throw new Error(`build failed:\n${r.stdout}${r.stderr}`);
}

export function tempStateEnv(): NodeJS.ProcessEnv {
  const stateDir = join(mkdtempSync(join(tmpdir(), 'bcli-')), 's');
  return { PATH: process.env.PATH, HOME: testHome(), SHELL: '/bin/bash', BURROW_STATE_DIR: stateDir };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function cli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env, timeout: 20_000 }, (err, stdout, stderr) => {
      const code =
        err === null
          ? 0
          : typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

export async function startDaemonProcess(
  env: NodeJS.ProcessEnv,
): Promise<{ proc: ChildProcess; stderr: () => string }> {
  const proc = spawn(process.execPath, [BIN, 'daemon'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  await until('daemon listening', () => err.includes('listening on') || proc.exitCode !== null, 20_000);
  if (proc.exitCode !== null) throw new Error(`daemon exited: ${err}`);
  return { proc, stderr: () => err };
}

export async function stopDaemonProcess(proc: ChildProcess): Promise<number | null> {
  if (proc.exitCode !== null) return proc.exitCode;
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  proc.kill('SIGTERM');
  return exited;
}
