/**
 * Pairing from a link (DESIGN §4.2 "Pairing", §7): generate the Client static, run the pair-mode handshake
 * with psk = the link's secret, send `pair-request` (the key confirmation), show the code, wait for the
 * owner's answer, store the credentials.
 */
import {
  confirmationCode,
  ikpsk2ResponderEphemeral,
  NoiseError,
  type NoiseTransport,
  pairingTicket,
} from '@burrow/crypto';
import {
  CLOSE_MESSAGES,
  type CloseCode,
  clientSubprotocols,
  decodeBase64url,
  decodePairBurrowMessage,
  encodeBase64url,
  encodePairClientMessage,
  ProtocolError,
} from '@burrow/protocol';
import {
  clientStaticKey,
  generateClientKey,
  type NewClientKey,
  WebCryptoStaticKey,
} from './client-static.js';
import { type Clock, systemClock } from './clock.js';
import { isOfferExpired, type PairingOffer } from './pairing-link.js';
import type { PairingRecord, PairingStorage } from './pairing-storage.js';
import { clientSocketUrl, type SecureChannel, startHandshake } from './secure-channel.js';
import { frameBytes, type SocketFactory } from './socket.js';

/** From opening the socket to `pair-pending` (ms); the owner's decision after that has its own budget. */
export const PAIR_HANDSHAKE_TIMEOUT_MS = 15_000;
/** How long we wait for the owner to compare codes (ms); the Burrow gives up at 5 min. */
export const PAIR_DECISION_TIMEOUT_MS = 5 * 60_000 + 10_000;

export type PairingErrorReason = 'expired' | 'rejected' | 'unavailable' | 'timeout' | 'network' | 'protocol';

export class PairingError extends Error {
  override readonly name = 'PairingError';
  constructor(
    readonly reason: PairingErrorReason,
    message: string,
  ) {
    super(message);
  }
}

export interface PairOptions {
  readonly offer: PairingOffer;
  readonly socketFactory: SocketFactory;
  readonly storage: PairingStorage;
  readonly label: string;
  readonly platform: string;
  readonly userAgent: string;
  readonly onCode: (code: string) => void;
  readonly clock?: Clock;
  /**
   * Make the Client static a non-extractable WebCrypto key where the engine has X25519 (Pocket: true). Node
   * test clients leave it out and get a raw @noble key (client-static.ts).
   */
  readonly webCryptoKey?: boolean;
}

export function pairWithOffer(o: PairOptions): Promise<PairingRecord> {
  const clock = o.clock ?? systemClock;
  if (isOfferExpired(o.offer, clock.now())) {
    return Promise.reject(
      new PairingError('expired', 'this pairing link has expired; run `burrow pair` again'),
    );
  }
  return generateClientKey({ webCrypto: o.webCryptoKey ?? false }).then(async (client) => {
    const key = clientStaticKey(client.stored, encodeBase64url(client.publicKey));
    // Message 1's ss: DH with the Burrow's static, computed in WebCrypto before the synchronous handshake.
    if (key instanceof WebCryptoStaticKey) await key.prepare(o.offer.burrowPublicKey);
    return pairOver(o, clock, client, key);
  });
}

