/**
 * This phone's Web Push registration with one paired Burrow's relay (DESIGN §4.1 "Phone, with its
 * deliveryToken: PUT / DELETE its Web Push subscription", §4.4 step 5 "the page re-checks its subscription on
 * every open and re-registers if it changed"). Pure over what it is given: the browser's push manager, fetch,
 * the push registration store and a clock are injected, so every path is tested without a browser.
 *
 * The browser holds ONE subscription per service worker; every Burrow the owner turned push on for registers
 * that same subscription under its own deliveryId. Turning push off for one Burrow deletes only its
 * registration; the subscription itself is dropped when no Burrow wants push any more.
 */
import { decodeBase64url, decodeRelayInfo, encodeBase64url } from '@burrow/protocol';
import type { PairingRecord } from '../core/pairing-storage.js';
import type { PushRegistrationStore } from '../store/push-store.js';

export type PushState =
  /** No Web Push here; on iOS `why` says what the owner can do (shell/ios.ts). */
  | { readonly kind: 'unsupported'; readonly why?: UnsupportedWhy }
  | { readonly kind: 'blocked' }
  /** Off; `reason` says why when a tap meant to turn it on did not (issue 23: never a silent "off"). */
  | { readonly kind: 'off'; readonly reason?: OffReason }
  | { readonly kind: 'on'; readonly endpoint: string }
  | { readonly kind: 'failed'; readonly message: string }
  /** A switch in progress, with the step it waits on (each bounded, so it always ends in another state). */
  | { readonly kind: 'working'; readonly step: PushStep };

/** Why push is off after the owner tapped to turn it on. */
export type OffReason = 'dismissed' | 'no-answer';

/** What turning push on is waiting for: the owner's answer, the browser's push service, the relay. */
export type PushStep = 'permission' | 'subscribing' | 'registering';

export type Permission = 'default' | 'granted' | 'denied';

/** Why an iPhone has no Web Push: it runs in a browser tab (add to Home Screen) or iOS is older than 16.4. */
export type UnsupportedWhy = 'install-first' | 'too-old';

/** The slice of `PushSubscription` used here. */
export interface SubscriptionLike {
  readonly endpoint: string;
  readonly options?: { readonly applicationServerKey: ArrayBuffer | null };
  toJSON(): unknown;
  unsubscribe(): Promise<boolean>;
}

/** The slice of `PushManager` + `Notification` permission used here. */
export interface PushManagerPort {
  permission(): Permission;
  /** Must run inside the user's gesture (browsers refuse a prompt otherwise). */
  requestPermission(): Promise<Permission>;
  getSubscription(): Promise<SubscriptionLike | null>;
  subscribe(options: { userVisibleOnly: true; applicationServerKey: Uint8Array }): Promise<SubscriptionLike>;
}

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface PushEnvironment {
  /** null when this browser cannot do Web Push at all (no service worker, PushManager or Notification). */
  readonly push: PushManagerPort | null;
  /** With `push` null on iOS: why, so the state can say what to do. */
  readonly unsupported?: UnsupportedWhy;
  readonly fetch: FetchLike;
  readonly store: PushRegistrationStore;
  /** ms since the epoch. */
  readonly clock: () => number;
}

/** How long one relay call may take before the registration is reported as failed. */
export const PUSH_REGISTRATION_TIMEOUT_MS = 15_000;
/**
 * How long the browser's push service may take to subscribe before it is reported as failed (issue 23:
 * Chromium's subscribe waits for Google's push service and, with that out of reach, hung for minutes while
 * the button stayed greyed out and "off").
 */
export const PUSH_SUBSCRIBE_TIMEOUT_MS = 10_000;
/**
 * How long the permission prompt may stay unanswered before push is reported off with that reason (a browser
 * can keep a quiet prompt that the owner never sees; one answered later still counts at the next tap).
 */
export const PUSH_PERMISSION_TIMEOUT_MS = 60_000;
/** Most characters of a relay error kept for the screen. */
export const MAX_RELAY_ERROR_CHARS = 200;

const unsupported = (env: PushEnvironment): PushState =>
  env.unsupported === undefined ? { kind: 'unsupported' } : { kind: 'unsupported', why: env.unsupported };

class RegistrationFailure extends Error {
  override readonly name = 'RegistrationFailure';
}

/** `promise`, or what `onTimeout()` returns (or throws) after `ms` — whichever comes first. */
function within<T>(promise: Promise<T>, ms: number, onTimeout: () => T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<T>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(onTimeout());
      } catch (error) {
        reject(error);
      }
    }, ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const TIMED_OUT = Symbol('timed out');

/**
 * Turns push on for this Burrow. Call it from the owner's tap: it may ask for notification permission. Every
 * step is bounded and every outcome is a state that says itself (issue 23): on; off with why; blocked;
 * failed with the error. `progress` hears each step as it starts.
 */
export async function enablePush(
  pairing: PairingRecord,
  env: PushEnvironment,
  progress: (step: PushStep) => void = () => {},
): Promise<PushState> {
  const push = env.push;
  if (push === null) return unsupported(env);
  let permission = push.permission();
  if (permission === 'default') {
    progress('permission');
    let answer: Permission | typeof TIMED_OUT;
    try {
      answer = await within<Permission | typeof TIMED_OUT>(
        push.requestPermission(),
        PUSH_PERMISSION_TIMEOUT_MS,
        () => TIMED_OUT,
      );
    } catch (error) {
      return { kind: 'failed', message: `the browser refused to ask: ${messageOf(error)}` };
    }
    if (answer === TIMED_OUT) return { kind: 'off', reason: 'no-answer' };
    permission = answer;
  }
  if (permission === 'denied') return { kind: 'blocked' };
  if (permission !== 'granted') return { kind: 'off', reason: 'dismissed' }; // nothing changes
  await env.store.putRegistration(pairing.burrowId, { wanted: true, endpoint: null, registeredAt: 0 });
  return register(pairing, push, env, progress);
}

