/**
 * Reading Pocket's notifications back in headless Chromium without deleting them.
 *
 * `registration.getNotifications()` is not a pure read in Chromium. `PlatformNotificationContextImpl::
 * ReadAllNotificationDataForServiceWorkerRegistration` (content/browser/notifications) first asks the
 * platform which notifications it is displaying, then reads the database, and DELETES every stored
 * notification that the platform did not list, unless it was written after the read began. A notification is
 * written to the database before the browser's UI thread hands it to the platform, so a read landing in that
 * gap erases it for good, although the user still sees it. The gap is widest right after launch: Linux
 * Chromium sets its notification platform up lazily on the first notification (probing D-Bus for a native
 * server, then falling back to its message centre) and queues displays until then.
 *
 * That was the push e2e flake that took three sessions to explain: the worker got the push, showNotification
 * resolved in 55–90 ms, yet neither the page nor the worker could ever read the notification. Measured on
 * this machine: reading every 50 ms from the push event on lost the first or second notification in 3 of 12
 * fresh browsers; reading only once showNotification had settled lost none in 11 browsers (33 pushes), and
 * this file then passed 12 runs of 12 beside two CPU burners.
 *
 * So the suite (1) warms the platform up once per browser (`warmUpNotifications`), and (2) reads a push's
 * notification only after the worker's own showNotification calls for it have settled (`deliverAndSettle`),
 * which is when Chromium has handed it to the platform. Both observe the real worker; nothing in Pocket's
 * code is replaced — the probe wraps `ServiceWorkerRegistration.prototype.showNotification` and passes every
 * call through unchanged.
 */
import type { Worker } from 'playwright-core';

/** The worker globals the callbacks below touch (the tests compile without DOM/worker types). */
export interface BrowserNotification {
  readonly title: string;
  readonly body: string;
  readonly tag: string;
  readonly data: unknown;
  close(): void;
}
export interface SwRegistration {
  getNotifications(filter?: { tag: string }): Promise<BrowserNotification[]>;
  showNotification(title: string, options: { tag: string; body?: string }): Promise<void>;
}
interface Probe {
  /** Byte length of every push event's data (-1 without data), in arrival order. */
  readonly pushes: number[];
  /** showNotification calls that have not settled yet. */
  pending: number;
  /** Every settled showNotification call: its tag, or `!` and the error. */
  readonly settled: string[];
}
interface ProbedWorker {
  readonly registration: SwRegistration;
  readonly ServiceWorkerRegistration: { readonly prototype: SwRegistration };
  addEventListener(
    type: 'push',
    listener: (e: { data: { arrayBuffer(): ArrayBuffer } | null }) => void,
  ): void;
  __burrowProbe?: Probe;
}

export interface ProbeState {
  readonly pushes: readonly number[];
  readonly pending: number;
  readonly settled: readonly string[];
}

/** Installs the probe in the running worker once (a restarted worker gets a new one) and returns its state. */
export function readProbe(worker: Worker): Promise<ProbeState> {
  return worker.evaluate(() => {
    const g = globalThis as unknown as ProbedWorker;
    if (g.__burrowProbe === undefined) {
      const probe: Probe = { pushes: [], pending: 0, settled: [] };
      g.__burrowProbe = probe;
      g.addEventListener('push', (e) => probe.pushes.push(e.data?.arrayBuffer().byteLength ?? -1));
      const proto = g.ServiceWorkerRegistration.prototype;
      const show = proto.showNotification;
      proto.showNotification = function (this: SwRegistration, title, options) {
        probe.pending++;
        return show.call(this, title, options).then(
          () => {
            probe.pending--;
            probe.settled.push(options.tag);
          },
          (error: unknown) => {
            probe.pending--;
            probe.settled.push(`!${String(error)}`);
            throw error;
          },
        );
      };
    }
    const p = g.__burrowProbe;
    return { pushes: [...p.pushes], pending: p.pending, settled: [...p.settled] };
  });
}

type Until = (cond: () => Promise<boolean>, what: string, ms?: number) => Promise<void>;

/**
 * Runs `deliver` (which makes the browser fire one push event) and resolves once the worker received it and
 * every showNotification call it made has settled. Returns the byte length the worker saw and what it showed
 * (tags, or `!error`), so a failure says whether the push was lost, refused or shown.
 */
export async function deliverAndSettle(
  worker: Worker,
  until: Until,
  deliver: () => Promise<unknown>,
): Promise<{ bytes: number; shown: string[] }> {
  const before = await readProbe(worker);
  await deliver();
  let after = before;
  await until(async () => {
    after = await readProbe(worker);
    return (
      after.pushes.length > before.pushes.length &&
      after.settled.length > before.settled.length &&
      after.pending === 0
    );
  }, 'the worker to receive the push and settle its showNotification');
  return { bytes: after.pushes.at(-1)!, shown: after.settled.slice(before.settled.length) };
}

/**
 * Makes Chromium set its notification platform up before the suite reads anything: shows a throwaway
 * notification from the worker until a read (made only after the show settled) lists it, then closes it.
 * Until the platform is up every read can erase what was just shown (see the module comment).
 */
export async function warmUpNotifications(worker: Worker, timeoutMs = 20_000): Promise<number> {
  return worker.evaluate(async (deadline) => {
    const g = globalThis as unknown as ProbedWorker;
    const tag = 'burrow-e2e-warm-up';
    const end = Date.now() + deadline;
    for (let attempt = 1; Date.now() < end; attempt++) {
      await g.registration.showNotification('warm-up', { tag, body: 'test harness' });
      await new Promise((r) => setTimeout(r, 100 * attempt));
      const listed = await g.registration.getNotifications({ tag });
      for (const n of listed) n.close();
      if (listed.length > 0) return attempt;
    }
    throw new Error(`Chromium never listed a shown notification within ${deadline} ms`);
  }, timeoutMs);
}
