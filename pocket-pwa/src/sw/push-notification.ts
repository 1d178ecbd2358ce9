/**
 * What the service worker shows for one push (DESIGN §4.4 step 5): open the sealed envelope with the keys of
 * the pairing its cleartext header names, refuse a sequence number already seen (kept per pairing in
 * IndexedDB, so a worker restart does not reopen the window), decode the notification JSON, re-bound its text
 * with the same `boundedPushText` the Burrow used (alert-spec "Push notifications": the render sink bounds
 * again), and tag the notification with the session id so a newer ring replaces the older one.
 *
 * It never throws and always yields exactly one notification: iOS and Chrome penalise a push that shows none
 * (userVisibleOnly), so any failure — no data, another phone's envelope, tampering, replay, bad JSON, a broken
 * store — becomes the generic "Burrow needs you". Why it failed goes to the returned `failure` (for a
 * console line without secrets), never into the notification text.
 */
import {
  boundedPushText,
  openPushEnvelope,
  PushEnvelopeError,
  pushEnvelopeSenderEphemeral,
  readPushEnvelopeHeader,
  toPushText,
} from '@burrow/crypto';
import {
  decodeBase64url,
  decodePushMessage,
  decodePushNotification,
  encodeBase64url,
} from '@burrow/protocol';
import { routePath } from '../app/route.js';
import { clientStaticKey, WebCryptoStaticKey } from '../core/client-static.js';
import type { PairingRecord } from '../core/pairing-storage.js';
import type { PushSeqStore } from '../store/push-store.js';

export const GENERIC_TITLE = 'Burrow needs you';
export const GENERIC_BODY = 'Open Pocket to see what is waiting.';
/** One tag for every generic notification, so failures never pile up. */
export const GENERIC_TAG = 'burrow-generic';

export interface NotificationSpec {
  readonly title: string;
  readonly options: {
    readonly body: string;
    readonly tag: string;
    /** Alert again when a newer ring replaces the notification with the same tag. */
    readonly renotify: boolean;
    readonly timestamp?: number;
    readonly icon: string;
    readonly badge: string;
    /** Where a click lands: a path of this origin (see notification-click.ts). */
    readonly data: { readonly path: string };
  };
  /** Why the generic notification was shown; null when the envelope opened. Contains no secret. */
  readonly failure: string | null;
}

export interface PushOpenDeps {
  /** The phone's pairings (IndexedDB in the worker). */
  listPairings(): Promise<readonly PairingRecord[]>;
  readonly seq: PushSeqStore;
}

const ICON = '/icons/icon-192.png';

export function genericNotification(failure: string): NotificationSpec {
  return {
    title: GENERIC_TITLE,
    options: {
      body: GENERIC_BODY,
      tag: GENERIC_TAG,
      renotify: true,
      icon: ICON,
      badge: ICON,
      data: { path: '/' },
    },
    failure,
  };
}

/** The notification for a push whose data is `data` (null when the push carried none). Never throws. */
export async function notificationForPush(
  data: Uint8Array | null,
  deps: PushOpenDeps,
): Promise<NotificationSpec> {
  try {
    return await open(data, deps);
  } catch (error) {
    return genericNotification(describe(error));
  }
}

/**
 * The push handler's whole job: show exactly one notification for `data`. If showing the opened one fails
 * (e.g. the browser rejects its options), the generic one is shown instead; only a failure to show even that
 * rejects. Resolves with what was shown.
 */
/**
 * How long opening an envelope may take before the generic notification is shown instead. Opening reads
 * IndexedDB, which can stall (a page holding an old database version open blocks the upgrade); a push that
 * shows nothing is penalised by the browser, so a stall must never mean silence.
 */
export const PUSH_OPEN_DEADLINE_MS = 4_000;

export async function showPushNotification(
  data: Uint8Array | null,
  deps: PushOpenDeps,
  show: (title: string, options: NotificationSpec['options']) => Promise<void>,
  deadlineMs = PUSH_OPEN_DEADLINE_MS,
): Promise<NotificationSpec> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<NotificationSpec>((resolve) => {
    timer = setTimeout(() => resolve(genericNotification('opening the envelope took too long')), deadlineMs);
  });
  const spec = await Promise.race([notificationForPush(data, deps), late]).finally(() => clearTimeout(timer));
  try {
    await show(spec.title, spec.options);
    return spec;
  } catch (error) {
    if (spec.failure !== null) throw error;
    const generic = genericNotification(`showNotification refused: ${describe(error)}`);
    await show(generic.title, generic.options);
    return generic;
  }
}

async function open(data: Uint8Array | null, deps: PushOpenDeps): Promise<NotificationSpec> {
  if (data === null || data.length === 0) return genericNotification('push without data');
  // RL-PUSH-TEXT: the push message is the envelope's base64url text.
  const envelope = decodePushMessage(data);
  const header = readPushEnvelopeHeader(envelope);
  const burrowId = encodeBase64url(header.burrowId);
  const pairing = (await deps.listPairings()).find(
    (p) => p.burrowId === burrowId && p.deliveryId === header.deliveryId,
  );
  if (pairing === undefined) return genericNotification('no pairing for this envelope');
  const lastSeenSeq = await deps.seq.lastSeq(burrowId);
  const senderStaticKey = decodeBase64url(pairing.burrowPublicKey);
  const recipient = clientStaticKey(pairing.clientPrivateKey, pairing.clientPublicKey);
  if (recipient instanceof WebCryptoStaticKey) {
    // Kpsk0's es and ss, computed in WebCrypto before the synchronous open (client-static.ts).
    await recipient.prepare(senderStaticKey);
    await recipient.prepare(pushEnvelopeSenderEphemeral(envelope));
  }
  const opened = openPushEnvelope(envelope, {
    burrowId: header.burrowId,
    deliveryId: pairing.deliveryId,
    recipientStaticKeyPair: recipient,
    senderStaticKey,
    psk: decodeBase64url(pairing.psk),
    lastSeenSeq,
  });
  const notification = decodePushNotification(opened.payload);
  // Checked and stored in one transaction: two copies of one push racing in the worker show one ring.
  if (!(await deps.seq.advanceSeq(burrowId, opened.seq))) return genericNotification('replayed envelope');
  const body = boundedPushText(notification.body);
  return {
    title: toPushText(notification.label),
    options: {
      body: body === '' ? GENERIC_BODY : body,
      tag: notification.sessionId,
      renotify: true,
      timestamp: notification.ts,
      icon: ICON,
      badge: ICON,
      data: { path: routePath({ screen: 'terminal', burrowId, sessionId: notification.sessionId }) },
    },
    failure: null,
  };
}

function describe(error: unknown): string {
  if (error instanceof PushEnvelopeError) return `envelope ${error.code}`;
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 200);
  return 'unknown failure';
}
