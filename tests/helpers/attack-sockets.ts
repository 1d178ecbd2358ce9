/**
 * Hostile phone sockets for the crafted-attack tests (issue 8, "Hostile input"): sockets that open and then
 * never finish a handshake, each recording when it opened, when and how it was closed, and whether the relay
 * sent it anything. Built on the relay tests' `openSocket` (which resolves a close on the close frame, the
 * code a browser would show).
 */
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { openClient, UpgradeRefused } from '../../relay-worker/test/relay-client.js';

/**
 * How a probe misbehaves once open:
 *  - `silent`: sends nothing at all;
 *  - `partial-frame`: starts one WebSocket binary frame announcing 96 bytes and sends only its first half,
 *    so the relay never sees a whole message (RFC 6455 §5.2 framing, written on the raw TCP socket);
 *  - `short-message1`: one whole message of 20 random bytes, shorter than any Noise IK message 1 (96 bytes).
 */
export type ProbeBehaviour = 'silent' | 'partial-frame' | 'short-message1';

export interface ProbeResult {
  readonly behaviour: ProbeBehaviour;
  /** The upgrade succeeded (101); false when refused with an HTTP status or a network error. */
  readonly upgraded: boolean;
  /** HTTP status of a refused upgrade, else null. */
  readonly refusedStatus: number | null;
  /** `Date.now()` when the upgrade completed (or failed). */
  readonly openedAt: number;
  /** Close code and `Date.now()` when the close frame arrived; null while still open. */
  closeCode: number | null;
  closedAt: number | null;
  /** Messages the relay sent it (a handshake that never finished must learn nothing). */
  messages: number;
  close(): void;
}

/** Bytes of a whole Noise IK message 1 (e 32 + encrypted s 48 + encrypted empty-ish payload 16): the partial frame's announced length. */
const PARTIAL_FRAME_ANNOUNCED_BYTES = 96;
const SHORT_MESSAGE1_BYTES = 20;

/** Opens one hostile phone socket on `burrowId` from `source` (a CF-Connecting-IP) and misbehaves. */
export async function openProbe(
  wsUrl: string,
  burrowId: string,
  source: string,
  behaviour: ProbeBehaviour,
): Promise<ProbeResult> {
  try {
    const socket = await openClient(wsUrl, burrowId, { source });
    const result: ProbeResult = {
      behaviour,
      upgraded: true,
      refusedStatus: null,
      openedAt: Date.now(),
      closeCode: null,
      closedAt: null,
      messages: 0,
      close: () => socket.ws.terminate(),
    };
    socket.ws.on('message', () => {
      result.messages += 1;
    });
    void socket.closed.then(({ code }) => {
      result.closeCode = code;
      result.closedAt = Date.now();
    });
    if (behaviour === 'short-message1') socket.send(randomBytes(SHORT_MESSAGE1_BYTES));
    if (behaviour === 'partial-frame') writePartialFrame(rawSocket(socket.ws));
    return result;
  } catch (error) {
    return {
      behaviour,
      upgraded: false,
      refusedStatus: error instanceof UpgradeRefused ? error.status : null,
      openedAt: Date.now(),
      closeCode: null,
      closedAt: null,
      messages: 0,
      close: () => {},
    };
  }
}

/** The TCP socket under a `ws` client (its documented-by-source `_socket`). */
function rawSocket(ws: unknown): Socket {
  const raw = (ws as { _socket?: Socket })._socket;
  if (raw === undefined) throw new TypeError('ws client has no underlying socket');
  return raw;
}

/** A masked binary frame header for 96 bytes, then only half the payload (mask key 0: bytes as is). */
function writePartialFrame(raw: Socket): void {
  const header = Buffer.from([0x82, 0x80 | 126, 0, PARTIAL_FRAME_ANNOUNCED_BYTES, 0, 0, 0, 0]);
  raw.write(Buffer.concat([header, randomBytes(PARTIAL_FRAME_ANNOUNCED_BYTES / 2)]));
}

/** Resolves once every probe that upgraded has been closed, or after `timeoutMs` (whichever first). */
export async function untilAllClosed(probes: readonly ProbeResult[], timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (probes.some((p) => p.upgraded && p.closeCode === null) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Counts of each close code among the probes ('open' for ones still open, 'http <status>' for refused). */
export function tally(probes: readonly ProbeResult[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const p of probes) {
    const key = !p.upgraded ? `http ${p.refusedStatus}` : p.closeCode === null ? 'open' : String(p.closeCode);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
