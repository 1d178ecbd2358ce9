/** The attention engine's I/O shell inside the daemon (see README.md). */
export {
  AttentionHost,
  type AttentionHostOptions,
  type AwaitOptions,
  type PushDueHook,
} from './attention-host.js';
export { PERSIST_DEBOUNCE_MS } from './attention-persistence.js';
export { ATTENTION_FILE_NAME, ATTENTION_SETTINGS_FILE_NAME } from './attention-store.js';
export { classifyInput, MAX_CLASSIFIED_INPUT_BYTES } from './input-kind.js';
export { MAX_PENDING_AWAITS } from './pending-awaits.js';
export { publicNotification, QUIET_PUBLIC_STATE, toPublicState } from './public-state.js';
