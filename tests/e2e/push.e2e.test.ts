import { PUSH_TEXT_MAX_CODE_POINTS } from '@burrow/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateVapidKeys } from '../../relay-worker/src/push/vapid-keys.js';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { LocalPushService } from '../helpers/push-service.js';
import { memoryAlarms, startRemoteBurrow } from '../helpers/remote-burrow.js';
import { stopAll } from '../helpers/stop-all.js';
import type { Phone } from './phone/phone.js';
import { e2eEngine, launchPhone } from './phone/project.js';
import { POCKET_DIST, preparePocket, reportFailures } from './pocket-browser.js';
import { until, waitForPaintedTerminal } from './pocket-screens.js';
import { type PushRig, pushRig } from './push-rigs.js';

const SUBJECT = 'mailto:relay-operator@example.com';

let service: LocalPushService;
let rig: PushRig;
let relay: RelayHandle;
let burrow: Awaited<ReturnType<typeof startRemoteBurrow>>;
let phone: Phone;

interface ShownNotification {
  title: string;
  body: string;
  tag: string;
  data: unknown;
}
/** The page globals the callbacks below touch (the tests compile without DOM types). */
interface PageScope {
  readonly navigator: {
    readonly serviceWorker: {
      readonly ready: Promise<{
        getNotifications(filter?: { tag: string }): Promise<(ShownNotification & { close(): void })[]>;
        readonly pushManager: {
          getSubscription(): Promise<{ endpoint: string; unsubscribe(): Promise<boolean> } | null>;
        };
      }>;
    };
  };
}

/** In Chromium only ever read after the worker's showNotification settled (sw-notifications.ts). */
const notifications = (): Promise<ShownNotification[]> =>
  phone.evaluate(async () => {
    const registration = await (globalThis as unknown as PageScope).navigator.serviceWorker.ready;
    return (await registration.getNotifications()).map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      data: n.data as unknown,
    }));
  });
const waitForNotification = async (tag: string) => {
  await until(async () => (await notifications()).some((n) => n.tag === tag), `a notification tagged ${tag}`);
  return (await notifications()).filter((n) => n.tag === tag);
};
const closeNotification = (tag: string) =>
  phone.evaluate(async (t) => {
    const scope = globalThis as unknown as PageScope;
    for (const n of await (await scope.navigator.serviceWorker.ready).getNotifications({ tag: t })) n.close();
  }, tag);
const subscriptionEndpoint = () =>
  phone.evaluate(async () => {
    const scope = globalThis as unknown as PageScope;
    return (
      (await (await scope.navigator.serviceWorker.ready).pushManager.getSubscription())?.endpoint ?? null
    );
  });

beforeAll(async () => {
  await preparePocket();
  service = await LocalPushService.start();
  rig = await pushRig(e2eEngine(), service, until);
  const { secret } = await generateVapidKeys();
  relay = await startRelay({
    assetsDir: POCKET_DIST,
    vars: { VAPID_PRIVATE_KEY: secret, VAPID_SUBJECT: SUBJECT, DEV_ALLOW_LOOPBACK_PUSH: '1' },
  });
  burrow = await startRemoteBurrow(relay.url, { alarms: memoryAlarms() });
  await until(() => burrow.service.linkStatus.kind === 'connected', 'the relay link');
  phone = await launchPhone(rig.launchOptions);
  await rig.attach(phone);
});

reportFailures(
  'push',
  () => phone,
  () => `burrow log:\n${burrow?.logs.slice(-20).join('\n')}`,
);

afterAll(() =>
  stopAll(
    () => phone?.close(),
    () => rig?.close(),
    () => burrow?.stop(),
    () => relay?.stop(),
    () => service?.close(),
  ),
);

const section = () => phone.getByRole('region', { name: 'test burrow' });
const subscribedAtRelay = async () => (await burrow.service.deviceRows()).devices.map((d) => d.subscribed);
/** Burrow's real push path (what `burrow push test` and a ring use): seal per device, relay, push service,
 * then the engine's browser delivers it to the worker (push-rigs.ts). */
