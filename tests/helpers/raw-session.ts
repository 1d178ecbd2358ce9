/**
 * A paired phone's Noise session that sends what it is told, valid or not: the real connect handshake (Pocket's
 * `startHandshake`) over the real relay, then CONTROL frames of any JSON — for the crafted-offer tests of the
 * direct path, where Pocket's own encoder would refuse to send the malformed message at all.
 */
import { type PairingRecord, rawClientPrivateKey, startHandshake } from '@burrow/pocket/core';
import {
  type BurrowMessage,
  type ClientMessage,
  decodeBase64url,
  decodeBurrowMessage,
  encodeClientMessage,
  type SecureChannel,
} from '@burrow/protocol';
import { openClient, type TestSocket } from '../../relay-worker/test/relay-client.js';

export class RawSession {
  readonly #received: BurrowMessage[] = [];

  private constructor(
    readonly socket: TestSocket,
    readonly channel: SecureChannel,
  ) {}

  /** Handshake (connect mode, a fresh timestamp) and hello; resolves once the Burrow's hello arrived. */
  static async open(wsUrl: string, pairing: PairingRecord): Promise<RawSession> {
    const hs = startHandshake({
      mode: 'connect',
      burrowId: pairing.burrowId,
      burrowPublicKey: decodeBase64url(pairing.burrowPublicKey),
      clientPrivateKey: rawClientPrivateKey(pairing),
      psk: decodeBase64url(pairing.psk),
      timestamp: Date.now(),
    });
    const socket = await openClient(wsUrl, pairing.burrowId);
    socket.send(hs.message1);
    const m2 = await socket.next();
    if (m2.kind !== 'binary') throw new Error('no message 2');
    const session = new RawSession(socket, hs.finish(m2.data));
    session.send(
      encodeClientMessage({ type: 'hello', appVersion: 'raw-1', viewer: 'test', cols: 80, rows: 24 }),
    );
    await session.until((m) => m.type === 'hello');
    return session;
  }

  /** Seals one whole frame (any bytes) into the session. */
  send(frame: Uint8Array): void {
    for (const ct of this.channel.seal(frame)) this.socket.send(ct);
  }

  /** A CONTROL frame of `value` as JSON, whether or not it is a valid message. */
  sendJson(value: unknown): void {
    this.send(new Uint8Array([0x01, ...new TextEncoder().encode(JSON.stringify(value))]));
  }

  sendMessage(m: ClientMessage): void {
    this.send(encodeClientMessage(m));
  }

  /** Reads until a message satisfies `pred` (each one read is kept in `received`). */
  async until(pred: (m: BurrowMessage) => boolean, timeoutMs = 10_000): Promise<BurrowMessage> {
    const seen = this.#received.find(pred);
    if (seen) return seen;
    const end = Date.now() + timeoutMs;
    for (;;) {
      const next = await this.socket.next(Math.max(1, end - Date.now()));
      if (next.kind !== 'binary') continue;
      const frame = this.channel.open(next.data);
      if (!frame) continue;
      const m = decodeBurrowMessage(frame);
      this.#received.push(m);
      if (pred(m)) return m;
    }
  }

  get received(): readonly BurrowMessage[] {
    return this.#received;
  }

  close(): void {
    this.socket.close();
  }
}
