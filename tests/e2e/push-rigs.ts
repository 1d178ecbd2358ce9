/**
 * How a push reaches Pocket's real service worker in each engine, behind one shape so push.e2e.test.ts is
 * one set of bodies:
 *  - Chromium cannot subscribe to a real push service offline (DESIGN §8): PushManager is stubbed in the page
 *    with a subscription the local push service issued (push-stub.ts), and the message that service
 *    decrypted is delivered to the worker with DevTools' ServiceWorker.deliverPushMessage.
 *  - Firefox's Push API is real: it connects to a local autopush (helpers/autopush-server.ts), subscribes
 *    there with the relay's VAPID key, and gets each push over that socket, decrypts it itself and wakes the
 *    worker; nothing in the browser is replaced.
 *  - WebKitGTK exposes no PushManager (measured: `'PushManager' in window` is false in MiniBrowser 2.50, as
 *    in iOS Safari outside a home-screen app), so there is no push to deliver: the file proves the refusal.
 */
import type { CDPSession } from 'playwright-core';
import { expect } from 'vitest';
import { AutopushServer } from '../helpers/autopush-server.js';
import type { LocalPushService } from '../helpers/push-service.js';
import type { LaunchOptions, Phone } from './phone/phone.js';
import { stubPushManager } from './push-stub.js';
import { deliverAndSettle, warmUpNotifications } from './sw-notifications.js';

type Until = (cond: () => boolean | Promise<boolean>, what: string, ms?: number) => Promise<void>;

export interface PushRig {
  /** The engine has a Push API Pocket can subscribe with. */
  readonly supported: boolean;
  readonly launchOptions: LaunchOptions;
  /** Once the phone is up (before Pocket loads): permissions, stubs, DevTools. */
  attach(phone: Phone): Promise<void>;
  /** Pushes the push service has taken for this engine's subscriptions so far. */
  pushCount(): number;
  /**
   * Makes the browser deliver, to the real worker, the push the relay just sent (`pushed` counts pushes
   * sent so far); resolves with the tags the worker showed where the engine lets the test watch the worker
   * (Chromium), else null (the body reads the notifications back either way).
   */
  deliver(pushed: number): Promise<readonly string[] | null>;
  /** The last push delivered to the worker again (a push service re-delivering it). */
  replayLast(): Promise<readonly string[] | null>;
  /** The endpoint the relay last pushed to. */
  lastEndpoint(): string;
  /** Clicks the notification tagged `tag`, where the engine lets a test reach the worker; else absent. */
  readonly clickNotification?: (tag: string) => Promise<void>;
  close(): Promise<void>;
}

/** The worker globals a click needs (the tests compile without DOM/worker types). */
interface WorkerScope {
  readonly registration: {
    getNotifications(filter: { tag: string }): Promise<object[]>;
  };
  readonly NotificationEvent: new (type: 'notificationclick', init: { notification: object }) => object;
  dispatchEvent(event: object): boolean;
}

export async function pushRig(
  engine: Phone['engine'],
  service: LocalPushService,
  until: Until,
): Promise<PushRig> {
  switch (engine) {
    case 'chromium':
      return chromiumRig(service, until);
    case 'firefox':
      return firefoxRig(service, until);
    case 'webkit':
      return {
        supported: false,
        launchOptions: {},
        attach: async () => undefined,
        pushCount: () => 0,
        deliver: () => Promise.reject(new Error('WebKitGTK has no Push API')),
        replayLast: () => Promise.reject(new Error('WebKitGTK has no Push API')),
        lastEndpoint: () => {
          throw new Error('WebKitGTK has no Push API');
        },
        close: async () => undefined,
      };
  }
}

