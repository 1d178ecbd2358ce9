/**
 * The control socket's shared secret: 32 CSPRNG bytes in a 0600 file in the state directory, created once with
 * an exclusive write so two daemons starting together agree on one token (vscode-host-spec "The handshake").
 * The token never crosses the socket; it only keys the HMAC proofs.
 */

import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { readFileFailClosed, StateFileError } from '../state/atomic-file.js';
import { FILE_MODE } from '../state/state-dir.js';

export const TOKEN_FILE_NAME = 'control.token';
export const TOKEN_BYTES = 32;
/** An empty token file is one another process is still writing: wait for it this many times, 10 ms apart. */
const EMPTY_READ_RETRIES = 50;

export function tokenPath(stateDir: string): string {
  return join(stateDir, TOKEN_FILE_NAME);
}

/** Reads the token; null if there is none yet. StateFileError if the file is not one we trust. */
export function readControlToken(stateDir: string): Buffer | null {
  const path = tokenPath(stateDir);
  for (let i = 0; i <= EMPTY_READ_RETRIES; i++) {
    const raw = readFileFailClosed(path);
    if (raw === null) return null;
    if (raw.byteLength > 0) return parseToken(path, raw);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
  }
  throw new StateFileError(`${path} stayed empty; remove it and restart the daemon`);
}

/** Reads the token, creating it if it does not exist. */
export function loadOrCreateControlToken(stateDir: string): Buffer {
  const existing = readControlToken(stateDir);
  if (existing !== null) return existing;
  const token = randomBytes(TOKEN_BYTES);
  let fd: number;
  try {
    fd = openSync(tokenPath(stateDir), 'wx', FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readControlToken(stateDir)!;
    throw err;
  }
  try {
    writeSync(fd, `${token.toString('base64url')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return token;
}

function parseToken(path: string, raw: Buffer): Buffer {
  const text = raw.toString('utf8').trim();
  const token = Buffer.from(text, 'base64url');
  if (token.byteLength !== TOKEN_BYTES || token.toString('base64url') !== text) {
    throw new StateFileError(`${path} is not a valid control token; remove it and restart the daemon`);
  }
  return token;
}
