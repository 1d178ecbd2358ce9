/** The attention engine: what decides when a session needs its owner (DESIGN §5, alert-spec). */
export { ALERT_VERBS, type AlertVerb, FOCUS_IN, FOCUS_OUT, type SessionStatus } from './alert-manager.js';
export {
  AWAIT_ID_PATTERN,
  type AwaitCause,
  type AwaitRequest,
  type AwaitUntil,
  type CommandExit,
  MAX_AWAITS_PER_SESSION,
} from './awaits.js';
export { type Clock, ManualClock } from './clock.js';
export type { PushDue } from './delivery.js';
export { MAX_VIEWERS, type Presence, type PresenceReport } from './engagement.js';
export {
  type AttentionEffect,
  AttentionEngine,
  type AttentionEngineOptions,
  type InputKind,
  MAX_SESSIONS,
  type SessionAlertView,
} from './engine.js';
export { createHarness, type Harness } from './harness.js';
export type { ActivityNotification, NotificationSource } from './notification.js';
export { type PersistedAlert, restoreAlert } from './persistence.js';
export type { QuiesceStatus } from './quiesce-detector.js';
export {
  ALERT_SETTINGS_RANGES,
  type AlertSettings,
  DEFAULT_ALERT_SETTINGS,
  normalizeAlertSettings,
} from './settings.js';
export { ALERT_TIMING, AWAIT_GRACE_MS, MAX_AWAIT_TIMEOUT_MS, SETTLE_MS } from './timing.js';
export { type AlertUnion, computeUnion } from './union.js';
export { commandWatchKey, MAX_WATCH_KEY_CHARS } from './watch-key.js';
export {
  addWatchRule,
  DEFAULT_WATCHED_COMMANDS,
  isValidWatchRule,
  MAX_WATCH_RULES,
  normalizeWatchRules,
  removeWatchRule,
  watchRuleFor,
} from './watch-rules.js';
