import { AEAD_TAG_BYTES, type Aead } from './aead.js';
import { hash } from './blake2s-hkdf.js';
import { BURROW_ID_BYTES } from './burrow-prologue.js';
import { assertBytes, concatBytes, constantTimeEqual, utf8 } from './bytes.js';
import { HandshakeState } from './handshake-state.js';
import { NoiseError } from './noise-error.js';
import { assertPsk } from './symmetric-state.js';
import { type ExternalStaticKey, isExternalStaticKey, type KeyPair, X25519_KEY_BYTES } from './x25519.js';

/**
 * Sealed push envelopes (DESIGN §4.4): the Burrow seals each notification for one phone; the relay and the
 * push service see only ciphertext, and only the paired Burrow can produce one the phone accepts.
 *
 * Pattern: `Noise_Kpsk0_25519_ChaChaPoly_BLAKE2s` (rev 34 §7.4 K with §9 psk0), initiator = Burrow (s =
 * Burrow static, rs = the phone's Client static), responder = phone, psk = the device psk. Why Kpsk0 and
 * not plain K: with K alone, whoever steals the phone's static private key can forge envelopes "from" the
 * Burrow (key-compromise impersonation: es and ss are both computable from the recipient's key); the psk
 * also binds the envelope to the current pairing (re-pairing rotates it) and keeps a symmetric secret in the
 * key schedule should X25519 ever fall. Both sides already hold the psk, so it costs nothing.
 *
 * Wire format (the cleartext header is also the Noise prologue, so it is authenticated):
 *   version (1) ‖ burrowId (16) ‖ deliveryId length (1) ‖ deliveryId (UTF-8, 1..64) ‖ senderHint (8)
 *   ‖ Noise message: e (32) ‖ ChaChaPoly(plaintext) (bucket + 16)
 * burrowId and deliveryId are in the clear because the service worker needs them to pick the pairing whose
 * keys open the envelope (a phone may pair several Burrows); the relay knows both anyway. senderHint =
 * BLAKE2s(label ‖ Burrow static)[0..8] tells "sealed by another key" apart from "tampered" — diagnostics
 * only; the AEAD is what authenticates.
 *
 * Plaintext: seq (u64 big-endian, per device, strictly increasing) ‖ payload length (u16 big-endian) ‖
 * payload ‖ zero padding up to the smallest of PUSH_PADDED_SIZES that fits. The payload is opaque bytes
 * here; the notification JSON inside it belongs to the protocol package.
 */
export const PUSH_ENVELOPE_PROTOCOL = 'Noise_Kpsk0_25519_ChaChaPoly_BLAKE2s';
export const PUSH_ENVELOPE_VERSION = 1;

/**
 * Largest envelope, bytes. A push message may carry 4096 bytes, minus RFC 8291 overhead (86-byte header +
 * 16-byte tag + 1 delimiter) = 3993 bytes of plaintext; that plaintext is the envelope's base64url TEXT (see
 * `@burrow/protocol` push-message.ts for why), so the envelope itself is at most 3993 × 3/4 = 2994 bytes.
 */
export const PUSH_ENVELOPE_MAX_BYTES = 2994;
export const PUSH_DELIVERY_ID_MAX_BYTES = 64;
export const PUSH_SENDER_HINT_BYTES = 8;
/** Sizes the sealed plaintext is padded to, so the length reveals only a coarse bucket. */
export const PUSH_PADDED_SIZES: readonly number[] = Object.freeze([256, 512, 1024, 2048]);
const PLAINTEXT_HEADER_BYTES = 10;
export const PUSH_PAYLOAD_MAX_BYTES =
  PUSH_PADDED_SIZES[PUSH_PADDED_SIZES.length - 1]! - PLAINTEXT_HEADER_BYTES;

