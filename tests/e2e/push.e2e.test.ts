import { join } from 'node:path';
import { PUSH_TEXT_MAX_CODE_POINTS } from '@burrow/crypto';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateVapidKeys } from '../../relay-worker/src/push/vapid-keys.js';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { LocalPushService } from '../helpers/push-service.js';
import { memoryAlarms, startRemoteBurrow } from '../helpers/remote-burrow.js';

import { ARTIFACTS_DIR, launchPhone, POCKET_DIST, preparePocket } from './pocket-browser.js';
import { stubPushManager } from './push-stub.js';
import {
  type BrowserNotification,
  deliverAndSettle,
  type SwRegistration,
  warmUpNotifications,
} from './sw-notifications.js';

const SUBJECT = 'mailto:relay-operator@example.com';

let service: LocalPushService;
let relay: RelayHandle;
let burrow: Awaited<ReturnType<typeof startRemoteBurrow>>;
let phone: Awaited<ReturnType<typeof launchPhone>>;
let context: BrowserContext;
let page: Page;
let cdp: CDPSession;
const registrations = new Map<string, string>(); // scopeURL → registrationId
const pageLog: string[] = [];

const until = async (cond: () => boolean | Promise<boolean>, what: string, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

interface ShownNotification {
  title: string;
  body: string;
  tag: string;
  data: unknown;
}
/** The page and worker globals the callbacks below touch (the tests compile without DOM types). */
interface PageScope {
  readonly navigator: { readonly serviceWorker: { readonly ready: Promise<SwRegistration> } };
}
interface WorkerScope {
  readonly registration: SwRegistration;
  readonly NotificationEvent: new (
    type: 'notificationclick',
    init: { notification: BrowserNotification },
  ) => object;
  dispatchEvent(event: object): boolean;
}

/** Only ever read after the worker's showNotification settled: an earlier read can erase it (sw-notifications.ts). */
const notifications = (): Promise<ShownNotification[]> =>
  page.evaluate(async () => {
    const registration = await (globalThis as unknown as PageScope).navigator.serviceWorker.ready;
    return (await registration.getNotifications()).map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      data: n.data as unknown,
    }));
  });