async function burrowPush(sessionId: string, label: string) {
  const pushed = rig.pushCount() + 1;
  const report = await burrow.service.sendPush({ sessionId, label, reason: 'test' });
  expect(report?.outcome).toBe('delivered');
  return rig.deliver(pushed);
}
async function pairAndSeeConnected() {
  await phone.goto(await burrow.newPairingLink());
  await section().getByText('connected').waitFor({ timeout: 20_000 });
}

let sessionId: string;
let burrowId: string;

describe('Pocket push in a phone browser', () => {
  if (e2eEngine() === 'webkit') {
    // WebKitGTK has no Push API in automation (nor does iOS Safari outside a home-screen app): what can be
    // proved is that Pocket says so, offers no switch that cannot work, and everything else still works.
    it('no Push API: the Burrow says "not supported" and why, the switch is off, the app still works', async () => {
      await pairAndSeeConnected();
      expect(await phone.evaluate("'PushManager' in window")).toBe(false);
      await section()
        .getByText(/Notifications: not supported in this browser/)
        .waitFor({ timeout: 20_000 });
      expect(
        await section()
          .getByText(/add Pocket to the Home Screen first/)
          .count(),
      ).toBe(1);
      expect(
        await section().getByRole('button', { name: 'Enable notifications' }).getAttribute('disabled'),
      ).not.toBeNull();
      expect(await subscribedAtRelay()).toEqual([false]);
      await section().getByRole('button', { name: 'Send test push' }).tap();
      await section()
        .getByText('Test push: no phone has notifications turned on, so nothing was sent.')
        .waitFor({
          timeout: 20_000,
        });
      await phone.screenshot('push-unsupported');
      await phone.getByRole('button', { name: 'New session' }).tap();
      await phone.getByRole('button', { name: 'Start' }).tap();
      await waitForPaintedTerminal(phone);
    });
    return;
  }

  it('pairs, and "Enable notifications" subscribes with the relay key and registers with the relay', async () => {
    await pairAndSeeConnected();
    await section().getByText('Notifications: off').waitFor();
    expect(await subscribedAtRelay()).toEqual([false]);
    await section().getByRole('button', { name: 'Enable notifications' }).tap();
    await section().getByText('Notifications: on').waitFor({ timeout: 20_000 });
    expect(await subscribedAtRelay()).toEqual([true]);
    burrowId = burrow.enrollment.burrowId;
    await phone.screenshot('push-1-enabled');
  });

  it("a real push reaches the worker and shows the session's notification (tag = session id)", async () => {
    sessionId = burrow.registry.create({ name: 'deploy', cwd: burrow.stateDir, command: [] }).id;
    const shown = await burrowPush(sessionId, 'deploy');
    if (shown !== null) expect(shown).toEqual([sessionId]);
    const [notification] = await waitForNotification(sessionId);
    expect(notification).toEqual({
      title: 'deploy',
      body: 'Test notification from your Burrow',
      tag: sessionId,
      data: { path: `/b/${burrowId}/s/${sessionId}` },
    });
    await phone.screenshot('push-2-notified');

    // The same push again is a replay: one generic notification, the session's one unchanged.
    const replayed = await rig.replayLast();
    if (replayed !== null) expect(replayed).toEqual(['burrow-generic']);
    await waitForNotification('burrow-generic');
    expect(await waitForNotification(sessionId)).toHaveLength(1);

    // A newer ring for the same session replaces the older notification.
    await burrowPush(sessionId, 'deploy again');
    await until(
      async () => (await notifications()).find((n) => n.tag === sessionId)?.title === 'deploy again',
      'the newer ring',
    );
    expect(await waitForNotification(sessionId)).toHaveLength(1);
  });

  it('hostile label text (bidi, zero-width, C1, HTML, ANSI, 1 MB) shows as a bounded plain title (issue 8)', async () => {
    const hostileId = burrow.registry.create({ name: 'hostile', cwd: burrow.stateDir, command: [] }).id;
    const label = `\u202Eevil\u200B \u009B\u001b[31m <img src=x onerror=alert(1)> ${'y'.repeat(1_000_000)}`;
    await burrowPush(hostileId, label);
    const [shown] = await waitForNotification(hostileId);
    expect(shown!.title).toContain('<img src=x onerror=alert(1)>');
    expect(shown!.title).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b-\u200f\u0080-\u009f\u001b]/);
    expect([...shown!.title].length).toBeLessThanOrEqual(PUSH_TEXT_MAX_CODE_POINTS);
    expect(shown!.title.endsWith('\u2026')).toBe(true);
    await closeNotification(hostileId);
  });

  // Only where the test can reach into the worker (Chromium's DevTools): no engine lets automation click a
  // notification, and Firefox's BiDi has no service-worker realm to dispatch one in (README "Browsers").
  if (e2eEngine() === 'chromium') {
    it('a click on the notification lands on that session', async () => {
      await phone.goto(`${relay.url}/`);
      await section().getByText('connected').waitFor({ timeout: 20_000 });
      await rig.clickNotification!(sessionId);
      await until(
        async () => (await phone.url()) === `${relay.url}/b/${burrowId}/s/${sessionId}`,
        'the session route',
        10_000,
      );
      await waitForPaintedTerminal(phone);
      // The handler closed the clicked notification.
      await until(
        async () => !(await notifications()).some((n) => n.tag === sessionId),
        'the notification to close',
      );
      await phone.screenshot('push-3-opened-from-notification');
    });
  }

  it('every open re-checks: a vanished subscription is replaced and registered again', async () => {
    const first = await subscriptionEndpoint();
    expect(first).not.toBeNull();
    // As a browser that dropped the subscription (cleared site data, expired) would leave it.
    await phone.evaluate(async () => {
      const scope = globalThis as unknown as PageScope;
      await (await (await scope.navigator.serviceWorker.ready).pushManager.getSubscription())?.unsubscribe();
    });
    await phone.goto(`${relay.url}/`);
    await section().getByText('Notifications: on').waitFor({ timeout: 20_000 });
    await until(async () => (await subscriptionEndpoint()) !== null, 'the new subscription');
    const second = await subscriptionEndpoint();
    expect(second).not.toBe(first);
    await burrowPush(sessionId, 'deploy');
    expect(rig.lastEndpoint()).toBe(second);
  });

  it('"Send test push" shows what the Burrow reported', async () => {
    await section().getByRole('button', { name: 'Send test push' }).tap();
    await section().getByText('Test push: delivered.').waitFor({ timeout: 20_000 });
  });

  it('a registration that failed offline ("Failed to fetch") clears once the Burrow is back (issue 17)', async () => {
    // A vanished subscription and no network: the re-check on open has to reach the relay, and cannot.
    await phone.evaluate(async () => {
      const scope = globalThis as unknown as PageScope;
      await (await (await scope.navigator.serviceWorker.ready).pushManager.getSubscription())?.unsubscribe();
    });
    await phone.setOffline(true);
    await phone.reload(); // the precached shell, from the service worker
    const failed = () => section().getByText(/^Notifications: could not be set up — /);
    await failed().waitFor({ timeout: 30_000 });
    await phone.screenshot('push-failed-offline');
    await phone.setOffline(false);
    // Reconnected: the failure is checked again, not left on screen.
    await section().getByText('Notifications: on').waitFor({ timeout: 60_000 });
    expect(await failed().count()).toBe(0);
    await until(async () => (await subscriptionEndpoint()) !== null, 'the new subscription');
  });

  it('turning notifications off deletes the registration at the relay', async () => {
    await section().getByRole('button', { name: 'Turn off notifications' }).tap();
    await section().getByText('Notifications: off').waitFor({ timeout: 20_000 });
    expect(await subscribedAtRelay()).toEqual([false]);
    const report = await burrow.service.sendPush({ sessionId, label: 'deploy', reason: 'test' });
    expect(report?.outcome).toBe('no_subscriptions');
    await phone.screenshot('push-4-off');
  });
});
