// The phone's client core (see README.md in this directory for the API the UI uses).
export { type BackoffPolicy, backoffDelayMs, POCKET_BACKOFF } from './backoff.js';
export {
  BurrowConnection,
  type BurrowConnectionOptions,
  CONNECT_TIMEOUT_MS,
  type ConnectionEvent,
  type ConnectionStatus,
  type KeepalivePolicy,
  POCKET_KEEPALIVE,
  type SizeAuthorityInfo,
  type Snapshot,
  statusText,
  type TerminalCallbacks,
  type TerminalHandle,
} from './burrow-connection.js';
export {
  clientStaticKey,
  generateClientKey,
  isWebCryptoKey,
  MAX_PREPARED_DH,
  type NewClientKey,
  rawClientPrivateKey,
  type StoredClientKey,
  type WebCryptoPrivateKey,
  WebCryptoStaticKey,
} from './client-static.js';
export { type Clock, systemClock } from './clock.js';
export {
  DIRECT_CHANNEL_LABEL,
  type DirectCarrierPort,
  DirectLink,
  type DirectLinkOptions,
  type DirectState,
  type DirectTiming,
  POCKET_DIRECT,
} from './direct/direct-link.js';
export { directStateText, pathText } from './direct/path-text.js';
export {
  engineRtc,
  type RtcDataChannelLike,
  type RtcFactory,
  type RtcIceServer,
  type RtcPeerConnectionLike,
} from './direct/rtc.js';
export {
  applyDirectoryMessage,
  type Directory,
  type DirectoryMessage,
  EMPTY_DIRECTORY,
  MAX_DIRECTORY_ENTRIES,
  sortedSessions,
} from './directory-state.js';
export { type CursorResult, OutputCursor } from './output-cursor.js';
export {
  PAIR_DECISION_TIMEOUT_MS,
  PAIR_HANDSHAKE_TIMEOUT_MS,
  PairingError,
  type PairingErrorReason,
  type PairOptions,
  pairWithOffer,
} from './pair-flow.js';
export {
  encodePairingLink,
  encodePairingPayload,
  isOfferExpired,
  isRelayUrl,
  PAIRING_LINK_MAX_RELAY_URL_BYTES,
  PairingLinkError,
  type PairingLinkErrorReason,
  type PairingOffer,
  parsePairingLink,
} from './pairing-link.js';
export {
  MAX_PAIRINGS,
  MemoryPairingStorage,
  type PairingRecord,
  type PairingStorage,
} from './pairing-storage.js';
export { clientSocketUrl, SecureChannel, startHandshake } from './secure-channel.js';
export {
  frameBytes,
  SOCKET_OPEN,
  type SocketCloseEvent,
  type SocketFactory,
  type SocketLike,
  type SocketMessageEvent,
} from './socket.js';