/** On every app open: reports the state, and re-registers when the subscription changed or vanished. */
export async function checkPush(pairing: PairingRecord, env: PushEnvironment): Promise<PushState> {
  const push = env.push;
  if (push === null) return unsupported(env);
  const permission = push.permission();
  if (permission === 'denied') return { kind: 'blocked' };
  const record = await env.store.getRegistration(pairing.burrowId);
  if (record?.wanted !== true || permission !== 'granted') return { kind: 'off' };
  const current = await push.getSubscription();
  if (current !== null && current.endpoint === record.endpoint)
    return { kind: 'on', endpoint: current.endpoint };
  return register(pairing, push, env);
}

/** Turns push off for this Burrow: the relay forgets its subscription, and the browser's goes when unused. */
export async function disablePush(pairing: PairingRecord, env: PushEnvironment): Promise<PushState> {
  const push = env.push;
  if (push === null) return unsupported(env);
  // Stored first: even if the relay cannot be reached now, the next open will not re-register.
  await env.store.putRegistration(pairing.burrowId, { wanted: false, endpoint: null, registeredAt: 0 });
  let failure: string | null = null;
  try {
    await relayCall(pairing, env, 'DELETE', null);
  } catch (error) {
    failure = messageOf(error);
  }
  if ((await env.store.wantedBurrows()).length === 0) {
    await (await push.getSubscription())?.unsubscribe();
  }
  return failure === null
    ? { kind: 'off' }
    : { kind: 'failed', message: `turned off here, but the relay was not told: ${failure}` };
}

async function register(
  pairing: PairingRecord,
  push: PushManagerPort,
  env: PushEnvironment,
  progress: (step: PushStep) => void = () => {},
): Promise<PushState> {
  try {
    progress('registering');
    const key = await vapidKey(pairing, env);
    let subscription = await push.getSubscription();
    if (subscription !== null && !sameKey(subscription, key)) {
      // Subscribed under another relay's key: a push service refuses that relay's VAPID (RFC 8292 §4.2).
      await subscription.unsubscribe();
      subscription = null;
    }
    if (subscription === null) {
      progress('subscribing');
      subscription = await within(
        push.subscribe({ userVisibleOnly: true, applicationServerKey: key }),
        PUSH_SUBSCRIBE_TIMEOUT_MS,
        () => {
          throw new RegistrationFailure(
            `the browser's push service did not answer within ${PUSH_SUBSCRIBE_TIMEOUT_MS / 1000} s ` +
              '(it needs the internet; try again later)',
          );
        },
      );
    }
    progress('registering');
    await relayCall(pairing, env, 'PUT', subscription.toJSON());
    await env.store.putRegistration(pairing.burrowId, {
      wanted: true,
      endpoint: subscription.endpoint,
      registeredAt: env.clock(),
    });
    return { kind: 'on', endpoint: subscription.endpoint };
  } catch (error) {
    return { kind: 'failed', message: messageOf(error) };
  }
}

function relayBase(pairing: PairingRecord): string {
  return pairing.relayUrl.replace(/\/+$/, '');
}

async function vapidKey(pairing: PairingRecord, env: PushEnvironment): Promise<Uint8Array> {
  const response = await env.fetch(`${relayBase(pairing)}/v1/info`, {
    method: 'GET',
    signal: AbortSignal.timeout(PUSH_REGISTRATION_TIMEOUT_MS),
  });
  if (!response.ok) throw new RegistrationFailure(`the relay's info answered ${response.status}`);
  const info = decodeRelayInfo(await response.json());
  if (info.vapidPublicKey === null) throw new RegistrationFailure('the relay has no push key configured');
  return decodeBase64url(info.vapidPublicKey);
}

function sameKey(subscription: SubscriptionLike, key: Uint8Array): boolean {
  const held = subscription.options?.applicationServerKey;
  // A browser that does not report the key: trust the subscription, the relay's push will tell.
  if (held === undefined || held === null) return true;
  return encodeBase64url(new Uint8Array(held)) === encodeBase64url(key);
}

async function relayCall(
  pairing: PairingRecord,
  env: PushEnvironment,
  method: 'PUT' | 'DELETE',
  body: unknown,
) {
  const url =
    `${relayBase(pairing)}/v1/burrows/${encodeURIComponent(pairing.burrowId)}` +
    `/deliveries/${encodeURIComponent(pairing.deliveryId)}/subscription`;
  const headers: Record<string, string> = { Authorization: `Bearer ${pairing.deliveryToken}` };
  if (body !== null) headers['Content-Type'] = 'application/json';
  const response = await env.fetch(url, {
    method,
    headers,
    ...(body !== null ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(PUSH_REGISTRATION_TIMEOUT_MS),
  });
  if (response.ok) return;
  throw new RegistrationFailure(`the relay refused (${response.status}): ${await relayErrorText(response)}`);
}

async function relayErrorText(response: Response): Promise<string> {
  try {
    const json: unknown = JSON.parse((await response.text()).slice(0, 4 * MAX_RELAY_ERROR_CHARS));
    const message = (json as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string') return message.slice(0, MAX_RELAY_ERROR_CHARS);
  } catch {
    // not the relay's JSON error shape
  }
  return response.statusText.slice(0, MAX_RELAY_ERROR_CHARS) || 'no reason given';
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message.slice(0, MAX_RELAY_ERROR_CHARS);
  return String(error).slice(0, MAX_RELAY_ERROR_CHARS);
}