function chromiumRig(service: LocalPushService, until: Until): PushRig {
  let phone: Phone | undefined;
  let cdp: CDPSession | undefined;
  let last: Uint8Array | undefined;
  const registrations = new Map<string, string>(); // scopeURL → registrationId
  const native = () => {
    if (phone?.native.engine !== 'chromium') throw new Error('the Chromium rig needs a Chromium phone');
    return phone.native;
  };
  const serviceWorker = () => {
    const [sw] = native().context.serviceWorkers();
    if (!sw) throw new Error('Pocket has no running service worker');
    return sw;
  };
  let warm = false;
  /**
   * A trusted push event in the real worker with the message the push service decrypted. CDP's `data` is a
   * string and the worker gets its UTF-8 bytes, which is why the message is ASCII text (RL-PUSH-TEXT).
   * Resolves once the worker's showNotification calls settled (sw-notifications.ts says why that matters).
   */
  const deliverViaDevTools = async (message: Uint8Array) => {
    await until(() => registrations.size > 0, 'the service worker registration');
    if (!warm) {
      await warmUpNotifications(serviceWorker());
      warm = true;
    }
    const [scope, registrationId] = [...registrations][0]!;
    const data = Buffer.from(message).toString('ascii');
    expect(new TextEncoder().encode(data)).toEqual(message);
    const { bytes, shown } = await deliverAndSettle(serviceWorker(), until, () =>
      cdp!.send('ServiceWorker.deliverPushMessage', { origin: new URL(scope).origin, registrationId, data }),
    );
    expect(bytes).toBe(message.length);
    last = message;
    return shown;
  };
  return {
    supported: true,
    launchOptions: {},
    async attach(p) {
      phone = p;
      const { context, page } = native();
      await context.grantPermissions(['notifications']);
      await stubPushManager(context, service);
      cdp = await context.newCDPSession(page);
      cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => {
        for (const r of e.registrations) {
          if (r.isDeleted) registrations.delete(r.scopeURL);
          else registrations.set(r.scopeURL, r.registrationId);
        }
      });
      await cdp.send('ServiceWorker.enable');
    },
    pushCount: () => service.received.length,
    async deliver(pushed) {
      const received = await service.waitForReceived(pushed, 10_000);
      return deliverViaDevTools(received[pushed - 1]!.plaintext);
    },
    replayLast() {
      if (last === undefined) throw new Error('nothing delivered yet');
      return deliverViaDevTools(last);
    },
    lastEndpoint: () => service.received.at(-1)!.endpoint,
    // CDP has no notification click, so the real notification object is clicked by a NotificationEvent
    // dispatched in the worker; the worker's own handler does the rest.
    clickNotification: (tag) =>
      serviceWorker().evaluate(async (t) => {
        const sw = globalThis as unknown as WorkerScope;
        const [notification] = await sw.registration.getNotifications({ tag: t });
        if (!notification) throw new Error(`no notification tagged ${t}`);
        sw.dispatchEvent(new sw.NotificationEvent('notificationclick', { notification }));
      }, tag),
    close: async () => undefined,
  };
}

async function firefoxRig(service: LocalPushService, until: Until): Promise<PushRig> {
  const autopush = await AutopushServer.start(service);
  /** Waits for Firefox's ack of the push just handed on: 100 is "delivered to the worker". */
  const acked = async () => {
    const version = autopush.lastVersion();
    if (version === null) throw new Error('autopush handed nothing on');
    await until(() => autopush.ackFor(version) !== undefined, `Firefox to ack push ${version}`, 15_000);
    expect(autopush.ackFor(version)!.code, 'Firefox acked the push with an error').toBe(100);
  };
  return {
    supported: true,
    launchOptions: {
      firefoxPrefs: {
        'dom.push.enabled': true,
        'dom.push.connection.enabled': true,
        'dom.push.serverURL': autopush.url,
        'dom.push.testing.allowInsecureServerURL': true,
      },
    },
    attach: async () => undefined,
    pushCount: () => service.forwarded.length,
    async deliver(pushed) {
      await until(() => service.forwarded.length >= pushed, 'the push service to hand the push on', 10_000);
      await acked();
      return null;
    },
    async replayLast() {
      autopush.replayLast();
      await acked();
      return null;
    },
    lastEndpoint: () => service.forwarded.at(-1)!.endpoint,
    close: () => autopush.close(),
  };
}
