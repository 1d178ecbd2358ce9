/**
 * A phone that plays by the wire rules but not by Pocket's: it sends a hand-made Noise message 1 (connect mode,
 * from a stored pairing record) and records what the relay and the Burrow answer — for the crafted-attack
 * tests of revoked phones and reused pairing links (issue 8). Uses Pocket's own `startHandshake`, so the bytes
 * are exactly what a real phone would send.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { type PairingRecord, rawClientPrivateKey, startHandshake } from '@burrow/pocket/core';
import { decodeBase64url } from '@burrow/protocol';
import { REPO_ROOT } from '../../relay-worker/test/harness.js';
import { openClient } from '../../relay-worker/test/relay-client.js';
import { type BurrowDaemon, until } from './burrow-daemon.js';

const BIN = join(REPO_ROOT, 'burrow-agent', 'bin', 'burrow.js');

/** How long one attempt waits for the close (ms): the Burrow refuses at message 1, well inside this. */
export const ATTEMPT_TIMEOUT_MS = 15_000;

export interface AttemptResult {
  /** Close code the phone saw (from the close frame), or null if it timed out. */
  readonly code: number | null;
  /** Binary frames the phone received before the close (a refused phone must get none: no message 2). */
  readonly frames: number;
  /** From sending message 1 to the close frame (ms). */
  readonly ms: number;
}

/** One connect attempt with `pairing`'s keys and handshake timestamp `timestamp` (ms). */
export async function connectAttempt(
  wsUrl: string,
  pairing: PairingRecord,
  timestamp: number,
): Promise<AttemptResult> {
  const { message1 } = startHandshake({
    mode: 'connect',
    burrowId: pairing.burrowId,
    burrowPublicKey: decodeBase64url(pairing.burrowPublicKey),
    clientPrivateKey: rawClientPrivateKey(pairing),
    psk: decodeBase64url(pairing.psk),
    timestamp,
  });
  return sendMessage1(wsUrl, pairing.burrowId, message1);
}

/** Opens a phone socket, sends `message1`, and waits for the close. */
export async function sendMessage1(
  wsUrl: string,
  burrowId: string,
  message1: Uint8Array,
): Promise<AttemptResult> {
  const socket = await openClient(wsUrl, burrowId);
  let frames = 0;
  socket.ws.on('message', (_data, isBinary) => {
    if (isBinary) frames += 1;
  });
  const sent = Date.now();
  socket.send(message1);
  const timeout = new Promise<null>((r) => setTimeout(() => r(null), ATTEMPT_TIMEOUT_MS).unref());
  const closed = await Promise.race([socket.closed, timeout]);
  socket.ws.terminate();
  return { code: closed?.code ?? null, frames, ms: Date.now() - sent };
}

/** `burrow pair --yes --label <label>` running against `daemon`, and the link it printed (for reuse attacks). */
export async function openPairing(
  daemon: BurrowDaemon,
  label: string,
): Promise<{ link: string; pair: ChildProcess; exited: Promise<number | null> }> {
  const pair = spawn(process.execPath, [BIN, 'pair', '--yes', '--label', label], {
    env: daemon.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  pair.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<number | null>((r) => pair.once('exit', (c) => r(c)));
  await until(() => /#pair=\S+/.test(out), 'the pairing link');
  return { link: /(http\S+#pair=\S+)/.exec(out)![1]!, pair, exited };
}