beforeAll(async () => {
  preparePocket();
  service = await LocalPushService.start();
  const { secret } = await generateVapidKeys();
  relay = await startRelay({
    assetsDir: POCKET_DIST,
    vars: { VAPID_PRIVATE_KEY: secret, VAPID_SUBJECT: SUBJECT, DEV_ALLOW_LOOPBACK_PUSH: '1' },
  });
  burrow = await startRemoteBurrow(relay.url, { alarms: memoryAlarms() });
  await until(() => burrow.service.linkStatus.kind === 'connected', 'the relay link');
  phone = await launchPhone();
  context = phone.context;
  await context.grantPermissions(['notifications'], { origin: relay.url });
  await stubPushManager(context, service);
  page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (m) => pageLog.push(`console.${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => pageLog.push(`pageerror: ${e.message}`));
  cdp = await context.newCDPSession(page);
  cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => {
    for (const r of e.registrations) {
      if (r.isDeleted) registrations.delete(r.scopeURL);
      else registrations.set(r.scopeURL, r.registrationId);
    }
  });
  await cdp.send('ServiceWorker.enable');
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state !== 'fail') return;
  await page?.screenshot({
    path: join(ARTIFACTS_DIR, `failed-push-${ctx.task.name.replace(/\W+/g, '-')}.png`),
  });
  console.error(
    `page log:\n${pageLog.slice(-40).join('\n')}\nburrow log:\n${burrow?.logs.slice(-20).join('\n')}`,
  );
});

afterAll(async () => {
  await phone?.close();
  await burrow?.stop();
  await relay?.stop();
  await service?.close();
});

const section = () => page.getByRole('region', { name: 'test burrow' });
const subscribedAtRelay = async () => (await burrow.service.deviceRows()).devices.map((d) => d.subscribed);
const serviceWorker = () => {
  const [sw] = context.serviceWorkers();
  if (!sw) throw new Error('Pocket has no running service worker');
  return sw;
};
/** Burrow's real push path (what `burrow push test` and a ring use): seal per device, relay, push service. */
async function burrowPush(sessionId: string, label: string) {
  const before = service.received.length;
  const report = await burrow.service.sendPush({ sessionId, label, reason: 'test' });
  expect(report?.outcome).toBe('delivered');
  const received = await service.waitForReceived(before + 1, 10_000);
  return received[before]!.plaintext;
}
/**
 * A trusted push event in the real worker: DevTools' `ServiceWorker.deliverPushMessage` with the push message
 * the push service decrypted. CDP's `data` is a string and the worker gets its UTF-8 bytes, which is why the
 * message is ASCII text. Resolves once the worker has received it and its showNotification calls settled, so
 * a push that was lost, refused or shown says which.
 */
async function deliverViaDevTools(message: Uint8Array): Promise<string[]> {
  const [scope, registrationId] = [...registrations][0]!;
  const data = Buffer.from(message).toString('ascii');
  expect(new TextEncoder().encode(data)).toEqual(message);
  const { bytes, shown } = await deliverAndSettle(serviceWorker(), until, () =>
    cdp.send('ServiceWorker.deliverPushMessage', { origin: new URL(scope).origin, registrationId, data }),
  );
  expect(bytes).toBe(message.length);
  return shown;
}
const closeNotification = (tag: string) =>
  page.evaluate(async (t) => {
    const scope = globalThis as unknown as PageScope;
    for (const n of await (await scope.navigator.serviceWorker.ready).getNotifications({ tag: t })) n.close();
  }, tag);
const waitForNotification = async (tag: string) => {
  await until(async () => (await notifications()).some((n) => n.tag === tag), `a notification tagged ${tag}`);
  return (await notifications()).filter((n) => n.tag === tag);
};

let sessionId: string;
let burrowId: string;

describe('Pocket push in a phone browser', () => {
  it('pairs, and "Enable notifications" subscribes with the relay key and registers with the relay', async () => {
    const link = await burrow.newPairingLink();
    await page.goto(link);
    await section().getByText('connected').waitFor({ timeout: 20_000 });
    await section().getByText('Notifications: off').waitFor();
    expect(await subscribedAtRelay()).toEqual([false]);
    await section().getByRole('button', { name: 'Enable notifications' }).tap();
    await section().getByText('Notifications: on').waitFor({ timeout: 20_000 });
    expect(await subscribedAtRelay()).toEqual([true]);
    burrowId = burrow.enrollment.burrowId;
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'push-1-enabled.png') });
  });

  it("a real push through DevTools' deliverPushMessage shows the session's notification (tag = session id)", async () => {
    sessionId = burrow.registry.create({ name: 'deploy', cwd: burrow.stateDir, command: [] }).id;
    await until(() => registrations.size > 0, 'the service worker registration');
    await warmUpNotifications(serviceWorker());
    // What the local push service decrypted (RFC 8291, by http_ece) is the push message: the sealed
    // envelope's base64url text (RL-PUSH-TEXT), so CDP's string `data` carries it byte for byte.
    const message = await burrowPush(sessionId, 'deploy');
    expect(await deliverViaDevTools(message)).toEqual([sessionId]);
    const [shown] = await waitForNotification(sessionId);
    expect(shown).toEqual({
      title: 'deploy',
      body: 'Test notification from your Burrow',
      tag: sessionId,
      data: { path: `/b/${burrowId}/s/${sessionId}` },
    });
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'push-2-notified.png') });

    // The same push again is a replay: one generic notification, the session's one unchanged.
    expect(await deliverViaDevTools(message)).toEqual(['burrow-generic']);
    await waitForNotification('burrow-generic');
    expect(await waitForNotification(sessionId)).toHaveLength(1);

    // A newer ring for the same session replaces the older notification.
    await deliverViaDevTools(await burrowPush(sessionId, 'deploy again'));
    await until(
      async () => (await notifications()).find((n) => n.tag === sessionId)?.title === 'deploy again',
      'the newer ring',
    );
    expect(await waitForNotification(sessionId)).toHaveLength(1);
  });

  it('hostile label text (bidi, zero-width, C1, HTML, ANSI, 1 MB) shows as a bounded plain title (issue 8)', async () => {
    const hostileId = burrow.registry.create({ name: 'hostile', cwd: burrow.stateDir, command: [] }).id;
    const label = `\u202Eevil\u200B \u009B\u001b[31m <img src=x onerror=alert(1)> ${'y'.repeat(1_000_000)}`;
    await deliverViaDevTools(await burrowPush(hostileId, label));
    const [shown] = await waitForNotification(hostileId);
    expect(shown!.title).toContain('<img src=x onerror=alert(1)>');
    expect(shown!.title).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b-\u200f\u0080-\u009f\u001b]/);
    expect([...shown!.title].length).toBeLessThanOrEqual(PUSH_TEXT_MAX_CODE_POINTS);
    expect(shown!.title.endsWith('\u2026')).toBe(true);
    await closeNotification(hostileId);
  });

  it('a click on the notification lands on that session', async () => {
    // CDP has no notification click, so the real notification object is clicked by a NotificationEvent
    // dispatched in the worker; the worker's own handler does the rest.
    await page.goto(`${relay.url}/`);
    await section().getByText('connected').waitFor({ timeout: 20_000 });
    await serviceWorker().evaluate(async (tag) => {
      const sw = globalThis as unknown as WorkerScope;
      const [notification] = await sw.registration.getNotifications({ tag });
      if (!notification) throw new Error(`no notification tagged ${tag}`);
      sw.dispatchEvent(new sw.NotificationEvent('notificationclick', { notification }));
    }, sessionId);
    await page.waitForURL(`${relay.url}/b/${burrowId}/s/${sessionId}`, { timeout: 10_000 });
    await page.locator('.term-host[data-painted="yes"]').waitFor({ timeout: 20_000 });
    // The handler closed the clicked notification.
    await until(
      async () => !(await notifications()).some((n) => n.tag === sessionId),
      'the notification to close',
    );
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'push-3-opened-from-notification.png') });
  });

  it('every open re-checks: a vanished subscription is replaced and registered again', async () => {
    const first = await page.evaluate<string>('localStorage.getItem("__burrowStubSubscription")');
    await page.evaluate('localStorage.removeItem("__burrowStubSubscription")');
    await page.goto(`${relay.url}/`);
    await section().getByText('Notifications: on').waitFor({ timeout: 20_000 });
    const second = await page.evaluate<string>('localStorage.getItem("__burrowStubSubscription")');
    expect(JSON.parse(second).endpoint).not.toBe(JSON.parse(first).endpoint);
    const before = service.received.length;
    await burrowPush(sessionId, 'deploy');
    expect(service.received[before]!.endpoint).toBe(JSON.parse(second).endpoint);
  });

  it('"Send test push" shows what the Burrow reported', async () => {
    await section().getByRole('button', { name: 'Send test push' }).tap();
    await section().getByText('Test push: delivered.').waitFor({ timeout: 20_000 });
  });

  it('turning notifications off deletes the registration at the relay', async () => {
    await section().getByRole('button', { name: 'Turn off notifications' }).tap();
    await section().getByText('Notifications: off').waitFor({ timeout: 20_000 });
    expect(await subscribedAtRelay()).toEqual([false]);
    const report = await burrow.service.sendPush({ sessionId, label: 'deploy', reason: 'test' });
    expect(report?.outcome).toBe('no_subscriptions');
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'push-4-off.png') });
  });
});
