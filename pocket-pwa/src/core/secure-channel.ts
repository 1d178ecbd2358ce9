/**
 * The phone's end of one Noise session (DESIGN §4.2): the initiator handshake over a socket, then frames
 * fragmented, encrypted and reassembled. One binary WebSocket frame carries one Noise message. The channel
 * fails closed: once a message is refused (a relay that alters, drops, reorders, duplicates or replays frames
 * shows as a failed decryption, the nonce being the message's position) every later `open` and `seal` throws.
 */
import {
  type Aead,
  burrowPrologue,
  type ExternalStaticKey,
  encodeHandshakeTimestamp,
  type HandshakeMode,
  initiatorIKpsk2,
  type KeyPair,
  keyPairFromPrivate,
  type NoiseTransport,
} from '@burrow/crypto';
import { decodeBase64url, PROTOCOL_VERSION, SecureChannel } from '@burrow/protocol';

// The channel itself is shared with the Burrow (protocol R-CHAN-1); the phone adds the initiator handshake.
export { SecureChannel };

export interface InitiatorParams {
  readonly mode: HandshakeMode;
  readonly burrowId: string;
  readonly burrowPublicKey: Uint8Array;
  /**
   * The Client static: its raw private key, or the key a stored pairing yields (`clientStaticKey`). A
   * `WebCryptoStaticKey` must be prepared for the Burrow's static key before this call, and for message 2's
   * ephemeral (`ikpsk2ResponderEphemeral`) before `finish`.
   */
  readonly clientPrivateKey: Uint8Array | KeyPair | ExternalStaticKey;
  readonly psk: Uint8Array;
  /** connect mode: the anti-replay timestamp for message 1's payload. */
  readonly timestamp?: number;
  readonly aead?: Aead;
}

/** Starts the handshake: returns message 1 and a function that takes message 2 and yields the channel. */
export function startHandshake(p: InitiatorParams): {
  message1: Uint8Array;
  finish(message2: Uint8Array): SecureChannel<NoiseTransport>;
} {
  const hs = initiatorIKpsk2({
    prologue: burrowPrologue({
      mode: p.mode,
      protocolVersion: PROTOCOL_VERSION,
      burrowId: decodeBase64url(p.burrowId),
    }),
    staticKeyPair:
      p.clientPrivateKey instanceof Uint8Array ? keyPairFromPrivate(p.clientPrivateKey) : p.clientPrivateKey,
    remoteStaticKey: p.burrowPublicKey,
    psk: p.psk,
    ...(p.aead ? { aead: p.aead } : {}),
  });
  const payload = p.mode === 'connect' ? encodeHandshakeTimestamp(p.timestamp ?? 0) : new Uint8Array(0);
  const message1 = hs.writeMessage(payload);
  return {
    message1,
    finish(message2) {
      hs.readMessage(message2);
      return new SecureChannel(hs.split());
    },
  };
}

export function clientSocketUrl(relayUrl: string, burrowId: string): string {
  return `${relayUrl.replace(/\/+$/, '').replace(/^http/, 'ws')}/v1/burrows/${encodeURIComponent(burrowId)}/client`;
}
