/**
 * What the remote API needs beyond sessions and attention for the phone's settings screen (protocol R-B-PUSH,
 * R-SET): push status and test for this phone, alarm settings and WATCHING rules. The daemon wires the push
 * dispatch and the attention host in; the remote side imports neither.
 */
import type { AlertSettings, PushTestOutcome } from '@burrow/protocol';

export interface RemoteSettingsPort {
  /** `pushEnabled`, and whether the relay holds a subscription for this delivery (null: could not ask). */
  pushStatus(deliveryId: string): Promise<{ pushEnabled: boolean; subscribed: boolean | null }>;
  /** One test push to every active device, as `burrow push test`. */
  pushTest(): Promise<{ outcome: PushTestOutcome; targets: number; delivered: number }>;
  settings(): AlertSettings;
  /** Clamped and persisted; returns what is now in force. */
  updateSettings(patch: Partial<AlertSettings>): AlertSettings;
  watchRules(): readonly string[];
  /** Replaces the list (RangeError on an invalid rule); returns what is now in force. */
  setWatchRules(rules: readonly string[]): readonly string[];
}