const PROLOGUE_LABEL = 'burrow push envelope';
const SENDER_HINT_LABEL = 'burrow push sender';
const HEADER_FIXED_BYTES = 1 + BURROW_ID_BYTES + 1 + PUSH_SENDER_HINT_BYTES;
/** Smallest possible Noise message: e, then the smallest bucket plus its tag. */
const NOISE_MIN_BYTES = X25519_KEY_BYTES + PUSH_PADDED_SIZES[0]! + AEAD_TAG_BYTES;

export type PushEnvelopeErrorCode =
  | 'malformed'
  | 'unsupported-version'
  | 'misaddressed'
  | 'wrong-sender'
  | 'tampered'
  | 'replayed';

export class PushEnvelopeError extends Error {
  override readonly name = 'PushEnvelopeError';
  constructor(
    readonly code: PushEnvelopeErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface SealPushEnvelopeParams {
  readonly burrowId: Uint8Array;
  readonly deliveryId: string;
  /** The Burrow's static key pair. */
  readonly senderStaticKeyPair: KeyPair;
  /** The phone's Client static public key. */
  readonly recipientStaticKey: Uint8Array;
  readonly psk: Uint8Array;
  /** Per-device sequence number, a safe integer ≥ 1, strictly above the last one sealed for this device. */
  readonly seq: number;
  readonly payload: Uint8Array;
  readonly aead?: Aead;
}

export interface OpenPushEnvelopeParams {
  readonly burrowId: Uint8Array;
  readonly deliveryId: string;
  /** The phone's Client static key pair, or its non-extractable stand-in (`ExternalStaticKey`). */
  readonly recipientStaticKeyPair: KeyPair | ExternalStaticKey;
  /** The Burrow's static public key. */
  readonly senderStaticKey: Uint8Array;
  readonly psk: Uint8Array;
  /** Highest seq accepted so far from this Burrow (0 before the first). */
  readonly lastSeenSeq: number;
  readonly aead?: Aead;
}

export interface OpenedPushEnvelope {
  readonly seq: number;
  readonly payload: Uint8Array;
}

export interface PushEnvelopeHeader {
  readonly version: number;
  readonly burrowId: Uint8Array;
  readonly deliveryId: string;
  readonly senderHint: Uint8Array;
  /** Length of the header, i.e. where the Noise message starts. */
  readonly length: number;
}

export function sealPushEnvelope(params: SealPushEnvelopeParams): Uint8Array {
  const { seq, payload } = params;
  assertSeq('seq', seq, 1);
  assertBytes('payload', payload);
  if (payload.length > PUSH_PAYLOAD_MAX_BYTES) {
    throw new RangeError(`push payload is limited to ${PUSH_PAYLOAD_MAX_BYTES} bytes`);
  }
  assertPsk(params.psk);
  const header = encodeHeader(
    params.burrowId,
    params.deliveryId,
    senderHint(params.senderStaticKeyPair.publicKey),
  );
  const bucket = PUSH_PADDED_SIZES.find((size) => size >= payload.length + PLAINTEXT_HEADER_BYTES)!;
  const plaintext = new Uint8Array(bucket);
  const view = new DataView(plaintext.buffer);
  view.setBigUint64(0, BigInt(seq), false);
  view.setUint16(8, payload.length, false);
  plaintext.set(payload, PLAINTEXT_HEADER_BYTES);
  const sender = new HandshakeState({
    protocolName: PUSH_ENVELOPE_PROTOCOL,
    initiator: true,
    prologue: prologueFor(header),
    staticKeyPair: params.senderStaticKeyPair,
    remoteStaticKey: params.recipientStaticKey,
    psks: [params.psk],
    ...(params.aead ? { aead: params.aead } : {}),
  });
  const envelope = concatBytes(header, sender.writeMessage(plaintext));
  // Holds by construction (largest header + largest bucket + tag = 90 + 32 + 2048 + 16 = 2186); checked so a future edit can't break it.
  if (envelope.length > PUSH_ENVELOPE_MAX_BYTES) throw new RangeError('push envelope exceeds its size limit');
  return envelope;
}

/** Reads the cleartext header, e.g. to pick the pairing whose keys open the envelope. */
export function readPushEnvelopeHeader(envelope: Uint8Array): PushEnvelopeHeader {
  assertBytes('envelope', envelope);
  if (envelope.length > PUSH_ENVELOPE_MAX_BYTES) {
    throw new PushEnvelopeError('malformed', `push envelope exceeds ${PUSH_ENVELOPE_MAX_BYTES} bytes`);
  }
  if (envelope.length < HEADER_FIXED_BYTES)
    throw new PushEnvelopeError('malformed', 'push envelope is too short');
  const version = envelope[0]!;
  if (version !== PUSH_ENVELOPE_VERSION) {
    throw new PushEnvelopeError('unsupported-version', `push envelope version ${version} is not supported`);
  }
  const idLength = envelope[1 + BURROW_ID_BYTES]!;
  const length = HEADER_FIXED_BYTES + idLength;
  if (idLength === 0 || idLength > PUSH_DELIVERY_ID_MAX_BYTES || envelope.length < length + NOISE_MIN_BYTES) {
    throw new PushEnvelopeError('malformed', 'push envelope header is malformed');
  }
  const idStart = 2 + BURROW_ID_BYTES;
  let deliveryId: string;
  try {
    deliveryId = new TextDecoder('utf-8', { fatal: true }).decode(
      envelope.subarray(idStart, idStart + idLength),
    );
  } catch {
    throw new PushEnvelopeError('malformed', 'push envelope deliveryId is not UTF-8');
  }
  return {
    version,
    burrowId: envelope.slice(1, 1 + BURROW_ID_BYTES),
    deliveryId,
    senderHint: envelope.slice(idStart + idLength, length),
    length,
  };
}

/**
 * The sender's ephemeral public key (the Kpsk0 message's leading `e`, in clear): what a recipient whose static
 * key is external must prepare DH(s, e) for, besides DH(s, senderStaticKey), before `openPushEnvelope`.
 */
export function pushEnvelopeSenderEphemeral(envelope: Uint8Array): Uint8Array {
  const header = readPushEnvelopeHeader(envelope);
  return envelope.slice(header.length, header.length + X25519_KEY_BYTES);
}

/**
 * Opens an envelope addressed to this phone. Rejections, in the order they are checked: `malformed` /
 * `unsupported-version` (shape), `misaddressed` (other burrowId or deliveryId), `wrong-sender` (sealed with
 * another static key), `tampered` (authentication failed), `replayed` (seq ≤ lastSeenSeq). The caller stores
 * the returned seq as its new lastSeenSeq.
 */
export function openPushEnvelope(envelope: Uint8Array, params: OpenPushEnvelopeParams): OpenedPushEnvelope {
  assertBytes('burrowId', params.burrowId, BURROW_ID_BYTES);
  encodeDeliveryId(params.deliveryId);
  assertBytes('senderStaticKey', params.senderStaticKey, X25519_KEY_BYTES);
  // Checked up front so a bad key pair is reported as such whatever the envelope says.
  const recipient = params.recipientStaticKeyPair;
  if (recipient === null || typeof recipient !== 'object' || !isExternalStaticKey(recipient)) {
    const privateKey = (recipient as Partial<KeyPair> | null | undefined)?.privateKey;
    assertBytes('recipientStaticKeyPair.privateKey', privateKey, X25519_KEY_BYTES);
  }
  assertBytes('recipientStaticKeyPair.publicKey', params.recipientStaticKeyPair?.publicKey, X25519_KEY_BYTES);
  assertPsk(params.psk);
  assertSeq('lastSeenSeq', params.lastSeenSeq, 0);
  const header = readPushEnvelopeHeader(envelope);
  if (!constantTimeEqual(header.burrowId, params.burrowId) || header.deliveryId !== params.deliveryId) {
    throw new PushEnvelopeError('misaddressed', 'push envelope is addressed to another Burrow or device');
  }
  if (!constantTimeEqual(header.senderHint, senderHint(params.senderStaticKey))) {
    throw new PushEnvelopeError('wrong-sender', 'push envelope was sealed by another sender key');
  }
  const receiver = new HandshakeState({
    protocolName: PUSH_ENVELOPE_PROTOCOL,
    initiator: false,
    prologue: prologueFor(envelope.subarray(0, header.length)),
    staticKeyPair: params.recipientStaticKeyPair,
    remoteStaticKey: params.senderStaticKey,
    psks: [params.psk],
    ...(params.aead ? { aead: params.aead } : {}),
  });
  let plaintext: Uint8Array;
  try {
    plaintext = receiver.readMessage(envelope.subarray(header.length));
  } catch (error) {
    if (error instanceof NoiseError)
      throw new PushEnvelopeError('tampered', 'push envelope failed authentication');
    throw error;
  }
  const { seq, payload } = decodePlaintext(plaintext);
  if (seq <= params.lastSeenSeq)
    throw new PushEnvelopeError('replayed', 'push envelope sequence number was seen');
  return { seq, payload };
}

function decodePlaintext(plaintext: Uint8Array): OpenedPushEnvelope {
  // Authenticated, so only a buggy sender gets here with a bad shape; still never trust it.
  if (!PUSH_PADDED_SIZES.includes(plaintext.length)) {
    throw new PushEnvelopeError('malformed', 'push envelope plaintext is not a padded size');
  }
  const view = new DataView(plaintext.buffer, plaintext.byteOffset, plaintext.length);
  const seq = view.getBigUint64(0, false);
  const length = view.getUint16(8, false);
  const end = PLAINTEXT_HEADER_BYTES + length;
  if (seq < 1n || seq > BigInt(Number.MAX_SAFE_INTEGER) || end > plaintext.length) {
    throw new PushEnvelopeError('malformed', 'push envelope plaintext is malformed');
  }
  for (let i = end; i < plaintext.length; i++) {
    if (plaintext[i] !== 0) throw new PushEnvelopeError('malformed', 'push envelope padding is not zero');
  }
  return { seq: Number(seq), payload: plaintext.slice(PLAINTEXT_HEADER_BYTES, end) };
}

function encodeHeader(burrowId: Uint8Array, deliveryId: string, hint: Uint8Array): Uint8Array {
  assertBytes('burrowId', burrowId, BURROW_ID_BYTES);
  const id = encodeDeliveryId(deliveryId);
  return concatBytes(Uint8Array.of(PUSH_ENVELOPE_VERSION), burrowId, Uint8Array.of(id.length), id, hint);
}

function encodeDeliveryId(deliveryId: string): Uint8Array {
  if (typeof deliveryId !== 'string') throw new TypeError('deliveryId must be a string');
  const bytes = utf8(deliveryId);
  if (bytes.length === 0 || bytes.length > PUSH_DELIVERY_ID_MAX_BYTES) {
    throw new RangeError(`deliveryId must be 1..${PUSH_DELIVERY_ID_MAX_BYTES} UTF-8 bytes`);
  }
  return bytes;
}

function senderHint(senderStaticKey: Uint8Array): Uint8Array {
  assertBytes('senderStaticKey', senderStaticKey, X25519_KEY_BYTES);
  return hash(concatBytes(utf8(SENDER_HINT_LABEL), Uint8Array.of(0), senderStaticKey)).slice(
    0,
    PUSH_SENDER_HINT_BYTES,
  );
}

function prologueFor(header: Uint8Array): Uint8Array {
  return concatBytes(utf8(PROLOGUE_LABEL), Uint8Array.of(0), header);
}

function assertSeq(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min)
    throw new RangeError(`${name} must be a safe integer ≥ ${min}`);
}
