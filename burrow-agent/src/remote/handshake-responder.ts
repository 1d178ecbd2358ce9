/**
 * The Burrow's side of message 1 → message 2 (DESIGN §4.2). Pure apart from the key lookups it is given: it
 * decides the mode by trial (connect first, then pair if an offer is open — the prologue binds the mode, so a
 * message 1 made for the other mode fails to decrypt), and returns either message 2 and the transport, or the
 * close code from protocol's table. At most two decryption attempts per message 1: bounded work.
 *
 * A message 1 that decrypts in neither mode is told apart only by its length, which is public (no oracle): a
 * pair-mode message 1 (empty payload) with no offer open is most likely a used or expired link; anything else —
 * a connect message 1 altered on the way (issue 8, a relay that flips bits), or made for another Burrow key —
 * is a failed handshake, so a connecting phone is not told about pairing links.
 */
import {
  type Aead,
  burrowPrologue,
  checkHandshakeTimestamp,
  decodeHandshakeTimestamp,
  HANDSHAKE_TIMESTAMP_BYTES,
  type KeyPair,
  NoiseError,
  type NoiseTransport,
  responderIKpsk2,
} from '@burrow/crypto';
import { CloseCode, decodeBase64url, PROTOCOL_VERSION } from '@burrow/protocol';
import type { DeviceRecord } from '../devices/device-registry.js';
import type { PairingOffer } from '../pairing/pairing-offer.js';

/** IK message 1 (Noise rev 34 §7.5 `e, es, s, ss`): e (32) + encrypted s (32 + 16) + the payload's tag (16). */
const IK_MESSAGE1_OVERHEAD_BYTES = 32 + 32 + 16 + 16;
/** A pair-mode message 1: no payload. */
export const PAIR_MESSAGE1_BYTES = IK_MESSAGE1_OVERHEAD_BYTES;
/** A connect-mode message 1: the anti-replay timestamp as payload. */
export const CONNECT_MESSAGE1_BYTES = IK_MESSAGE1_OVERHEAD_BYTES + HANDSHAKE_TIMESTAMP_BYTES;

export interface ResponderContext {
  readonly burrowId: string;
  readonly staticKeyPair: KeyPair;
  readonly now: number;
  readonly findDevice: (clientPublicKey: Uint8Array) => DeviceRecord | undefined;
  readonly lastHandshakeAt: (deviceId: string) => number;
  readonly openOffer: PairingOffer | null;
  readonly aead?: Aead;
}

export type ResponderOutcome =
  | {
      readonly kind: 'connect';
      readonly message2: Uint8Array;
      readonly transport: NoiseTransport;
      readonly device: DeviceRecord;
      readonly timestamp: number;
    }
  | {
      readonly kind: 'pair';
      readonly message2: Uint8Array;
      readonly transport: NoiseTransport;
      readonly offer: PairingOffer;
      readonly clientPublicKey: Uint8Array;
    }
  | { readonly kind: 'reject'; readonly code: CloseCode; readonly why: string };

function responder(ctx: ResponderContext, mode: 'pair' | 'connect', psk?: Uint8Array) {
  return responderIKpsk2({
    prologue: burrowPrologue({
      mode,
      protocolVersion: PROTOCOL_VERSION,
      burrowId: decodeBase64url(ctx.burrowId),
    }),
    staticKeyPair: ctx.staticKeyPair,
    ...(psk ? { psk } : {}),
    ...(ctx.aead ? { aead: ctx.aead } : {}),
  });
}

function tryConnect(ctx: ResponderContext, message1: Uint8Array): ResponderOutcome | null {
  const hs = responder(ctx, 'connect');
  let payload: Uint8Array;
  try {
    payload = hs.readMessage(message1);
  } catch (error) {
    if (error instanceof NoiseError) return null;
    throw error;
  }
  const key = hs.remoteStatic;
  const device = key ? ctx.findDevice(key) : undefined;
  if (!device)
    return { kind: 'reject', code: CloseCode.UNKNOWN_DEVICE, why: 'unknown or revoked device key' };
  let timestamp: number;
  try {
    timestamp = decodeHandshakeTimestamp(payload);
  } catch (error) {
    if (error instanceof NoiseError)
      return { kind: 'reject', code: CloseCode.HANDSHAKE_FAILED, why: 'bad timestamp payload' };
    throw error;
  }
  const verdict = checkHandshakeTimestamp(timestamp, ctx.lastHandshakeAt(device.deviceId), ctx.now);
  if (verdict !== 'fresh')
    return { kind: 'reject', code: CloseCode.STALE_HANDSHAKE, why: `timestamp ${verdict}` };
  hs.setPsk(device.psk);
  const message2 = hs.writeMessage();
  return { kind: 'connect', message2, transport: hs.split(), device, timestamp };
}

function tryPair(ctx: ResponderContext, message1: Uint8Array): ResponderOutcome | null {
  const offer = ctx.openOffer;
  if (!offer) return null;
  const hs = responder(ctx, 'pair', offer.secret);
  try {
    const payload = hs.readMessage(message1);
    if (payload.length !== 0)
      return { kind: 'reject', code: CloseCode.HANDSHAKE_FAILED, why: 'pair message 1 has a payload' };
  } catch (error) {
    if (error instanceof NoiseError) return null;
    throw error;
  }
  const clientPublicKey = hs.remoteStatic!;
  const message2 = hs.writeMessage();
  return { kind: 'pair', message2, transport: hs.split(), offer, clientPublicKey };
}

export function respondToMessage1(ctx: ResponderContext, message1: Uint8Array): ResponderOutcome {
  const outcome = tryConnect(ctx, message1) ?? tryPair(ctx, message1);
  if (outcome) return outcome;
  if (ctx.openOffer === null && message1.length === PAIR_MESSAGE1_BYTES) {
    // Most likely a pairing link that was used or has expired (or one made for another Burrow key).
    return {
      kind: 'reject',
      code: CloseCode.PAIRING_UNAVAILABLE,
      why: 'pair message 1 did not decrypt (no pairing offer open)',
    };
  }
  return {
    kind: 'reject',
    code: CloseCode.HANDSHAKE_FAILED,
    why: `message 1 (${message1.length} bytes) fits neither mode`,
  };
}
