/**
 * The one thing the push e2e stubs (DESIGN §8): Chromium cannot reach a real push service offline, so
 * `PushManager.prototype.subscribe` / `getSubscription` are replaced in the page by an init script. The
 * subscription it returns is issued by the local push service (tests/helpers/push-service.ts) through a
 * Playwright binding, so the test holds its keys; it is kept in localStorage so a reload still "has" it, as
 * a browser would. Everything else (permission, service worker, Notification, IndexedDB) is the browser's.
 */
import type { BrowserContext } from 'playwright-core';
import type { LocalPushService } from '../helpers/push-service.js';

export const ISSUE_BINDING = '__burrowIssueSubscription';
const STORAGE_KEY = '__burrowStubSubscription';

/** The page globals the stub touches (tests typecheck without DOM types). */
interface PageGlobals {
  readonly localStorage: {
    getItem(key: string): string | null;
    setItem(key: string, value: string): void;
    removeItem(key: string): void;
  };
  readonly PushManager: { readonly prototype: object };
}

/** Runs in the page before any of Pocket's code. Kept free of closures: Playwright serialises it. */
function installStub(names: { binding: string; storageKey: string }): void {
  const page = globalThis as unknown as PageGlobals & Record<string, unknown>;
  const localStorage = page.localStorage;
  const b64 = (bytes: Uint8Array) =>
    btoa(String.fromCharCode(...bytes))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
  const unb64 = (text: string) =>
    Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
  interface Held {
    endpoint: string;
    expirationTime: null;
    keys: { p256dh: string; auth: string };
    applicationServerKey: string;
  }
  const make = (held: Held) => ({
    endpoint: held.endpoint,
    expirationTime: null,
    options: { userVisibleOnly: true, applicationServerKey: unb64(held.applicationServerKey).buffer },
    getKey: (name: 'p256dh' | 'auth') => unb64(held.keys[name]).buffer,
    toJSON: () => ({ endpoint: held.endpoint, expirationTime: null, keys: held.keys }),
    unsubscribe: async () => {
      localStorage.removeItem(names.storageKey);
      return true;
    },
  });
  const proto = page.PushManager.prototype as Record<string, unknown>;
  proto.getSubscription = async () => {
    const text = localStorage.getItem(names.storageKey);
    return text === null ? null : make(JSON.parse(text) as Held);
  };
  proto.subscribe = async (options: {
    userVisibleOnly?: boolean;
    applicationServerKey?: ArrayBuffer | ArrayBufferView;
  }) => {
    if (options.userVisibleOnly !== true)
      throw new DOMException('userVisibleOnly is required', 'NotAllowedError');
    const raw = options.applicationServerKey;
    if (raw === undefined) throw new DOMException('applicationServerKey is required', 'InvalidAccessError');
    const key = b64(
      raw instanceof ArrayBuffer
        ? new Uint8Array(raw)
        : new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength),
    );
    const existing = localStorage.getItem(names.storageKey);
    if (existing !== null) return make(JSON.parse(existing) as Held);
    const issue = page[names.binding] as (k: string) => Promise<Omit<Held, 'applicationServerKey'>>;
    const held: Held = { ...(await issue(key)), applicationServerKey: key };
    localStorage.setItem(names.storageKey, JSON.stringify(held));
    return make(held);
  };
}

/** Installs the stub in every page of `context`; subscriptions come from `service`. */
export async function stubPushManager(context: BrowserContext, service: LocalPushService): Promise<void> {
  await context.exposeBinding(ISSUE_BINDING, (_source, applicationServerKey: string) =>
    service.subscribe(applicationServerKey),
  );
  await context.addInitScript(installStub, { binding: ISSUE_BINDING, storageKey: STORAGE_KEY });
}
