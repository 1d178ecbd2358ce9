/**
 * The messages of a `pair`-mode Noise session (DESIGN §3, §4.2 "Pairing"). [SPEC: R-PAIR-*]
 *
 * The phone speaks first (its first transport message is the IKpsk2 key confirmation); the Burrow answers
 * `pair-pending` at once, then `pair-accepted` or `pair-rejected` when its owner has compared the short code.
 * The device's credentials travel only here: a phone keeps them in the pairing record it stores, so losing
 * them means losing the pairing, and re-pairing is the recovery (R-DEV-2).
 */
import * as v from 'valibot';
import { ErrorCode } from '../error-codes.js';
import { base64urlBytes, displayText, relayUrl, sessionId } from './fields.js';
import { MAX_DEVICE_INFO_CHARS, MAX_ERROR_TEXT_CHARS, MAX_LABEL_CHARS, MAX_URL_CHARS } from './limits.js';

const msg = <T extends string, E extends v.ObjectEntries>(type: T, entries: E) =>
  v.strictObject({ type: v.literal(type), ...entries });

export const pairClientSchema = v.variant('type', [
  msg('pair-request', {
    /** What the owner will see in `burrow devices`, e.g. "Ana's iPhone". */
    label: displayText(MAX_LABEL_CHARS, 1),
    platform: displayText(MAX_DEVICE_INFO_CHARS),
    userAgent: displayText(MAX_DEVICE_INFO_CHARS),
  }),
]);
export type PairClientMessage = v.InferOutput<typeof pairClientSchema>;

export const PAIR_REJECT_REASONS = ['declined', 'timeout', 'limit'] as const;

export const pairBurrowSchema = v.variant('type', [
  msg('pair-pending', {}),
  msg('pair-accepted', {
    deviceId: sessionId,
    /** The device psk: 32 random bytes, mixed into every later `connect` handshake. */
    psk: base64urlBytes(32),
    deliveryId: base64urlBytes(16),
    /** Proves to the relay that this phone may put a push subscription under `deliveryId`. */
    deliveryToken: base64urlBytes(32),
    burrowId: base64urlBytes(16),
    burrowName: displayText(MAX_LABEL_CHARS, 1),
    relayUrl: relayUrl(MAX_URL_CHARS),
  }),
  msg('pair-rejected', { reason: v.picklist(PAIR_REJECT_REASONS) }),
  msg('error', {
    rid: v.null(),
    code: v.picklist(Object.values(ErrorCode) as [ErrorCode, ...ErrorCode[]]),
    message: displayText(MAX_ERROR_TEXT_CHARS),
  }),
]);
export type PairBurrowMessage = v.InferOutput<typeof pairBurrowSchema>;
