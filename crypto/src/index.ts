// Public API of @burrow/crypto. One module per construction; see each file for the spec sections it follows.
export {
  AEAD_KEY_BYTES,
  AEAD_NONCE_BYTES,
  AEAD_TAG_BYTES,
  type Aead,
  assertAeadArguments,
  nobleAead,
} from './aead.js';
export { HASH_BLOCK_BYTES, HASH_BYTES, hash, hkdf, hmacHash } from './blake2s-hkdf.js';
export {
  BURROW_ID_BYTES,
  BURROW_PROLOGUE_LABEL,
  burrowPrologue,
  type HandshakeMode,
  type PrologueParams,
} from './burrow-prologue.js';
export { concatBytes, constantTimeEqual } from './bytes.js';
export { CipherState, encodeNonce, NOISE_MAX_NONCE } from './cipher-state.js';
export { CONFIRMATION_CODE_DIGITS, confirmationCode } from './confirmation-code.js';
export {
  type HandshakePattern,
  handshakePattern,
  NOISE_SUITE,
  type PreMessageToken,
  patternFromProtocolName,
  type Token,
} from './handshake-pattern.js';
export { type HandshakeOptions, HandshakeState } from './handshake-state.js';
export {
  checkHandshakeTimestamp,
  decodeHandshakeTimestamp,
  encodeHandshakeTimestamp,
  HANDSHAKE_TIMESTAMP_BYTES,
  HANDSHAKE_TIMESTAMP_MAX_AHEAD_MS,
  type HandshakeTimestampVerdict,
  nextHandshakeTimestamp,
} from './handshake-timestamp.js';
export {
  BURROW_NOISE_PROTOCOL,
  type InitiatorIKpsk2Params,
  ikpsk2ResponderEphemeral,
  initiatorIKpsk2,
  type ResponderIKpsk2Params,
  responderIKpsk2,
} from './ikpsk2.js';
export { NoiseError, type NoiseErrorCode } from './noise-error.js';
export {
  type OpenedPushEnvelope,
  type OpenPushEnvelopeParams,
  openPushEnvelope,
  PUSH_DELIVERY_ID_MAX_BYTES,
  PUSH_ENVELOPE_MAX_BYTES,
  PUSH_ENVELOPE_PROTOCOL,
  PUSH_ENVELOPE_VERSION,
  PUSH_PADDED_SIZES,
  PUSH_PAYLOAD_MAX_BYTES,
  PUSH_SENDER_HINT_BYTES,
  PushEnvelopeError,
  type PushEnvelopeErrorCode,
  type PushEnvelopeHeader,
  pushEnvelopeSenderEphemeral,
  readPushEnvelopeHeader,
  type SealPushEnvelopeParams,
  sealPushEnvelope,
} from './push-envelope.js';
export { RANDOM_BYTES_MAX, randomBytes } from './random.js';
export {
  PAIRING_TICKET_LABEL,
  pairingTicket,
  RELAY_TICKET_BYTES,
  RELAY_TICKET_EPOCH_MS,
  RELAY_TICKET_LABEL,
  relayTicket,
  relayTicketEpoch,
} from './relay-ticket.js';
export { SymmetricState } from './symmetric-state.js';
export {
  boundedPushText,
  PUSH_TEXT_FALLBACK,
  PUSH_TEXT_MAX_CODE_POINTS,
  sanitizeText,
  TEXT_ELLIPSIS,
  TEXT_MAX_CODE_POINTS_LIMIT,
  toPushText,
} from './text.js';
export { NOISE_MAX_MESSAGE, NOISE_MAX_PLAINTEXT, NoiseTransport } from './transport.js';
export {
  dh,
  type ExternalStaticKey,
  generateKeyPair,
  isExternalStaticKey,
  type KeyPair,
  keyPairFromPrivate,
  publicKeyFromPrivate,
  staticDh,
  X25519_KEY_BYTES,
} from './x25519.js';