function pairOver(
  o: PairOptions,
  clock: Clock,
  client: NewClientKey,
  key: ReturnType<typeof clientStaticKey>,
): Promise<PairingRecord> {
  const hs = startHandshake({
    mode: 'pair',
    burrowId: o.offer.burrowId,
    burrowPublicKey: o.offer.burrowPublicKey,
    clientPrivateKey: key,
    psk: o.offer.secret,
  });
  return new Promise<PairingRecord>((resolve, reject) => {
    // The link's pairing ticket: while `burrow pair` is open the Burrow has published its hash, and it gets this
    // socket past others flooding the relay with sockets for this Burrow (issue 24.5, RL-TICKET-5).
    const ticket = pairingTicket(o.offer.secret, decodeBase64url(o.offer.burrowId));
    const socket = o.socketFactory(
      clientSocketUrl(o.offer.relayUrl, o.offer.burrowId),
      clientSubprotocols(encodeBase64url(ticket)),
    );
    socket.binaryType = 'arraybuffer';
    let channel: SecureChannel<NoiseTransport> | null = null;
    let settled = false;
    let timer = clock.setTimeout(
      () => fail(new PairingError('timeout', 'your computer did not answer')),
      PAIR_HANDSHAKE_TIMEOUT_MS,
    );
    const fail = (e: PairingError) => {
      if (settled) return;
      settled = true;
      clock.clearTimeout(timer);
      socket.onclose = null;
      socket.close(1000);
      reject(e);
    };
    socket.onopen = () => socket.send(hs.message1);
    socket.onerror = () => {};
    socket.onclose = (ev) => {
      const words = CLOSE_MESSAGES[ev.code as CloseCode] ?? 'the connection dropped';
      const reason: PairingErrorReason =
        ev.code === 4104
          ? 'unavailable'
          : ev.code === 4108
            ? 'rejected'
            : ev.code >= 4100
              ? 'protocol'
              : 'network';
      fail(new PairingError(reason, words));
    };
    /** While a WebCrypto key computes message 2's se (client-static.ts). */
    let finishing = false;
    socket.onmessage = (ev) => {
      const bytes = frameBytes(ev.data);
      if (!bytes || settled) return;
      // The Burrow says nothing between message 2 and our pair-request (R-PAIR-1): this is not from it.
      if (finishing) return fail(new PairingError('protocol', 'secure handshake failed'));
      if (!channel && key instanceof WebCryptoStaticKey) {
        finishing = true;
        void Promise.resolve()
          .then(() => key.prepare(ikpsk2ResponderEphemeral(bytes)))
          .then(
            () => {
              finishing = false;
              onFrame(bytes);
            },
            () => fail(new PairingError('protocol', 'secure handshake failed')),
          );
        return;
      }
      onFrame(bytes);
    };
    const onFrame = (bytes: Uint8Array) => {
      if (settled) return;
      try {
        if (!channel) {
          channel = hs.finish(bytes);
          const request = encodePairClientMessage({
            type: 'pair-request',
            label: o.label,
            platform: o.platform,
            userAgent: o.userAgent,
          });
          for (const ct of channel.seal(request)) socket.send(ct);
          return;
        }
        const frame = channel.open(bytes);
        if (!frame) return;
        const m = decodePairBurrowMessage(frame);
        if (m.type === 'pair-pending') {
          o.onCode(confirmationCode(channel.transport.handshakeHash));
          clock.clearTimeout(timer);
          timer = clock.setTimeout(
            () => fail(new PairingError('timeout', 'nobody confirmed on the computer')),
            PAIR_DECISION_TIMEOUT_MS,
          );
        } else if (m.type === 'pair-rejected') {
          fail(
            new PairingError(
              'rejected',
              m.reason === 'timeout'
                ? 'nobody confirmed on the computer in time'
                : 'pairing was declined on the computer',
            ),
          );
        } else if (m.type === 'error') {
          fail(new PairingError('protocol', m.message));
        } else {
          const record: PairingRecord = {
            burrowId: m.burrowId,
            burrowName: m.burrowName,
            relayUrl: m.relayUrl,
            burrowPublicKey: encodeBase64url(o.offer.burrowPublicKey),
            clientPrivateKey: client.stored,
            clientPublicKey: encodeBase64url(client.publicKey),
            psk: m.psk,
            deviceId: m.deviceId,
            deliveryId: m.deliveryId,
            deliveryToken: m.deliveryToken,
            pairedAt: clock.now(),
            lastHandshakeAt: 0,
          };
          if (m.burrowId !== o.offer.burrowId)
            return fail(new PairingError('protocol', 'answer came from another computer'));
          settled = true;
          clock.clearTimeout(timer);
          socket.onclose = null;
          socket.close(1000);
          o.storage.put(record).then(() => resolve(record), reject);
        }
      } catch (e) {
        if (e instanceof NoiseError || e instanceof ProtocolError)
          return fail(new PairingError('protocol', 'secure handshake failed'));
        fail(new PairingError('protocol', (e as Error).message));
      }
    };
  });
}
