// Remote API v1 (inside Noise), binary framing and fragmentation. The rules cited in [SPEC: …] are in
// protocol/SPEC.md.
import type { BurrowMessage } from './burrow-messages.js';
import type { ClientMessage } from './client-messages.js';

export type {
  BurrowControlMessage,
  BurrowMessage,
  BurrowMessageType,
  OutputMessage,
  PushTestOutcome,
  SizeChangeCause,
  SizeHolder,
} from './burrow-messages.js';
export {
  PUSH_TEST_OUTCOMES,
  SIZE_CHANGE_CAUSES,
  SIZE_HOLDERS,
  TEXT_BODY_TYPES,
} from './burrow-messages.js';
export type {
  ClientControlMessage,
  ClientMessage,
  ClientMessageType,
  InputMessage,
  PresenceState,
  TodoAction,
  ViewerKind,
} from './client-messages.js';
export { PRESENCE_STATES, TODO_ACTIONS, VIEWER_KINDS } from './client-messages.js';
export {
  decodeBurrowMessage,
  decodeClientMessage,
  decodePairBurrowMessage,
  decodePairClientMessage,
  encodeBurrowMessage,
  encodeClientMessage,
  encodePairBurrowMessage,
  encodePairClientMessage,
} from './codec.js';
export { type ErrorMessage, errorReply } from './error-reply.js';
export { ProtocolError } from './errors.js';
export { isSessionId, SESSION_ID_PATTERN } from './fields.js';
export {
  FRAGMENT_HEADER_BYTES,
  Fragmenter,
  fragment,
  MAX_FRAGMENT_CHUNK_BYTES,
  Reassembler,
} from './fragment.js';
export { FrameKind, INPUT_FLAG_REPLY } from './frame.js';
export * from './limits.js';
export { OutputCursor } from './output-cursor.js';
export type { PairBurrowMessage, PairClientMessage } from './pairing-messages.js';
export { PAIR_REJECT_REASONS } from './pairing-messages.js';
export {
  type BuildFile,
  buildFilesSchema,
  buildListing,
  decodePocketBuildManifest,
  encodePocketBuildManifest,
  isBuildPath,
  POCKET_BUILD_MANIFEST_VERSION,
  type PocketBuildManifest,
  sortBuildFiles,
} from './pocket-build.js';
export { SCREEN_UNICODE_VERSION } from './screen-widths.js';
export { type MessageCipher, SecureChannel } from './secure-channel.js';
export type {
  Notification,
  NotificationSource,
  Resumable,
  Resumed,
  SessionEntry,
  SessionStatus,
} from './session-entry.js';
export {
  NOTIFICATION_SOURCES,
  notificationSchema,
  resumableSchema,
  resumedSchema,
  SESSION_STATUSES,
  sessionEntrySchema,
} from './session-entry.js';
export type { AlertSettings, AlertSettingsPatch } from './settings.js';
export { alertSettingsPatchSchema, alertSettingsSchema, watchRulesSchema } from './settings.js';
export { burrowStream, clientStream, MessageStream, pairBurrowStream, pairClientStream } from './stream.js';

/** One message of a direction by its type, e.g. `ClientMessageOf<'attach'>`. */
export type ClientMessageOf<T extends ClientMessage['type']> = Extract<ClientMessage, { type: T }>;
export type BurrowMessageOf<T extends BurrowMessage['type']> = Extract<BurrowMessage, { type: T }>;
export {
  candidateAddress,
  checkDirectSdp,
  checkIceCandidate,
  type DirectSdpSummary,
  isIceMid,
} from './direct-sdp.js';
export {
  DEFAULT_NETWORK_POLICY,
  DIRECT_MODES,
  type DirectMode,
  type IceServer,
  iceServerSchema,
  isIceUrl,
  type NetworkPolicy,
  networkPolicySchema,
  parseNetworkPolicy,
} from './network-policy.js';
export {
  type CarrierClock,
  type CarrierEvents,
  type CarrierLinks,
  PATH_CARRIER,
  PathCarrier,
  type PathCarrierPolicy,
  type PathCounters,
  type PathName,
} from './path-carrier.js';
export {
  type DirectFrame,
  decodeDirectFrame,
  decodeRejoin,
  decodeRelayCarrierFrame,
  encodeDirectAck,
  encodeDirectData,
  encodeDirectStart,
  encodeRejoin,
  encodeRelayResume,
  isRelayCarrierFrame,
  MIN_NOISE_MESSAGE_BYTES,
  RELAY_REJOINED,
} from './path-frames.js';
